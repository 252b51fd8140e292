package store

import (
	"errors"
	"runtime"
	"testing"
	"time"

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
