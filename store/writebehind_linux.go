package store

import (
	"os"

	"golang.org/x/sys/unix"
)

const canWriteBehind = true

// startWriteback asks for the n bytes from off to be written: the range's
// dirty pages start going to disk, without waiting for them.
func startWriteback(f *os.File, off, n int64) error {
	return unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
