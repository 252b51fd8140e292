//go:build unix

package traceevent

import (
	"syscall"
	"testing"
)

// unreadable returns bytes that fault when read: a page mapped with no
// access (with debug.SetPanicOnFault, reading them panics).
func unreadable(t *testing.T) []byte {
	t.Helper()
	b, err := syscall.Mmap(-1, 0, syscall.Getpagesize(), syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}
