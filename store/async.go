package store

import (
	"sync"

	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Async is a rows.Sink that inserts batches into a DB on its own goroutine, so
// that parsing and inserting overlap. Batches queue in a bounded channel; used
// batches are recycled. Close waits for the queue to drain.
type Async struct {
	db   *DB
	ops  chan op
	free chan *rows.Batch
	done chan struct{}

	mu  sync.Mutex
	err error

	nextMark rows.Mark
}

type opKind uint8

const (
	opInsert opKind = iota
	opMark
	opRollback
)

type op struct {
	kind   opKind
	batch  *rows.Batch
	mark   rows.Mark
	tables []*schema.Table
}

// NewAsync starts writing to db; queue is the number of batches that may wait.
func NewAsync(db *DB, queue int) *Async {
	a := &Async{db: db, ops: make(chan op, queue), free: make(chan *rows.Batch, queue+8),
		done: make(chan struct{})}
	go a.run()
	return a
}

func (a *Async) run() {
	defer close(a.done)
	marks := map[rows.Mark]rows.Mark{} // Async mark → DB mark
	for o := range a.ops {
		if a.Err() != nil {
			continue // drain so that producers never block
		}
		var err error
		switch o.kind {
		case opInsert:
			err = a.db.Insert(o.batch)
			select {
			case a.free <- o.batch:
			default:
			}
		case opMark:
			marks[o.mark] = a.db.Mark(o.tables)
		case opRollback:
			err = a.db.Rollback(marks[o.mark])
		}
		if err != nil {
			a.setErr(err)
		}
	}
}

func (a *Async) setErr(err error) {
	a.mu.Lock()
	if a.err == nil {
		a.err = err
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

// Put implements rows.Sink.
func (a *Async) Put(b *rows.Batch) { a.ops <- op{kind: opInsert, batch: b} }

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

// Close waits until every queued batch is written and returns the first error.
func (a *Async) Close() error {
	close(a.ops)
	<-a.done
	return a.Err()
}
