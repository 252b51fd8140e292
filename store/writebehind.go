package store

import (
	"os"

	"tracestreamer/internal/task"
)

// writeBehind asks the system to start writing the page file's pages to disk
// while the writer has nothing to do (the heap analysis runs, the decoder
// parses), instead of leaving every page to the fsync at Commit. Its
// goroutine makes the requests; kick never waits (one request may wait
// behind the one under way, further kicks are skipped), only stop, before
// the file is closed, waits for them. It changes nothing the file holds:
// Commit still syncs it.
//
// 5.1 M-node snapshot, whose database is 905 MB: Commit took 0.26-0.30 s,
// most of it the fsync; with the pages written behind, 0.01-0.02 s.
type writeBehind struct {
	step  int64      // new bytes that make a new request worth it
	kicks chan int64 // the end of the range to write
	sent  int64      // the end of the last range asked for
	run   *task.Task
	// requests counts the requests made (read after stop).
	requests int
}

// writeBehindStep is how many bytes of new pages make a new request worth it.
const writeBehindStep = 64 << 20

// newWriteBehind starts the goroutine that makes the requests, where the
// system has them (nil elsewhere); step 0 is writeBehindStep.
func newWriteBehind(f *os.File, step int64) *writeBehind {
	if !canWriteBehind {
		return nil
	}
	if step <= 0 {
		step = writeBehindStep
	}
	w := &writeBehind{step: step, kicks: make(chan int64, 1)}
	w.run = task.Go(func() {
		start := int64(0)
		for end := range w.kicks {
			// A failure only means the pages wait for the fsync.
			_ = startWriteback(f, start, end-start)
			w.requests++
			start = end
		}
	})
	return w
}

// kick asks for the pages up to end to be written, if enough new ones
// have been since the last request and no request is waiting already.
func (w *writeBehind) kick(end int64) {
	if w == nil || end-w.sent < w.step {
		return
	}
	select {
	case w.kicks <- end:
		w.sent = end
	default:
	}
}

// stop waits for the requests asked for; the file may then be closed. It
// returns the number of requests made.
func (w *writeBehind) stop() int {
	if w == nil {
		return 0
	}
	close(w.kicks)
	w.run.Wait()
	return w.requests
}
