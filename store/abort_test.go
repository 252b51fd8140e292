package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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

// forLaneKinds runs test with lanes that encode and pack on one goroutine
// and with 1 and 2 encoders beside a packer (Async.laneEncoders): the test
// sets it on its Async before the first batch.
func forLaneKinds(t *testing.T, test func(t *testing.T, encoders int)) {
	for _, encoders := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("%d encoders", encoders), func(t *testing.T) { test(t, encoders) })
	}
}

// TestLaneWriteFails: lanes that cannot write their trees' pages make the
// Async fail with the table and the page file named. The lanes and the
// Async's goroutine still take every batch, so that the producer, which goes
// on putting rows, never waits for ever; Close returns the error, and the
// database aborted leaves the destination as it was.
func TestLaneWriteFails(t *testing.T) {
	forLaneKinds(t, func(t *testing.T, encoders int) {
		db, a, ts, dest := createOverPrecious(t)
		a.laneEncoders = encoders
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
	})
}

// TestLanePanics: a batch that makes its lane panic (here one row without
// its values) fails the Async at once with the table and the panic named,
// and the producer, still putting rows of that table and another, does not
// wait for ever. (Close would raise the panic again on the Async's
// goroutine, as a panic there always did: the test does not close it.)
func TestLanePanics(t *testing.T) {
	forLaneKinds(t, func(t *testing.T, encoders int) {
		_, a, ts, _ := createDB(t)
		a.laneEncoders = encoders
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
	})
}

// TestLanesWithProducers: producers on goroutines of their own, a table
// each, put their rows through an Async whose lanes recycle the batches to
// all of them: every table's count (what marks and rollbacks use) and rows
// come out as put. Under -race this is where a batch touched after it was
// handed to a lane shows (a producer resets it once recycled): it did
// for 8a8c48c's Async.insert, which read the batch's row count after the
// send.
func TestLanesWithProducers(t *testing.T) {
	forLaneKinds(t, func(t *testing.T, encoders int) {
		db, a, ts, dest := createDB(t)
		a.laneEncoders = encoders
		const perTable = 30000
		tables := []*schema.Table{ts.JSHeapLocation, ts.JSCPUProfilerSample, ts.JSHeapNodes, ts.JSHeapEdges}
		// put hands over a batch every 500 rows and waits a little after each:
		// the Async's goroutine then often waits for the next operation while
		// a lane packs and recycles the batch it was just handed.
		put := func(tb *schema.Table, from, n int) {
			app := rows.NewAppender(a, tb)
			vals := make([]int64, len(tb.Columns))
			for i := from; i < from+n; i++ {
				for c := range vals {
					vals[c] = int64(i*len(vals) + c)
				}
				app.Ints(vals...)
				if i%500 == 499 {
					app.Flush()
					time.Sleep(200 * time.Microsecond)
				}
			}
			app.Flush()
		}
		put(tables[0], 0, 10000) // the page file is made: lanes from here on
		var wg sync.WaitGroup
		for k, tb := range tables {
			wg.Add(1)
			go func() {
				defer wg.Done()
				from := 0
				if k == 0 {
					from = 10000
				}
				put(tb, from, perTable-from)
			}()
		}
		wg.Wait()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if a.lanesStarted < len(tables) {
			t.Errorf("%d lanes started, want %d", a.lanesStarted, len(tables))
		}
		for _, tb := range tables {
			if n := db.Count(tb); n != perTable {
				t.Errorf("%s: counted %d rows, want %d", tb.Name, n, perTable)
			}
		}
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		r := openChecked(t, dest)
		for _, tb := range tables {
			var n, sum int64
			c := schema.Quote(tb.Columns[1].Name)
			if err := r.QueryRow("SELECT count(*), sum("+c+") FROM "+schema.Quote(tb.Name)).Scan(&n, &sum); err != nil {
				t.Fatal(err)
			}
			// Column 1 holds i*cols+1 for i in 0..perTable-1.
			cols := int64(len(tb.Columns))
			if want := cols*perTable*(perTable-1)/2 + perTable; n != perTable || sum != want {
				t.Errorf("%s: %d rows, sum of %s %d; want %d, %d", tb.Name, n, c, sum, perTable, want)
			}
		}
	})
}

func TestLaneEncoders(t *testing.T) {
	for procs, want := range map[int]int{1: 0, 2: 0, 3: 0, 4: 1, 7: 1, 8: 2, 16: 2, 64: 2} {
		if got := laneEncoders(procs); got != want {
			t.Errorf("laneEncoders(%d) = %d, want %d", procs, got, want)
		}
	}
}
