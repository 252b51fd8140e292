package extsort

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"unsafe"

	"tracestreamer/internal/scratch"
)

// Sorter puts events, as opaque records of bytes, into processing order
// (docs/format/traceevent.md#sorting-large-inputs): in memory up to a budget of bytes, beyond it as sorted runs in
// temporary files that are merged at the end, so that inputs larger than
// memory work.
//
// Records hold no pointers: their bytes live in large chunks, so that the
// garbage collector has nothing to scan in a full sort buffer.
//
// A full buffer is sorted and written by a goroutine of its own while Add
// fills the next one; each of the two buffers gets half the budget.
type Sorter struct {
	budget int64
	dir    string // private temporary directory, made on first spill
	recs   recList
	chunks [][]byte // record bytes; recs point into them
	free   [][]byte // chunks to reuse after a spill
	bytes  int64
	runs   []string
	// spilling, while a run is being written, delivers its outcome.
	spilling chan spillResult
	spare    recList   // the records' blocks of the run written last, to reuse
	scratch  []tsIndex // for sortOrder, owned by the spilling goroutine while it runs
	// closing, set by Close (or when StopOn's channel closes), stops the
	// run being written: Close does not wait for a run that is removed
	// anyway.
	closing atomic.Bool
	ended   chan struct{} // closed by Close: StopOn's goroutine ends
}

type spillResult struct {
	name    string    // the run's file
	recs    recList   // the records' blocks, to reuse
	chunks  [][]byte  // the chunks written, to reuse
	scratch []tsIndex // the sort's scratch space, to reuse
	err     error
}

type rec struct {
	key   Key
	off   int64
	chunk uint32 // index into chunks
	pos   uint32 // start in the chunk
	n     uint32 // length
}

// recList is a list of records in blocks of recBlock: it grows without
// copying what it holds, and leaves no smaller slices behind as a doubled
// slice does (a slice of records grown by doubling allocated twice its final
// size, 14 MB on the 29 MB real-mix trace, and copied half of it).
type recList struct {
	blocks [][]rec
	n      int
}

// recBlock is the number of records of a block (56 bytes each).
const recBlock = 1 << 13

func (l *recList) len() int { return l.n }

// at returns record i.
func (l *recList) at(i int) *rec { return &l.blocks[i/recBlock][i%recBlock] }

func (l *recList) add(r rec) {
	if l.n == len(l.blocks)*recBlock {
		l.blocks = append(l.blocks, make([]rec, recBlock))
	}
	l.blocks[l.n/recBlock][l.n%recBlock] = r
	l.n++
}

// reset empties l, keeping its blocks for reuse.
func (l *recList) reset() { l.n = 0 }

// recOverhead approximates the memory of a record besides its bytes.
const recOverhead = int64(unsafe.Sizeof(rec{}))

// chunkSize is the size of the byte chunks; larger elements get a chunk of
// their own.
const chunkSize = 4 << 20

// NewSorter returns a sorter that keeps about budget bytes in memory.
func NewSorter(budget int64) *Sorter { return &Sorter{budget: max(budget, 1)} }

// Add queues a record; raw is copied.
func (s *Sorter) Add(k Key, off int64, raw []byte) error {
	last := len(s.chunks) - 1
	if last < 0 || len(s.chunks[last])+len(raw) > cap(s.chunks[last]) {
		var c []byte
		switch {
		case len(raw) > chunkSize:
			c = make([]byte, 0, len(raw))
		case len(s.free) > 0:
			c = s.free[len(s.free)-1][:0]
			s.free = s.free[:len(s.free)-1]
		default:
			c = make([]byte, 0, chunkSize)
		}
		s.chunks = append(s.chunks, c)
		last++
	}
	c := s.chunks[last]
	s.recs.add(rec{key: k, off: off, chunk: uint32(last), pos: uint32(len(c)), n: uint32(len(raw))})
	s.chunks[last] = append(c, raw...)
	s.bytes += int64(len(raw)) + recOverhead
	if s.bytes >= s.budget/2 {
		return s.spill()
	}
	return nil
}

// raw returns the bytes of r.
func (s *Sorter) raw(r *rec) []byte { return rawOf(s.chunks, r) }

func rawOf(chunks [][]byte, r *rec) []byte {
	return chunks[r.chunk][r.pos : r.pos+r.n : r.pos+r.n]
}

// spill hands the queued records to a goroutine that writes them as one
// sorted run, after the run before has been written.
func (s *Sorter) spill() error {
	if s.recs.len() == 0 {
		return nil
	}
	if err := s.wait(); err != nil {
		return err
	}
	if s.dir == "" {
		d, err := scratch.Dir("")
		if err != nil {
			return fmt.Errorf("sort: %w", err)
		}
		s.dir = d
	}
	f, err := os.CreateTemp(s.dir, "run-*")
	if err != nil {
		return fmt.Errorf("sort: %w", err)
	}
	recs, chunks, scratch := s.recs, s.chunks, s.scratch
	s.spilling = make(chan spillResult, 1)
	go func(done chan<- spillResult) {
		scratch, err := writeRun(f, recs, chunks, scratch, &s.closing)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- spillResult{name: f.Name(), recs: recs, chunks: chunks, scratch: scratch, err: err}
	}(s.spilling)
	s.recs, s.chunks, s.bytes, s.spare = s.spare, nil, 0, recList{}
	return nil
}

// wait waits for the run being written, if any, and takes back its buffers.
func (s *Sorter) wait() error {
	if s.spilling == nil {
		return nil
	}
	res := <-s.spilling
	s.spilling = nil
	if res.err != nil {
		return fmt.Errorf("sort: write run: %w", res.err)
	}
	s.runs = append(s.runs, res.name)
	res.recs.reset()
	s.spare, s.scratch = res.recs, res.scratch
	for _, c := range res.chunks {
		if cap(c) == chunkSize {
			s.free = append(s.free, c)
		}
	}
	return nil
}

// writeRun sorts recs and writes them to f. It returns scratch, grown if
// needed. It gives up with ErrStopped soon after stop is set.
func writeRun(f *os.File, recs recList, chunks [][]byte, scratch []tsIndex, stop *atomic.Bool) ([]tsIndex, error) {
	order, scratch := sortOrder(&recs, scratch)
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr []byte
	for n, i := range order {
		if n%4096 == 0 && stop.Load() {
			return scratch, ErrStopped
		}
		r := recs.at(int(i))
		hdr = writeRecord(w, hdr, r.key, r.off, rawOf(chunks, r))
	}
	return scratch, w.Flush()
}

// writeRecord writes one record of a run: its header (five varints and the
// rank byte) and its bytes. hdr is scratch space, returned for reuse; write
// errors surface at Flush.
func writeRecord(w *bufio.Writer, hdr []byte, k Key, off int64, raw []byte) []byte {
	hdr = binary.AppendVarint(hdr[:0], k.TS)
	hdr = append(hdr, k.Rank)
	hdr = binary.AppendVarint(hdr, k.DurKey)
	hdr = binary.AppendVarint(hdr, k.Seq)
	hdr = binary.AppendVarint(hdr, off)
	hdr = binary.AppendVarint(hdr, int64(len(raw)))
	w.Write(hdr)
	w.Write(raw)
	return hdr
}

type runReader struct {
	br   *bufio.Reader
	f    *os.File
	key  Key
	off  int64
	raw  []byte // the current record
	own  []byte // holds a record larger than the read buffer
	skip int    // bytes of the current record still in the read buffer
	// mem, if set, is the sorter whose in-memory records this run reads
	// (from record i on) instead of a file.
	mem   *Sorter
	order []uint32 // of mem.recs
	i     int
}

func (r *runReader) next() (bool, error) {
	if r.mem != nil {
		if r.i >= len(r.order) {
			return false, nil
		}
		rc := r.mem.recs.at(int(r.order[r.i]))
		r.i++
		r.key, r.off, r.raw = rc.key, rc.off, r.mem.raw(rc)
		return true, nil
	}
	// The record is taken from the read buffer without a copy when it fits;
	// it stays there until the next call.
	if r.skip > 0 {
		r.br.Discard(r.skip)
		r.skip = 0
	}
	hdr, err := r.br.Peek(maxRunHeader)
	if len(hdr) == 0 {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	p, ok := 0, true
	ts := varintAt(hdr, &p, &ok)
	rank := byte(0)
	if p < len(hdr) {
		rank = hdr[p]
		p++
	} else {
		ok = false
	}
	dk := varintAt(hdr, &p, &ok)
	seq := varintAt(hdr, &p, &ok)
	off := varintAt(hdr, &p, &ok)
	n := varintAt(hdr, &p, &ok)
	if !ok || n < 0 {
		return false, errors.New("corrupt record header")
	}
	r.key, r.off = Key{ts, rank, dk, seq}, off
	if total := p + int(n); total <= r.br.Size() {
		buf, err := r.br.Peek(total)
		if err != nil {
			return false, fmt.Errorf("record cut short: %w", err)
		}
		r.raw, r.skip = buf[p:total:total], total
		return true, nil
	}
	r.br.Discard(p)
	if int64(cap(r.own)) < n {
		r.own = make([]byte, n)
	}
	r.raw = r.own[:n]
	if _, err := io.ReadFull(r.br, r.raw); err != nil {
		return false, err
	}
	return true, nil
}

// maxRunHeader bounds the header of a record in a run: five varints and the
// rank byte.
const maxRunHeader = 5*binary.MaxVarintLen64 + 1

// varintAt reads the varint at b[*p:], moving *p past it; it clears *ok if
// there is none.
func varintAt(b []byte, p *int, ok *bool) int64 {
	if *p > len(b) {
		*ok = false
		return 0
	}
	v, n := binary.Varint(b[*p:])
	if n <= 0 {
		*ok = false
		return 0
	}
	*p += n
	return v
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return h[i].key.Less(h[j].key) }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// MaxFanIn is the largest number of runs merged at once: runs beyond it are
// merged in rounds of MaxFanIn into longer runs first, so that open files and
// read buffers (256 KiB a run) stay bounded however small the budget and
// however large the input (docs/format/traceevent.md#sorting-large-inputs).
const MaxFanIn = 64

// runBuffer is the read buffer of each run being merged.
const runBuffer = 256 << 10

// ErrStopped is returned by Sorted when stop was closed.
var ErrStopped = errors.New("sort: stopped")

// Sorted calls fn for every record in processing order, then removes the
// temporary files. raw is valid only during the call, unless nothing was
// spilled (Runs is 0 when Sorted is called): raw is then the sorter's own
// copy of the record, which is never written again, and the caller may keep
// it. Closing stop makes it
// return ErrStopped soon, in any phase of the merge.
func (s *Sorter) Sorted(stop <-chan struct{}, fn func(k Key, off int64, raw []byte) error) error {
	defer s.Close()
	// The run still being written stops too.
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case <-stop:
			s.closing.Store(true)
		case <-ended:
		}
	}()
	if err := s.wait(); err != nil {
		return err
	}
	// Nothing is added any more: let the chunks and the records' slice kept
	// for reuse go (up to half the budget), so that the merge, which runs
	// beside everything the second pass builds, holds only the last run.
	s.free, s.spare = nil, recList{}
	// Merge rounds first, leaving a slot for the records still in memory.
	for len(s.runs) > MaxFanIn-1 {
		if err := s.mergeRound(stop); err != nil {
			return err
		}
	}
	// The records still in memory form the last run (the only one when
	// nothing spilled) without a trip to disk.
	defer func() { s.recs, s.chunks, s.free = recList{}, nil, nil }()
	order, _ := sortOrder(&s.recs, s.scratch)
	s.scratch = nil
	h := &runHeap{}
	if mr := (&runReader{mem: s, order: order}); s.recs.len() > 0 {
		mr.next()
		*h = append(*h, mr)
	}
	files, err := openRuns(s.runs, h)
	defer closeAll(files)
	if err != nil {
		return err
	}
	return merge(h, stop, fn)
}

// mergeRound merges the spilled runs in groups of MaxFanIn into new runs,
// removing the merged ones.
func (s *Sorter) mergeRound(stop <-chan struct{}) error {
	var next []string
	for i := 0; i < len(s.runs); i += MaxFanIn {
		group := s.runs[i:min(i+MaxFanIn, len(s.runs))]
		if len(group) == 1 {
			next = append(next, group[0])
			continue
		}
		name, err := s.mergeFiles(group, stop)
		if err != nil {
			return err
		}
		next = append(next, name)
		for _, g := range group {
			os.Remove(g)
		}
	}
	s.runs = next
	return nil
}

// mergeFiles merges the runs named into one new run and returns its name.
func (s *Sorter) mergeFiles(names []string, stop <-chan struct{}) (string, error) {
	h := &runHeap{}
	files, err := openRuns(names, h)
	defer closeAll(files)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(s.dir, "run-*")
	if err != nil {
		return "", fmt.Errorf("sort: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr []byte
	err = merge(h, stop, func(k Key, off int64, raw []byte) error {
		hdr = writeRecord(w, hdr, k, off, raw)
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("sort: merge runs: %w", err)
	}
	return f.Name(), nil
}

// openRuns opens the runs named, reads the first record of each and adds
// those that have one to h. It returns the files opened, to be closed by the
// caller whatever the error.
func openRuns(names []string, h *runHeap) ([]*os.File, error) {
	var files []*os.File
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return files, fmt.Errorf("sort: %w", err)
		}
		files = append(files, f)
		r := &runReader{br: bufio.NewReaderSize(f, runBuffer), f: f}
		ok, err := r.next()
		if err != nil {
			return files, fmt.Errorf("sort: read run: %w", err)
		}
		if ok {
			*h = append(*h, r)
		}
	}
	return files, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// merge calls fn for the records of the runs in h in key order, checking
// stop every few thousand records.
func merge(h *runHeap, stop <-chan struct{}, fn func(k Key, off int64, raw []byte) error) error {
	heap.Init(h)
	for n := 0; h.Len() > 0; n++ {
		if n%4096 == 0 {
			select {
			case <-stop:
				return ErrStopped
			default:
			}
		}
		r := (*h)[0]
		if err := fn(r.key, r.off, r.raw); err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			return fmt.Errorf("sort: read run: %w", err)
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// Runs returns the number of runs spilled to disk so far, counting the one
// being written.
func (s *Sorter) Runs() int {
	if s.spilling != nil {
		return len(s.runs) + 1
	}
	return len(s.runs)
}

// StopOn makes the closing of stop (an interrupt) stop the run being
// written, as Close does, so that an Add waiting for it returns soon, with an
// error wrapping ErrStopped. Call it at most once, before Close.
func (s *Sorter) StopOn(stop <-chan struct{}) {
	s.ended = make(chan struct{})
	go func(ended <-chan struct{}) {
		select {
		case <-stop:
			s.closing.Store(true)
		case <-ended:
		}
	}(s.ended)
}

// Close removes the temporary files. A run being written stops early.
func (s *Sorter) Close() {
	s.closing.Store(true)
	if s.ended != nil {
		close(s.ended)
		s.ended = nil
	}
	s.wait()
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
	s.runs = nil
}
