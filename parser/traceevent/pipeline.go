package traceevent

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"sync"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/extsort"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/parser/traceevent/tracker"
)

// The two passes over a file each run as three stages on three goroutines:
// in the first, one reads the elements, workers (decodeWorkers) decode them,
// and one counts them and feeds the sorter; in the second, one merges the
// sorted runs, workers decode the events and flatten the arguments that may
// merge, and one builds the rows.
// Batches of events go from stage to stage, and come back to be reused.

// batchBytes is about how many element bytes a batch holds, batchItems how
// many elements at most (an item is about 600 bytes next to short event
// records). Batches of 1 MiB and 4096 items kept 40 MB of items alive on
// the 29 MB real-mix trace for no gain in time.
const (
	batchBytes = 256 << 10
	batchItems = 1024
)

// item is one element or event record of a batch, and what it decodes to;
// its byte fields point into the batch's buffers.
type item struct {
	ev      event.Event
	key     extsort.Key // second pass: the sort key
	pos, n  int         // the element's (first pass) or record's bytes in buf
	ref     []byte      // second pass: the record, when it is not copied into buf
	rec, rn int         // first pass: the event's record in recs
	invalid bool
	text    byte // first pass: textPart or textEnd for systemTraceEvents text
}

// Kinds of item.text: a part of a streamed systemTraceEvents string, and its
// last part.
const (
	textPart = 1 + iota
	textEnd
)

type batch struct {
	items     []item
	buf       []byte
	recs      []byte        // first pass: the records of the decoded events
	args      []event.Arg   // second pass: the flattened arguments of the events
	err       error         // the producer's error, in its last batch
	done      chan struct{} // closed when the batch is decoded
	decodedTo int           // the item being decoded (decodeSafely)
	// decodingOff is the input offset of that item, kept apart because
	// the item's event is overwritten as it is decoded.
	decodingOff int64
}

func (b *batch) reset() {
	b.items, b.buf, b.recs, b.args, b.err = b.items[:0], b.buf[:0], b.recs[:0], b.args[:0], nil
}

// push copies raw into the batch, or with ref set, adds it as it is (raw
// stays unchanged as long as the batch holds it). It reports false, adding
// nothing, when the batch has no room left for raw.
func (b *batch) push(raw []byte, ref bool, seq, off int64, key extsort.Key) bool {
	room := len(b.buf)+len(raw) <= cap(b.buf) || ref
	if len(b.items) > 0 && (!room || len(b.items) >= batchItems) {
		return false
	}
	pos := len(b.buf)
	if ref {
		pos = 0
	} else {
		if cap(b.buf) < len(raw) {
			b.buf = make([]byte, 0, len(raw))
		}
		b.buf = append(b.buf, raw...)
	}
	n := len(b.items)
	if n < cap(b.items) {
		b.items = b.items[:n+1]
	} else {
		b.items = append(b.items, item{})
	}
	// Only the fields read before the item is decoded are set: decode
	// writes the whole event of an item that decodes, and nothing reads
	// more than Seq and Offset of one that does not (an item is some 600
	// bytes, and writing it whole was a tenth of the reading goroutines'
	// time).
	it := &b.items[n]
	it.ev.Seq, it.ev.Offset = seq, off
	it.key, it.pos, it.n, it.ref = key, pos, len(raw), nil
	if ref {
		it.ref = raw
	}
	it.rec, it.rn, it.invalid, it.text = 0, 0, false, 0
	return true
}

// record returns the record of the event of item i (first pass).
func (b *batch) record(i int) []byte {
	it := &b.items[i]
	return b.recs[it.rec : it.rec+it.rn]
}

// A stage says what the decoding workers do with a batch.
type stage int

const (
	// elements: decode the JSON elements and make their event records.
	elements stage = iota
	// records: decode the event records and flatten their arguments.
	records
)

// decodeSafely decodes the batch with decode; a panic in it (a bug) ends the
// batch at the item it was decoding, with an error naming its offset, so
// that the items before it are kept and the run goes on.
func (b *batch) decodeSafely(w *worker, st stage, decode func(*batch, *worker, stage)) {
	b.decodedTo, b.decodingOff = 0, -1
	defer func() {
		if r := recover(); r != nil {
			off := b.decodingOff
			b.items = b.items[:b.decodedTo]
			b.err = fmt.Errorf("%w at offset %d (please report it): %v", ErrInternal, off, r)
			*w = worker{texts: w.texts} // its decoder's state is unknown
		}
	}()
	decode(b, w, st)
}

// worker is what a decoding goroutine keeps from one batch to the next: its
// decoder, and the args texts the stage's workers have flattened (second
// pass).
type worker struct {
	d     event.Decoder
	texts *seenTexts // shared by the workers of the stage
}

// seenTexts is the args texts that the workers of a stage have flattened,
// by hash, at most maxSeen (about 16 bytes each): past it, texts not seen
// are left to the importer. seed is the importer's (argSets), so that the
// importer finds a text by the hash a worker computed (Event.SetArgsHash).
type seenTexts struct {
	mu   sync.Mutex
	seed maphash.Seed
	seen map[uint64]struct{}
}

const maxSeen = 1 << 16

func newSeenTexts(seed maphash.Seed) *seenTexts { return &seenTexts{seed: seed} }

// first reports whether the args text whose hash is h is seen for the
// first time, remembering it. A hash collision only leaves a text to the
// importer.
func (t *seenTexts) first(h uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen == nil {
		t.seen = make(map[uint64]struct{}, 1024)
	}
	if _, ok := t.seen[h]; ok || len(t.seen) >= maxSeen {
		return false
	}
	t.seen[h] = struct{}{}
	return true
}

// ErrInternal is wrapped by the error of a panic inside the import, a bug.
var ErrInternal = errors.New("internal error")

// decode decodes every element or record of the batch with w's decoder.
func (b *batch) decode(w *worker, st stage) {
	d := &w.d
	for i := range b.items {
		b.decodedTo = i
		it := &b.items[i]
		// Read before Into: decoding overwrites it.ev.
		seq, off := it.ev.Seq, it.ev.Offset
		b.decodingOff = off
		if it.text != 0 {
			continue
		}
		own := it.ref
		if own == nil {
			own = b.buf[it.pos : it.pos+it.n : it.pos+it.n]
		}
		// The event is decoded in its item, not copied there.
		d.Into(&it.ev)
		var ev *event.Event
		var err error
		if st == elements {
			ev, err = d.Decode(&tokenizer.Element{Seq: seq, Offset: off, Raw: own})
		} else {
			ev, err = d.DecodeRecord(own)
		}
		d.Into(nil)
		it.ev.Seq, it.ev.Offset = seq, off
		if err != nil {
			it.invalid = true
			continue
		}
		if st == elements {
			it.rec = len(b.recs)
			b.recs = event.AppendRecord(b.recs, ev)
			it.rn = len(b.recs) - it.rec
		} else if ev.Args != nil && (mayMerge(ev.Ph) || setByText(ev) && w.texts.first(w.argsHash(ev))) {
			// The arguments of a batch share one slice; the importer copies
			// what it keeps beyond the event. Those of other events are
			// flattened here the first time a worker sees their text: the
			// importer finds a text it has seen before by the text
			// (argSets.of), and flattens only what no worker did (an event
			// before the first one a worker flattened), on the one
			// goroutine that processes the events.
			n := len(b.args)
			list, probs, err := event.AppendArgs(b.args, ev.Args, d)
			if err != nil {
				b.args = list[:n]
				it.ev.SetFlatArgs(nil, probs)
			} else {
				b.args = list
				it.ev.SetFlatArgs(list[n:len(list):len(list)], probs)
			}
		}
	}
}

// argsHash returns the hash of ev's args text by which the importer finds
// its set (argSets.of), recording it in ev: the importer does not hash the
// text again.
func (w *worker) argsHash(ev *event.Event) uint64 {
	h := maphash.Bytes(w.texts.seed, ev.Args)
	ev.SetArgsHash(h)
	return h
}

// pipe hands batches from a producer goroutine to the consumer.
type pipe struct {
	full, free chan *batch
	stop       chan struct{}
}

// decodeWorkers returns how many goroutines decode batches: one per core
// the run may use (GOMAXPROCS, which --threads sets), at most
// maxDecodeWorkers, since reading and the trackers run on one goroutine each.
func decodeWorkers() int { return min(max(runtime.GOMAXPROCS(0), 1), maxDecodeWorkers) }

const maxDecodeWorkers = 8

// newPipe returns a pipe with batches enough for workers decoding at once
// and the stages on either side of them. It takes over the batches free in
// the pipe before, if any (the second pass reuses the first's), and makes
// the rest.
func newPipe(workers int, before *pipe) *pipe {
	n := workers + 6
	p := &pipe{full: make(chan *batch, 4), free: make(chan *batch, n), stop: make(chan struct{})}
	for range n {
		var b *batch
		if before != nil {
			select {
			case b = <-before.free:
			default:
			}
		}
		if b == nil {
			// recs is made as large as buf: an event's record is shorter
			// than its element (grown from nothing, the records of the
			// batches left 6 MB of garbage on the 29 MB real-mix trace).
			b = &batch{buf: make([]byte, 0, batchBytes), items: make([]item, 0, batchItems),
				recs: make([]byte, 0, batchBytes)}
		}
		p.free <- b
	}
	return p
}

// decoded starts a stage that decodes the batches of p on workers
// goroutines and returns the pipe it hands them on through, in their order;
// the pipes share their batches and their stop signal. seed is the one the
// importer hashes args texts with (argSets).
func (p *pipe) decoded(workers int, st stage, seed maphash.Seed, decode func(*batch, *worker, stage)) *pipe {
	q := &pipe{full: make(chan *batch, 4), free: p.free, stop: p.stop}
	order := make(chan *batch, cap(p.free))
	work := make(chan *batch, cap(p.free))
	go func() { // distribute, remembering the order
		defer close(order)
		defer close(work)
		for b := range p.full {
			b.done = make(chan struct{})
			order <- b
			work <- b
		}
	}()
	texts := newSeenTexts(seed)
	for range workers {
		go func() {
			w := worker{texts: texts}
			for b := range work {
				// A first-pass event lives as long as its batch: its
				// record copies its strings, the Orderer what it keeps.
				w.d.BorrowStrings(st == elements)
				if b.err == nil {
					b.decodeSafely(&w, st, decode)
				}
				close(b.done)
			}
		}()
	}
	go func() { // hand on in order
		defer close(q.full)
		quit := false
		for b := range order {
			<-b.done
			if !quit && !q.put(b) {
				quit = true
			}
		}
	}()
	return q
}

// get returns an empty batch for the producer; nil when the consumer quit.
func (p *pipe) get() *batch {
	select {
	case b := <-p.free:
		b.reset()
		return b
	case <-p.stop:
		return nil
	}
}

// put hands a batch to the consumer; false when the consumer quit.
func (p *pipe) put(b *batch) bool {
	select {
	case p.full <- b:
		return true
	case <-p.stop:
		return false
	}
}

var errConsumerQuit = errors.New("consumer quit")

// feeder fills the batches of a producer, handing each on to the consumer
// when it is full.
type feeder struct {
	p *pipe
	b *batch // the batch being filled; nil once the consumer quit
}

func newFeeder(p *pipe) *feeder { return &feeder{p: p, b: p.get()} }

// add queues raw (a copy of it, unless ref: see batch.push) and returns its
// item, or nil when the consumer quit.
func (f *feeder) add(raw []byte, ref bool, seq, off int64, k extsort.Key) *item {
	if f.b == nil {
		return nil
	}
	if !f.b.push(raw, ref, seq, off, k) {
		if !f.p.put(f.b) {
			f.b = nil
			return nil
		}
		if f.b = f.p.get(); f.b == nil {
			return nil
		}
		f.b.push(raw, ref, seq, off, k)
	}
	return &f.b.items[len(f.b.items)-1]
}

// end hands the last batch on with the producer's error (nil at the end of
// input).
func (f *feeder) end(err error) {
	if f.b != nil {
		f.b.err = err
		f.p.put(f.b)
	}
}

// readElements is the producer of the first pass: it reads the elements of
// rd, and the parts of a systemTraceEvents string it streams.
func readElements(rd *tokenizer.Reader, p *pipe) {
	defer close(p.full)
	f := newFeeder(p)
	defer func() {
		if r := recover(); r != nil { // a bug: end the input with an error, keep what came before
			f.end(fmt.Errorf("%w reading at offset %d (please report it): %v", ErrInternal, rd.Offset(), r))
		}
	}()
	rd.SystemText = func(part []byte, end bool) {
		if it := f.add(part, false, 0, rd.Offset(), extsort.Key{}); it != nil {
			it.text = textPart
			if end {
				it.text = textEnd
			}
		}
	}
	for f.b != nil { // until the consumer quits
		el, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			f.end(err)
			return
		}
		f.add(el.Raw, false, el.Seq, el.Offset, extsort.Key{})
	}
}

// readSorted is the producer of the second pass: it merges the sorted runs
// of event records.
func readSorted(s *extsort.Sorter, p *pipe) {
	defer close(p.full)
	f := newFeeder(p)
	defer func() {
		if r := recover(); r != nil { // a bug: end the input with an error, keep what came before
			f.end(fmt.Errorf("%w merging sorted events (please report it): %v", ErrInternal, r))
		}
	}()
	// When nothing was spilled, the records are the sorter's own, never
	// written again: the batches point to them instead of copying them.
	ref := s.Runs() == 0
	err := s.Sorted(p.stop, func(k extsort.Key, off int64, raw []byte) error {
		if f.add(raw, ref, k.Seq, off, k) == nil {
			return errConsumerQuit
		}
		return nil
	})
	if !errors.Is(err, errConsumerQuit) {
		f.end(err)
	}
}

// consume calls fn for every batch the producer hands over, then returns the
// producer's error. If fn fails, or ctx is done (checked before each batch and
// while waiting for one, however long the producer takes to make it), the
// producer is stopped.
func (p *pipe) consume(ctx context.Context, fn func(*batch) error) error {
	defer close(p.stop)
	var err error
	for err == nil {
		var b *batch
		select {
		case b = <-p.full:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if b == nil { // the producer is done, or ctx
			break
		}
		if err = ctx.Err(); err == nil {
			err = fn(b)
			if err == nil {
				err = b.err
			}
		}
		select {
		case p.free <- b:
		default:
		}
	}
	// Let the producer finish (it sees stop) before returning.
	go func() {
		for range p.full {
		}
	}()
	return err
}

// setByText reports whether the importer finds the arg set of ev by its
// args text when it makes the event's row (argSets.of). A process- or
// global-scoped instant is not a slice: its arguments are kept whole
// (tracker.Instants), so flattening them here would be lost work.
func setByText(ev *event.Event) bool {
	switch ev.Ph {
	case 'X', 'n', 'T', 'p':
		return true
	case 'i', 'I', 'R':
		scope, _ := tracker.InstantScope(ev)
		return scope == 't'
	}
	return false
}

// mayMerge reports whether the arguments of an event of phase ph may be
// merged with another event's (the start and end of a B/E, b/e or S/F
// slice): the importer needs them as a list, not only as a set.
func mayMerge(ph byte) bool {
	switch ph {
	case 'B', 'E', 'b', 'e', 'S', 'F':
		return true
	}
	return false
}
