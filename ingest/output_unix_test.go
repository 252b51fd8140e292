//go:build unix

package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"tracestreamer/internal/testutil"
)

// TestOutputNotARegularFile: an output that is, or links to, a named pipe or a
// directory is refused before anything is read, and left as it was; an output
// that links to a regular file replaces that file and keeps the link.
func TestOutputNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "trace.json", testutil.Fixture(t, "node/trace.json"))
	fifo := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	must(t, os.Symlink("fifo", filepath.Join(dir, "to-fifo.db")))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	tests := []struct{ out, want string }{
		{fifo, "fifo is a named pipe, not a regular file; refusing to replace it"},
		{filepath.Join(dir, "to-fifo.db"), "fifo is a named pipe, not a regular file"},
		{filepath.Join(dir, "sub"), "sub is a directory, not a regular file"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), []string{in}, Options{Output: tt.out, Warnings: io.Discard})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("output %s: error %v, want %q", tt.out, err, tt.want)
		}
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO changed: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "sub")); len(entries) != 0 {
		t.Errorf("files written into the directory: %v", entries)
	}

	old := writeFile(t, dir, "old.db", []byte("old"))
	link := filepath.Join(dir, "link.db")
	must(t, os.Symlink("old.db", link))
	if _, err := Run(context.Background(), []string{in}, Options{Output: link, Warnings: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if dest, err := os.Readlink(link); err != nil || dest != "old.db" {
		t.Errorf("link now %q, %v", dest, err)
	}
	if got := testutil.Query(t, testutil.OpenDB(t, old), "SELECT count(*) FROM callstack"); got[0] != "59" {
		t.Errorf("the linked file holds %v callstack rows, want 59", got)
	}
}

// TestStaleTemporaryFiles: a run removes the temporary database a killed run
// left beside the output (its process is gone) and says so; a file of a live
// process and files not made by tracestreamer stay.
func TestStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "trace.json", testutil.Fixture(t, "node/trace.json"))
	cmd := exec.Command("true")
	must(t, cmd.Run())
	stale := filepath.Join(dir, fmt.Sprintf(".out.db.tracestreamer-%d-00000001.tmp", cmd.ProcessState.Pid()))
	live := filepath.Join(dir, fmt.Sprintf(".out.db.tracestreamer-%d-00000001.tmp", os.Getppid()))
	other := filepath.Join(dir, ".out.db.tmp-1")
	for _, p := range []string{stale, live, other} {
		must(t, os.WriteFile(p, []byte("partial"), 0o644))
	}
	var warn strings.Builder
	if _, err := Run(context.Background(), []string{in}, Options{Output: filepath.Join(dir, "out.db"), Warnings: &warn}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) || !strings.Contains(warn.String(), "removed "+stale+", left behind by a run that was killed") {
		t.Errorf("stale file: %v; warnings %q", err, warn.String())
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// TestPipesAndStdin: a named pipe, and "-" with standard input, are read in
// one pass (recognition and conversion share the one stream), and their bytes
// are hashed like a file's.
func TestPipesAndStdin(t *testing.T) {
	dir := t.TempDir()
	trace := testutil.Fixture(t, "node/trace.json")
	prof := testutil.Fixture(t, "node/profile.cpuprofile")
	fifo := filepath.Join(dir, "trace.fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(trace)
			f.Close()
		}
	}()
	out := filepath.Join(dir, "out.db")
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), []string{fifo, "-"}, Options{Output: out, Warnings: io.Discard,
			Stdin: bytes.NewReader(prof)})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("reading a named pipe did not finish")
	}
	db := testutil.OpenDB(t, out)
	want := []string{
		fmt.Sprintf("0|%s|traceevent|%d|%x", fifo, len(trace), sha256.Sum256(trace)),
		fmt.Sprintf("1|-|cpuprofile|%d|%x", len(prof), sha256.Sum256(prof)),
	}
	if got := testutil.Query(t, db, "SELECT id, path, format, bytes, sha256 FROM source"); !reflect.DeepEqual(got, want) {
		t.Errorf("source %v, want %v", got, want)
	}
	if got := testutil.Query(t, db, "SELECT (SELECT count(*) FROM callstack), (SELECT count(*) FROM js_cpu_profiler_sample)"); got[0] != "59|333" {
		t.Errorf("rows %v", got)
	}
}

// stalledInputs are inputs that stop delivering: a named pipe that has no
// writer, a pipe whose writer stalls after part of data, a standard input
// that never delivers.
func stalledInputs(data []byte) []struct {
	name  string
	setup func(t *testing.T, dir string) (input string, stdin io.Reader)
} {
	return []struct {
		name  string
		setup func(t *testing.T, dir string) (input string, stdin io.Reader)
	}{
		{"fifo without a writer", func(t *testing.T, dir string) (string, io.Reader) {
			fifo := filepath.Join(dir, "in.fifo")
			must(t, syscall.Mkfifo(fifo, 0o644))
			return fifo, nil
		}},
		{"fifo with a stalled writer", func(t *testing.T, dir string) (string, io.Reader) {
			fifo := filepath.Join(dir, "in.fifo")
			must(t, syscall.Mkfifo(fifo, 0o644))
			go func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Write(data[:len(data)/2])
					t.Cleanup(func() { f.Close() }) // open, silent, until the test ends
				}
			}()
			return fifo, nil
		}},
		{"stdin that never delivers", func(t *testing.T, dir string) (string, io.Reader) {
			r, w := io.Pipe()
			t.Cleanup(func() { w.Close() })
			return "-", r
		}},
	}
}

// TestCancelWhilePipeWaits: a run reading a named pipe that has no writer, a
// pipe whose writer stalls after part of its input, or a standard input that
// never delivers, stops with the context's error when the context is
// cancelled, and leaves no file behind.
func TestCancelWhilePipeWaits(t *testing.T) {
	tests := stalledInputs(testutil.Fixture(t, "node/trace.json"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in, stdin := tt.setup(t, dir)
			outDir := filepath.Join(dir, "out")
			must(t, os.Mkdir(outDir, 0o755))
			testutil.CancelWhileWaiting(t, "the run", 200*time.Millisecond, func(ctx context.Context) error {
				_, err := Run(ctx, []string{in}, Options{Output: filepath.Join(outDir, "out.db"), Warnings: io.Discard,
					Stdin: stdin})
				return err
			})
			checkLeft(t, outDir, 0)
		})
	}
}

// TestSniffCancelWhilePipeWaits: info's reading of an input (Sniff, then
// Describe) that stops delivering stops with the context's error when the
// context is cancelled: opening a pipe without a writer, recognising, and
// describing (the stalled writer's 2.2 MB are more than Sniff reads).
func TestSniffCancelWhilePipeWaits(t *testing.T) {
	for _, tt := range stalledInputs(testutil.Fixture(t, "chromium/trace.json.gz")) {
		t.Run(tt.name, func(t *testing.T) {
			in, stdin := tt.setup(t, t.TempDir())
			testutil.CancelWhileWaiting(t, "Sniff or Describe", 200*time.Millisecond, func(ctx context.Context) error {
				s, err := Sniff(ctx, in, stdin, nil)
				if err == nil {
					_, err = s.Describe(ctx, func(string, int64, string) {})
					s.Close()
				}
				return err
			})
		})
	}
}

// TestOutputPageSize: inputs that are uncompressed regular files under 64 MiB
// together get 16 KiB pages, others SQLite files of 64 KiB pages; the
// database of a small trace reads back whole at its page size.
func TestOutputPageSize(t *testing.T) {
	dir := t.TempDir()
	trace := testutil.Fixture(t, "node/trace.json")
	small := writeFile(t, dir, "trace.json", trace)
	packed := writeFile(t, dir, "trace.json.gz", trace) // gzip (writeFile)
	zipped := writeFile(t, dir, "trace.json.zip", trace)
	deflated := writeFile(t, dir, "trace.json.zz", trace)
	fifo := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	big := filepath.Join(dir, "big.json") // sparse
	must(t, os.WriteFile(big, []byte("{}"), 0o644))
	must(t, os.Truncate(big, 64<<20))
	half := filepath.Join(dir, "half.json")
	must(t, os.WriteFile(half, []byte("{}"), 0o644))
	must(t, os.Truncate(half, 32<<20))
	for _, tt := range []struct {
		inputs []string
		want   int
	}{
		{[]string{small}, 16384},
		{[]string{small, small}, 16384},
		{[]string{packed}, 0},
		{[]string{zipped}, 0},
		{[]string{deflated}, 0},
		{[]string{small, packed}, 0},
		{[]string{fifo}, 0},
		{[]string{"-"}, 0},
		{[]string{big}, 0},
		{[]string{half, small}, 16384},
		{[]string{half, half}, 0},
		{[]string{filepath.Join(dir, "missing.json")}, 0},
	} {
		if got := outputPageSize(tt.inputs, statInputs(tt.inputs)); got != tt.want {
			t.Errorf("outputPageSize(%v) = %d, want %d", tt.inputs, got, tt.want)
		}
	}

	for _, tt := range []struct {
		in   string
		want int64
	}{{small, 16384}, {packed, 65536}} {
		out, _ := convert(t, tt.in, Options{})
		db := testutil.OpenDB(t, out)
		var size, slices int64
		var check string
		if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil || size != tt.want {
			t.Errorf("%s: page_size %d (%v), want %d", filepath.Base(tt.in), size, err, tt.want)
		}
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("%s: integrity_check %q (%v)", filepath.Base(tt.in), check, err)
		}
		if err := db.QueryRow("SELECT count(*) FROM callstack").Scan(&slices); err != nil || slices == 0 {
			t.Errorf("%s: %d callstack rows (%v), want some", filepath.Base(tt.in), slices, err)
		}
	}
}
