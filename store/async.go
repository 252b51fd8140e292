package store

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"tracestreamer/internal/sqlitefile"
	"tracestreamer/internal/task"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Async is a rows.Sink that inserts batches into a DB on its own goroutine, so
// that parsing and inserting overlap. Batches queue in a bounded channel, and
// the text they hold is bounded too (MaxQueuedText: a batch may carry rows of
// tens of MB); used batches are recycled. Close waits for the queue to drain.
//
// Each table built as a b-tree has a lane of its own: a goroutine that
// encodes its rows and packs them into the tree, so that a heap snapshot's
// edges, nodes and node stats are packed side by side (lane). The Async's
// goroutine keeps the DB's books and does everything else in the order
// the operations came: SQLite's inserts, marks, rollbacks (after every
// lane has finished), rows out of rowid order (after their table's lane
// has).
type Async struct {
	db   *DB
	ops  chan op
	free chan *rows.Batch
	done chan struct{}
	// lanes are the tables' lanes running, started by their first batch;
	// lanesStarted counts the lanes started so far (tests).
	lanes        map[*schema.Table]*lane
	lanesStarted int
	// laneEncoders is how many goroutines encode each lane's rows beside
	// the one that packs them (packLane); 0: the lane's goroutine does both.
	laneEncoders int

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
		done: make(chan struct{}), failed: make(chan struct{}), laneEncoders: laneEncoders(runtime.GOMAXPROCS(0))}
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
	defer a.stopLanes()
	marks := map[rows.Mark]rows.Mark{} // Async mark → DB mark
	for o := range a.ops {
		var err error
		handed := false
		switch {
		case a.Err() != nil:
			// Drain so that producers never block (and, after Abort, write
			// nothing more).
		case o.kind == opInsert:
			handed, err = a.insert(o)
			if len(a.ops) == 0 {
				a.db.idle()
			}
		case o.kind == opMark:
			marks[o.mark] = a.db.Mark(o.tables)
		case o.kind == opRollback:
			a.stopLanes()
			err = a.db.Rollback(marks[o.mark])
		}
		if err != nil {
			a.setErr(err)
		}
		if o.kind == opInsert && !handed {
			a.recycle(o.batch, o.text)
		}
	}
}

// insert writes the rows of o's batch, or hands it to its table's lane
// (handed) where the DB says its rows can be appended to their tree apart
// (DB.appendable), and books them as DB.Insert would.
func (a *Async) insert(o op) (handed bool, err error) {
	d, b := a.db, o.batch
	t := b.Table
	tr, maxRow, ok := d.appendable(b)
	if !ok {
		// The tree (rows out of rowid order) is the DB's again.
		a.stopLane(t)
		return false, d.Insert(b)
	}
	l := a.lanes[t]
	if l == nil {
		l = a.startLane(t, tr)
		if a.lanes == nil {
			a.lanes = map[*schema.Table]*lane{}
		}
		a.lanes[t] = l
		a.lanesStarted++
	}
	// Booked before it is handed over: the lane may recycle the batch, and
	// a producer reset it, before the send returns.
	j := laneJob{batch: b, text: o.text, maxRow: d.maxRow[t]}
	d.book(t, b.N, maxRow)
	l.jobs <- j
	return true, nil
}

// lane packs one table's rows into its tree on a goroutine of its own
// (appendRows), in the order the Async's goroutine hands them over. While it
// runs, the tree is the lane's alone; the trees share only their page file,
// which is safe for that (sqlitefile.Pages).
type lane struct {
	jobs chan laneJob
	run  *task.Task
}

// laneJob is a batch for a lane: its rows follow rowid maxRow; text is
// what it counts against MaxQueuedText.
type laneJob struct {
	batch  *rows.Batch
	text   int64
	maxRow int64
}

// laneQueue is how many batches may wait for a lane: with the Async's
// queue, what bounds the batches (and their text, MaxQueuedText) in flight.
const laneQueue = 4

// startLane starts the lane of t's tree tr. After an error (the Async's, or
// the lane's own) it writes nothing more, but still takes its batches, so
// that the Async's goroutine never waits for it in vain. A panic fails the
// Async at once (producers stop) and is raised again by stopLane's Wait,
// once the lane has taken every batch handed to it.
//
// With laneEncoders set, the lane's rows are encoded and packed on
// goroutines of their own (packLane).
func (a *Async) startLane(t *schema.Table, tr *sqlitefile.Tree) *lane {
	l := &lane{jobs: make(chan laneJob, laneQueue)}
	encoders := a.laneEncoders
	l.run = task.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				a.setErr(fmt.Errorf("insert into %s: %v", t.Name, r))
				for j := range l.jobs {
					a.recycle(j.batch, j.text)
				}
				panic(r)
			}
		}()
		if encoders > 0 {
			a.packLane(t, tr, l.jobs, encoders)
			return
		}
		var rec sqlitefile.Record
		for j := range l.jobs {
			if a.Err() == nil {
				if _, err := appendRows(tr, &rec, j.batch, j.maxRow, nil); err != nil {
					a.setErr(err)
				}
			}
			a.recycle(j.batch, j.text)
		}
	})
	return l
}

// laneEncoders returns how many goroutines encode each lane's rows with
// procs threads (GOMAXPROCS), beside one that packs them: none below 4
// threads (the lane's own goroutine does both), one from 4, two from 8.
// On the lent 16-core machine js_heap_edges' lane, encoding and packing
// 16.8 M rows in 1.1 s on one goroutine, was what the snapshot's row
// writer, and the analysis after it, waited for (9d7876e); with one encoder
// beside the packer the encoder was (c51d645). On 2 cores the split only
// adds hand-overs (GOMAXPROCS=8 there: CPU 13.1-13.9 s against 11.0-12.4).
func laneEncoders(procs int) int {
	switch {
	case procs >= 8:
		return 2
	case procs >= 4:
		return 1
	}
	return 0
}

// encoded is a lane job's rows encoded as records, for packLane's packer.
type encoded struct {
	job   laneJob
	ids   []int64
	recs  []byte
	ends  []int         // end of each record in recs
	ready chan struct{} // an encoder is done with it (capacity 1)
}

// encode encodes the rows of e.job's batch as appendRows adds them.
func (e *encoded) encode(rec *sqlitefile.Record) {
	e.ids, e.recs, e.ends = e.ids[:0], e.recs[:0], e.ends[:0]
	b, id := e.job.batch, e.job.maxRow
	nulls, reals, tnulls := b.Nulls, b.Reals, b.TextNulls
	for k := range b.N {
		id = rowID(b, k, id)
		e.recs = append(e.recs, encodeRow(rec, b, k, &nulls, &reals, &tnulls)...)
		e.ids, e.ends = append(e.ids, id), append(e.ends, len(e.recs))
	}
}

// rec returns record i.
func (e *encoded) rec(i int) []byte {
	start := 0
	if i > 0 {
		start = e.ends[i-1]
	}
	return e.recs[start:e.ends[i]]
}

// caught runs f and returns its panic, if it had one.
func caught(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// packLane is a lane's loop with laneEncoders: it hands each batch to
// one of encoders goroutines, which encode its rows into records, and, in
// the order the batches came, to a goroutine that adds the records to the
// tree and then recycles the batch, so that the batches in flight are
// bounded as without them (the records of at most encoders+2 batches are
// held besides). The packer takes the lane's errors as appendRows would.
// A goroutine that panics fails the Async and goes on taking its buffers
// without using them, so that none waits in vain; its panic is raised
// again once all have ended.
func (a *Async) packLane(t *schema.Table, tr *sqlitefile.Tree, jobs <-chan laneJob, encoders int) {
	buffers := encoders + 2 // one being packed, one handed over, one per encoder
	free, toEncode, full := make(chan *encoded, buffers), make(chan *encoded, buffers), make(chan *encoded, buffers)
	for range buffers {
		free <- &encoded{ready: make(chan struct{}, 1)}
	}
	failed := func(p any) {
		if p != nil {
			a.setErr(fmt.Errorf("insert into %s: %v", t.Name, p))
		}
	}
	workers := make([]*task.Task, 0, encoders+1)
	for range encoders {
		workers = append(workers, task.Go(func() {
			var rec sqlitefile.Record
			var p any
			for e := range toEncode {
				if p == nil && a.Err() == nil {
					p = caught(func() { e.encode(&rec) })
					failed(p)
				}
				e.ready <- struct{}{}
			}
			if p != nil {
				panic(p)
			}
		}))
	}
	workers = append(workers, task.Go(func() {
		var p any
		for e := range full {
			<-e.ready
			if p == nil && a.Err() == nil {
				p = caught(func() {
					for i, id := range e.ids {
						if err := tr.Add(id, e.rec(i)); err != nil {
							a.setErr(fmt.Errorf("insert into %s: %w", t.Name, err))
							return
						}
					}
				})
				failed(p)
			}
			a.recycle(e.job.batch, e.job.text)
			free <- e
		}
		if p != nil {
			panic(p)
		}
	}))
	defer func() {
		close(toEncode)
		close(full)
		for _, w := range workers {
			w.Join()
		}
		for _, w := range workers {
			w.Wait()
		}
	}()
	for j := range jobs {
		if a.Err() != nil {
			a.recycle(j.batch, j.text)
			continue
		}
		e := <-free
		e.job = j
		toEncode <- e
		full <- e
	}
}

// stopLane waits until t's lane, if it has one, has packed its batches,
// and ends it.
func (a *Async) stopLane(t *schema.Table) {
	if l := a.lanes[t]; l != nil {
		close(l.jobs)
		l.run.Wait()
		delete(a.lanes, t)
	}
}

// stopLanes ends every lane, as stopLane.
func (a *Async) stopLanes() {
	for t := range a.lanes {
		a.stopLane(t)
	}
}

// recycle returns a batch written (or dropped) to the queue's budget and to
// the batches NewBatch hands out.
func (a *Async) recycle(b *rows.Batch, text int64) {
	a.release(text)
	clear(b.Texts) // let go of the strings of a recycled batch
	select {
	case a.free <- b:
	default:
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
