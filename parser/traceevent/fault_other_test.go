//go:build !unix

package traceevent

import "testing"

// unreadable is unix-only (fault_unix_test.go).
func unreadable(t *testing.T) []byte {
	t.Skip("no unreadable memory here")
	return nil
}
