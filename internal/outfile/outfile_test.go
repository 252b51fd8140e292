//go:build unix

package outfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestTarget(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(path("old.db"), []byte("old"), 0o644))
	must(os.WriteFile(path("in.json"), []byte("[]"), 0o644))
	must(syscall.Mkfifo(path("fifo"), 0o644))
	must(os.Mkdir(path("dir"), 0o755))
	must(os.Symlink("old.db", path("link.db")))         // relative, to a regular file
	must(os.Symlink(path("link.db"), path("link2.db"))) // a chain
	must(os.Symlink("missing.db", path("dangling.db"))) // to a file to create
	must(os.Symlink("/dev/null", path("null.db")))      // to a device
	must(os.Symlink("in.json", path("to-input.db")))    // to an input
	must(os.Symlink("loop2.db", path("loop1.db")))      // a loop
	must(os.Symlink("loop1.db", path("loop2.db")))
	tests := []struct {
		out, want, err string
	}{
		{path("new.db"), path("new.db"), ""},
		{path("old.db"), path("old.db"), ""},
		{path("link.db"), path("old.db"), ""},
		{path("link2.db"), path("old.db"), ""},
		{path("dangling.db"), path("missing.db"), ""},
		{"/dev/null", "", "output /dev/null: /dev/null is a character device, not a regular file; refusing to replace it"},
		{path("null.db"), "", "/dev/null is a character device, not a regular file"},
		{path("fifo"), "", "fifo is a named pipe, not a regular file"},
		{path("dir"), "", "dir is a directory, not a regular file"},
		{path("in.json"), "", "is the input " + path("in.json") + "; refusing to overwrite it"},
		{path("to-input.db"), "", "to-input.db is the input"},
		{path("loop1.db"), "", "more than 40 symbolic links"},
	}
	for _, tt := range tests {
		got, err := Target(tt.out, path("in.json"))
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Target(%s) = %q, %v; want %q", tt.out, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Target(%s) error %v, want %q", tt.out, err, tt.err)
		}
	}
	// An output that is, or links to, standard output connected to a pipe
	// (/dev/stdout → /proc/self/fd/N → "pipe:[…]", a link that names no
	// path) is refused as what it is.
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		r, w, err := os.Pipe()
		must(err)
		defer r.Close()
		defer w.Close()
		fd := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
		must(os.Symlink(fd, path("to-pipe.db")))
		for _, out := range []string{fd, path("to-pipe.db")} {
			_, err := Target(out)
			if want := fd + " is a pipe (pipe:["; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Target(%s) error %v, want %q", out, err, want)
			}
		}
	}
	if info, err := os.Lstat(path("fifo")); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO changed: %v %v", info, err)
	}
}
