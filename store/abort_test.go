package store

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"tracestreamer/internal/sqlitefile"
	"tracestreamer/rows"
	"tracestreamer/schema"
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
	// lane asks for one.
	path := filepath.Join(t.TempDir(), "pages")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.pages = sqlitefile.NewPages(ro, db.pageSize, 16)
	rng := rand.New(rand.NewPCG(1, 2))
	tables := []*schema.Table{ts.JSHeapNodes, ts.ProcessMeasure}
	apps := []*rows.Appender{rows.NewAppender(a, tables[0]), rows.NewAppender(a, tables[1])}
	for range 100000 {
		for i, app := range apps {
			randomRow(rng, app, tables[i])
			app.End()
		}
	}
	for _, app := range apps {
		app.Flush()
	}
	err = a.Close()
	if err == nil || !strings.Contains(err.Error(), ": page file: write "+path) ||
		!strings.HasPrefix(err.Error(), "insert into js_heap_nodes: ") && !strings.HasPrefix(err.Error(), "insert into process_measure: ") {
		t.Fatalf("Close: %v, want the failed write into %s of a table's pages", err, path)
	}
	select {
	case <-a.Failed():
	default:
		t.Error("Failed is not closed")
	}
	db.Abort()
	assertUntouched(t, dest)
}
