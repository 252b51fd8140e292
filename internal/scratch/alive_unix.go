//go:build unix

package scratch

import (
	"errors"
	"syscall"
)

// alive reports whether process pid may exist: only "no such process" says
// it does not (a process of another user answers EPERM).
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// SyncDir makes a rename in dir durable.
func SyncDir(dir string) error { return Sync(dir) }
