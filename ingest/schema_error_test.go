package ingest

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracestreamer/internal/testutil"
)

// TestSchemaErrorEndsRun: when the writer cannot make the schema (a
// statement SQLite refuses), the run ends at once with that error, naming
// the output and the statement, though its input is still being read: a
// standard input that delivers half a trace and then waits. It leaves no
// file behind.
func TestSchemaErrorEndsRun(t *testing.T) {
	trace := testutil.Fixture(t, "node/trace.json")
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	go w.Write(trace[:len(trace)/2]) // then silent until the test ends
	dir := t.TempDir()
	out := filepath.Join(dir, "out.db")
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), []string{"-"}, Options{Output: out, Stdin: r, Warnings: io.Discard,
			ddl: []string{"CREATE TABLE t(a INT)", "CREATE TABLE broken("}})
		done <- err
	}()
	select {
	case err := <-done:
		want := out + `: making the schema: sqlite: exec "CREATE TABLE broken(": SQL logic error: incomplete input`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Run: %v, want %q", err, want)
		}
	case <-time.After(time.Minute):
		w.CloseWithError(io.ErrUnexpectedEOF)
		t.Fatalf("the run was still reading its input a minute after the schema failed; then: %v", <-done)
	}
	checkLeft(t, dir, 0)
}

// TestSchemaErrorWhole: a small input read whole before the schema's error
// comes back (through the writer's Close, not the watcher) gets the same
// error, naming the output, every time.
func TestSchemaErrorWhole(t *testing.T) {
	in := filepath.Join(testutil.Root(), "testdata", "node", "trace.json")
	for i := range 5 {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.db")
		_, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: io.Discard,
			ddl: []string{"CREATE TABLE broken("}})
		want := "writing " + out + `: making the schema: sqlite: exec "CREATE TABLE broken(": SQL logic error: incomplete input`
		if err == nil || err.Error() != want {
			t.Fatalf("run %d: %v, want %q", i, err, want)
		}
		checkLeft(t, dir, 0)
	}
}
