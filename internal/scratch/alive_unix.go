//go:build unix

package scratch

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether process pid may exist: only "no such process" says
// it does not (a process of another user answers EPERM).
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// SyncDir makes a rename in dir durable.
func SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
