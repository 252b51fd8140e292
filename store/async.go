package store

import (
	"errors"
	"sync"

	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Async is a rows.Sink that inserts batches into a DB on its own goroutine, so
// that parsing and inserting overlap. Batches queue in a bounded channel, and
// the text they hold is bounded too (MaxQueuedText: a batch may carry rows of
// tens of MB); used batches are recycled. Close waits for the queue to drain.
type Async struct {
	db   *DB
	ops  chan op
	free chan *rows.Batch
	done chan struct{}

	mu     sync.Mutex
	err    error
	failed chan struct{} // closed when err is set
	queued int64         // bytes of text in queued batches
	room   *sync.Cond    // signalled when queued text was written

	nextMark rows.Mark
}

type opKind uint8

const (
	opInsert opKind = iota
	opMark
	opRollback
)

// MaxQueuedText bounds the bytes of text waiting in queued batches: Put
// waits while more is queued (a single larger batch still goes through).
const MaxQueuedText = 128 << 20

type op struct {
	kind   opKind
	batch  *rows.Batch
	text   int64 // bytes of text in batch
	mark   rows.Mark
	tables []*schema.Table
}

// NewAsync starts writing to db; queue is the number of batches that may wait.
func NewAsync(db *DB, queue int) *Async { return newAsync(db, queue, nil) }

// newAsync is NewAsync whose goroutine first calls first, if not nil: its
// error is the Async's, as a write's would be.
func newAsync(db *DB, queue int, first func() error) *Async {
	a := &Async{db: db, ops: make(chan op, queue), free: make(chan *rows.Batch, queue+8),
		done: make(chan struct{}), failed: make(chan struct{})}
	a.room = sync.NewCond(&a.mu)
	go a.run(first)
	return a
}

func (a *Async) run(first func() error) {
	defer close(a.done)
	if first != nil {
		if err := first(); err != nil {
			a.setErr(err)
		}
	}
	marks := map[rows.Mark]rows.Mark{} // Async mark → DB mark
	for o := range a.ops {
		var err error
		switch {
		case a.Err() != nil:
			// Drain so that producers never block (and, after Abort, write
			// nothing more).
		case o.kind == opInsert:
			err = a.db.Insert(o.batch)
			if len(a.ops) == 0 {
				a.db.idle()
			}
		case o.kind == opMark:
			marks[o.mark] = a.db.Mark(o.tables)
		case o.kind == opRollback:
			err = a.db.Rollback(marks[o.mark])
		}
		if err != nil {
			a.setErr(err)
		}
		if o.kind == opInsert {
			a.release(o.text)
			clear(o.batch.Texts) // let go of the strings of a recycled batch
			select {
			case a.free <- o.batch:
			default:
			}
		}
	}
}

// release returns the text of a written batch to the queue's budget.
func (a *Async) release(n int64) {
	a.mu.Lock()
	a.queued -= n
	a.room.Broadcast()
	a.mu.Unlock()
}

func (a *Async) setErr(err error) {
	a.mu.Lock()
	if a.err == nil {
		a.err = err
		close(a.failed)
	}
	a.mu.Unlock()
}

// NewBatch implements rows.Sink.
func (a *Async) NewBatch(t *schema.Table) *rows.Batch {
	select {
	case b := <-a.free:
		b.Reset(t)
		return b
	default:
		b := &rows.Batch{}
		b.Reset(t)
		return b
	}
}

// Put implements rows.Sink. It waits while the text of the batches queued
// before is over MaxQueuedText.
func (a *Async) Put(b *rows.Batch) {
	var n int64
	for _, s := range b.Texts {
		n += int64(len(s))
	}
	a.mu.Lock()
	for a.queued > 0 && a.queued+n > MaxQueuedText {
		a.room.Wait()
	}
	a.queued += n
	a.mu.Unlock()
	a.ops <- op{kind: opInsert, batch: b, text: n}
}

// Mark implements rows.Sink. It must not be called concurrently with Rollback.
func (a *Async) Mark(tables []*schema.Table) rows.Mark {
	a.mu.Lock()
	m := a.nextMark
	a.nextMark++
	a.mu.Unlock()
	a.ops <- op{kind: opMark, mark: m, tables: tables}
	return m
}

// Rollback implements rows.Sink.
func (a *Async) Rollback(m rows.Mark) { a.ops <- op{kind: opRollback, mark: m} }

// Err implements rows.Sink: the first error of the writer, if any.
func (a *Async) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Failed is closed once the writer has met an error (Err is set, ErrAborted
// included): the schema could not be made or a batch could not be written.
// The batches put after it are dropped, so a producer watching it stops
// reading input it can no longer write.
func (a *Async) Failed() <-chan struct{} { return a.failed }

// Close waits until every queued batch is written and returns the first error.
func (a *Async) Close() error {
	close(a.ops)
	<-a.done
	return a.Err()
}

// ErrAborted is the error of an Async after Abort.
var ErrAborted = errors.New("store: writing aborted")

// Abort is Close for a run that is given up (interrupted): the batches still
// queued are not written, since the rows would be thrown away with the file,
// and writing up to MaxQueuedText of them first made an interrupted run slow
// to exit. As after Close, no Put may follow; the database must still be
// aborted. It returns once the writer has stopped.
func (a *Async) Abort() {
	a.setErr(ErrAborted)
	close(a.ops)
	<-a.done
}
