package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"tracestreamer/rows"
)

// TestCommitUnlessStopped: a commit whose stop is closed gives up like
// Abort: ErrStopped, the destination as it was, no file of the run left.
func TestCommitUnlessStopped(t *testing.T) {
	db, a, ts, dest := createOverPrecious(t)
	dir := filepath.Dir(dest)
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	for i := range 5000 {
		nodes.Ints(1, int64(i), 0, 0, 1, 0, 0, 0, 0)
	}
	nodes.Flush()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	if err := db.CommitUnless(stop); !errors.Is(err, ErrStopped) {
		t.Fatalf("CommitUnless: %v, want ErrStopped", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "precious" {
		t.Errorf("the destination changed: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// TestAsyncAbort: Abort stops the writer with ErrAborted (the batches still
// queued are dropped); the database aborted then leaves nothing.
func TestAsyncAbort(t *testing.T) {
	db, a, ts, dest := createDB(t)
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	const n = 200_000
	for i := range n {
		nodes.Ints(1, int64(i), 0, 0, 1, 0, 0, 0, 0)
	}
	nodes.Flush()
	a.Abort()
	if err := a.Err(); !errors.Is(err, ErrAborted) {
		t.Errorf("Err after Abort: %v, want ErrAborted", err)
	}
	t.Logf("%d of %d rows written before Abort", db.Count(ts.JSHeapNodes), n)
	db.Abort()
	if entries, _ := os.ReadDir(filepath.Dir(dest)); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}
