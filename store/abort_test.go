package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"tracestreamer/internal/sqlitefile"
	"tracestreamer/rows"
)

// TestCommitUnlessStopped: a commit whose stop is closed gives up like
// Abort: ErrStopped, the destination as it was, no file of the run left.
func TestCommitUnlessStopped(t *testing.T) {
	db, a, ts, dest := createOverPrecious(t)
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
	assertUntouched(t, dest)
}

// TestAsyncAbort: Abort stops the writer with ErrAborted and drops the
// batches still queued: none of their rows is written, though the writer
// takes them after Abort began. It returns once the writer's goroutine has
// ended; the database aborted then leaves the destination as it was and no
// file of the run.
func TestAsyncAbort(t *testing.T) {
	db, unused, ts, dest := createOverPrecious(t)
	if err := unused.Close(); err != nil {
		t.Fatal(err)
	}
	// The writer is held before its first batch until Abort has begun.
	hold := make(chan struct{})
	a := newAsync(db, 8, func() error { <-hold; return nil })
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	const batches = 3
	for i := range batches * 100 {
		nodes.Ints(1, int64(i), 0, 0, 1, 0, 0, 0, 0)
		if i%100 == 99 {
			nodes.Flush() // one queued batch
		}
	}
	aborted := make(chan struct{})
	go func() {
		a.Abort()
		close(aborted)
	}()
	// Until Abort has set its error (a deadline only so that an Abort that
	// waits for the queue first fails instead of hanging).
	for deadline := time.Now().Add(time.Minute); !errors.Is(a.Err(), ErrAborted); runtime.Gosched() {
		if time.Now().After(deadline) {
			close(hold)
			t.Fatal("Abort did not set ErrAborted while the writer was held")
		}
	}
	close(hold)
	<-aborted
	select {
	case <-a.done:
	default:
		t.Error("Abort returned before the writer's goroutine ended")
	}
	if err := a.Err(); !errors.Is(err, ErrAborted) {
		t.Errorf("Err after Abort: %v, want ErrAborted", err)
	}
	if n := db.Count(ts.JSHeapNodes); n != 0 {
		t.Errorf("%d rows of the %d queued batches written after Abort, want 0", n, batches)
	}
	db.Abort()
	assertUntouched(t, dest)
}

// TestLaneWriteFails: lanes that cannot write their trees' pages make the
// Async fail with the table and the page file named. The lanes and the
// Async's goroutine still take every batch, so that the producer, which goes
// on putting rows, never waits for ever; Close returns the error, and the
// database aborted leaves the destination as it was.
func TestLaneWriteFails(t *testing.T) {
	db, a, ts, dest := createOverPrecious(t)
	// A page file the trees cannot write to, in place before the first
	// batch: every tree is packed on a lane.
	path := filepath.Join(t.TempDir(), "pages")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.pages = sqlitefile.NewPages(ro, db.pageSize, 16)
	nodes, edges := rows.NewAppender(a, ts.JSHeapNodes), rows.NewAppender(a, ts.JSHeapEdges)
	closed := make(chan error, 1)
	go func() {
		for i := range int64(50000) {
			nodes.Ints(1, i, 3, 7, 2*i+1, 40, 4, 0, 0)
			edges.Ints(1, i, 2, 11, 7*i, 2*i+1, 2*i+3)
		}
		nodes.Flush()
		edges.Flush()
		closed <- a.Close()
	}()
	select {
	case err = <-closed:
	case <-time.After(time.Minute):
		t.Fatal("the producer or Close still waits after a minute")
	}
	if err == nil || !strings.Contains(err.Error(), ": page file: write "+path) ||
		!strings.HasPrefix(err.Error(), "insert into js_heap_nodes: ") && !strings.HasPrefix(err.Error(), "insert into js_heap_edges: ") {
		t.Fatalf("Close: %v, want the failed write into %s of a table's pages", err, path)
	}
	// The first failure may come before the other table's first batch,
	// which is then dropped.
	if a.lanesStarted == 0 {
		t.Error("no lane started")
	}
	select {
	case <-a.Failed():
	default:
		t.Error("Failed is not closed")
	}
	db.Abort()
	assertUntouched(t, dest)
}

// TestLanePanics: a batch that makes its lane panic (here one row without
// its values) fails the Async at once with the table and the panic named,
// and the producer, still putting rows of that table and another, does not
// wait for ever. (Close would raise the panic again on the Async's
// goroutine, as a panic there always did: the test does not close it.)
func TestLanePanics(t *testing.T) {
	_, a, ts, _ := createDB(t)
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	for i := range int64(20000) { // the page file is made: lanes from here on
		nodes.Ints(1, i, 3, 7, 2*i+1, 40, 4, 0, 0)
	}
	nodes.Flush()
	// Not from NewBatch: a recycled batch has room for the values.
	bad := &rows.Batch{}
	bad.Reset(ts.JSHeapNodes)
	bad.N = 1
	a.Put(bad)
	done := make(chan struct{})
	go func() {
		defer close(done)
		edges := rows.NewAppender(a, ts.JSHeapEdges)
		for i := range int64(50000) {
			nodes.Ints(1, i, 3, 7, 2*i+1, 40, 4, 0, 0)
			edges.Ints(1, i, 2, 11, 7*i, 2*i+1, 2*i+3)
		}
		nodes.Flush()
		edges.Flush()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the producer still waits after a minute")
	}
	select {
	case <-a.Failed():
	case <-time.After(time.Minute):
		t.Fatal("Failed is not closed after a minute")
	}
	if err := a.Err(); err == nil || !strings.HasPrefix(err.Error(), "insert into js_heap_nodes: runtime error: slice bounds out of range") {
		t.Errorf("Err: %v, want the lane's panic", err)
	}
}
