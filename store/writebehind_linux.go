package store

import (
	"os"
	"syscall"
)

const canWriteBehind = true

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writing the range's
// dirty pages, without waiting for them.
const syncFileRangeWrite = 2

// startWriteback asks for the n bytes from off to be written.
func startWriteback(f *os.File, off, n int64) error {
	return syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite)
}
