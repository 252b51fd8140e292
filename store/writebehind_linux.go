package store

import (
	"os"
	"syscall"
)

const canWriteBehind = true

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start writing the range's
// dirty pages, without waiting for them.
const syncFileRangeWrite = 2

func startWriteback(f *os.File, end int64) error {
	return syscall.SyncFileRange(int(f.Fd()), 0, end, syncFileRangeWrite)
}
