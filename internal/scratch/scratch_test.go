//go:build unix

package scratch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

func TestClean(t *testing.T) {
	dir := t.TempDir()
	dead, live := deadPID(t), os.Getpid()
	names := map[string]bool{ // name → stale
		fmt.Sprintf(".out.db.tracestreamer-%d-0badf00d.tmp", dead): true,
		fmt.Sprintf("tracestreamer-%d-sort-123456", dead):          true,
		fmt.Sprintf(".out.db.tracestreamer-%d-0badf00d.tmp", live): false, // this process
		fmt.Sprintf(".out.db.tracestreamer-%d-0badf00d.tmp", 1):    false, // init: alive
		".out.db.tmp-123":                       false, // not ours
		"tracestreamer-sort-123":                false, // no pid
		".out.db.tracestreamer-x-1.tmp":         false,
		fmt.Sprintf("out.db.%d.tmp", dead):      false,
		fmt.Sprintf("tracestreamer-%d-x", dead): false,
	}
	for n := range names {
		if strings.Contains(n, "-sort-") {
			if err := os.MkdirAll(filepath.Join(dir, n, "run-1"), 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed := Clean(dir)
	var want []string
	for n, stale := range names {
		if stale {
			want = append(want, filepath.Join(dir, n))
		}
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for n, stale := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); (err == nil) == stale {
			t.Errorf("%s: exists %v, stale %v", n, err == nil, stale)
		}
	}
}

// TestFileMode: a temporary file gets the mode of a new file under the umask,
// and a long destination name still gives a valid temporary name.
func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o664}} {
		old := syscall.Umask(tt.umask)
		f, err := File(dir, strings.Repeat("n", 255))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := f.Stat()
		f.Close()
		if info.Mode().Perm() != tt.want || len(filepath.Base(f.Name())) > 255 {
			t.Errorf("umask %o: mode %v, name of %d bytes", tt.umask, info.Mode().Perm(), len(filepath.Base(f.Name())))
		}
		if pid, ok := pidOf(filepath.Base(f.Name())); !ok || pid != os.Getpid() {
			t.Errorf("name %s does not carry the pid", f.Name())
		}
	}
}
