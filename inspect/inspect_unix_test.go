//go:build unix

package inspect_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"tracestreamer/inspect"
	"tracestreamer/internal/testutil"
)

// TestReadTraceFromPipe: info on a named pipe (a trace piped in) is not taken
// for a database, which would open the pipe once more and take its first
// bytes: the trace is read and described, and a pipe with no writer gives
// up when the context is cancelled.
func TestReadTraceFromPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	trace := testutil.Fixture(t, "node/trace.json")
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(trace)
			f.Close()
		}
	}()
	if inspect.IsDatabase(fifo) {
		t.Fatal("a named pipe taken for a database")
	}
	tr, err := inspect.ReadTrace(context.Background(), fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "traceevent" || tr.Content != int64(len(trace)) || len(tr.Holds) == 0 || tr.Holds[0].What != "events" {
		t.Errorf("%s, %d bytes, %+v", tr.Format, tr.Content, tr.Holds)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := inspect.ReadTrace(ctx, fifo, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no writer: %v, want %v", err, context.DeadlineExceeded)
	}
}
