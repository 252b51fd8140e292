package tracker

import (
	"cmp"
	"slices"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// MaxDepth is the deepest a thread's slice stack may grow; deeper B and X
// events are dropped (json_max_depth data_lost).
const MaxDepth = 512

// Slice is a synchronous slice (a callstack row of the spec).
type Slice struct {
	ID       int64
	TS       int64
	Dur      int64
	HasDur   bool // false: never closed (dur NULL)
	Itid     int
	Depth    int
	ParentID int64 // -1 at depth 0 (stored as 4294967295)
	Name     string
	HasName  bool
	Cat      string
	HasCat   bool
	Overlap  bool // an X that ends after its parent (kept, counted)
	// Async slices: Cookie is the async_track id (-1 for synchronous slices),
	// Itid is then the main thread of the starting event's process and Emit the
	// thread that emitted it.
	Cookie int
	Emit   int
	// EndItid is the thread that emitted the closing event of a legacy async
	// slice (F).
	EndItid    int
	HasEndItid bool

	// Set by the importer: the arg set (callstack.argsetid), the arguments of a
	// slice whose end may still bring more (written when it closes), and the
	// callstack_extra values.
	ArgSet       int64
	HasArgSet    bool
	PendArgs     []event.Arg
	ThreadTS     int64
	ThreadDur    int64
	HasThreadTS  bool
	HasThreadDur bool
	SF, ESF      int32 // stack_frame id + 1; 0 = none
	CName        string
}

type entry struct {
	slice   int  // row id (Slice.ID)
	pending bool // B without its E yet
	end     int64
}

// endMark is the deepest slice that left a thread's stack at its end time,
// the current time.
type endMark struct {
	slice, depth int
}

// Slices builds the synchronous slices of all threads (docs/format/traceevent.md#synchronous-slices) from events
// in processing order. It keeps only the rows that may still change; a row
// that became final is handed out by Take.
type Slices struct {
	stats Stats
	open  map[int]*Slice // rows not yet taken, by id
	free  []*Slice       // rows given back by Release, to reuse
	// block holds rows never used yet, made slabRows at a time when free
	// is empty: a row lives as long as the tracker (taken, written, given
	// back, reused), so rows that share an array keep nothing alive longer.
	block []Slice
	next  int   // the id the next row gets
	final []int // ids of rows that became final since the last Take
	// threadStacks are the stacks of threads by itid (every thread may have
	// one: a slice, not a map), asyncStacks those of async tracks by key.
	threadStacks [][]entry
	asyncStacks  map[int][]entry
	// spare holds the arrays of stacks that became empty, for the next
	// stack that starts (a thread's stack empties and starts again all the
	// time, an async track's with each n): at most maxSpare, each of at
	// most spareCap entries.
	spare [][]entry
	// pending counts the B and b slices on the stacks still waiting for
	// their end; maxPending bounds it (0: no bound): a B or b beyond it is
	// dropped and counted (json_max_depth data_lost), as each costs memory
	// until it ends or the run does.
	pending    int
	maxPending int
	// onSlice, if set, is called for every slice created on a thread stack
	// (not on async tracks), with its row id.
	onSlice func(itid, row int)
	// ended holds, by itid, the endMark of the threads where a slice ended
	// at markTS, the time of the events processed now (an event processed
	// later is later or at the same time: older marks are forgotten).
	ended  map[int]endMark
	markTS int64
}

// NewSlices returns an empty tracker that keeps at most maxPending B and b
// slices waiting for their end (0: no bound).
func NewSlices(st Stats, maxPending int) *Slices {
	return &Slices{open: map[int]*Slice{}, asyncStacks: map[int][]entry{}, stats: st, maxPending: maxPending,
		ended: map[int]endMark{}}
}

// row returns the row with id id, which must not have been taken.
func (s *Slices) row(id int) *Slice { return s.open[id] }

// slabRows is how many rows add makes at a time.
const slabRows = 256

// add appends a row, giving it the next id.
func (s *Slices) add(r Slice) int {
	id := s.next
	s.next++
	r.ID = int64(id)
	var p *Slice
	if n := len(s.free); n > 0 {
		p, s.free = s.free[n-1], s.free[:n-1]
	} else {
		if len(s.block) == 0 {
			s.block = make([]Slice, slabRows)
		}
		p, s.block = &s.block[0], s.block[1:]
	}
	*p = r
	s.open[id] = p
	if r.HasDur {
		s.final = append(s.final, id)
	}
	return id
}

// setDur closes a row.
func (s *Slices) setDur(r *Slice, dur int64) {
	r.Dur, r.HasDur = dur, true
	s.final = append(s.final, int(r.ID))
}

// Take hands the rows that became final (closed) since the last call to fn,
// and forgets them. Call it only between events: the event that closes a row
// may still complete it.
func (s *Slices) Take(fn func(*Slice)) {
	for _, id := range s.final {
		if r, ok := s.open[id]; ok {
			fn(r)
			delete(s.open, id)
		}
	}
	s.final = s.final[:0]
}

// Release gives back a row that was taken and is no longer used, for a later
// row to reuse.
func (s *Slices) Release(r *Slice) { s.free = append(s.free, r) }

// TakeAll hands every row not yet taken to fn, in id order, and forgets them.
func (s *Slices) TakeAll(fn func(*Slice)) {
	// The slices themselves are put in id order, not copies of them looked
	// up again (half a million open slices took seconds).
	open := make([]*Slice, 0, len(s.open))
	for _, r := range s.open {
		open = append(open, r)
	}
	slices.SortFunc(open, func(a, b *Slice) int { return cmp.Compare(a.ID, b.ID) })
	for _, r := range open {
		fn(r)
	}
	s.open = map[int]*Slice{}
	s.final = s.final[:0]
}

// EachOpen calls fn for every slice not yet taken, in no particular order.
func (s *Slices) EachOpen(fn func(*Slice)) {
	for _, r := range s.open {
		fn(r)
	}
}

// Rows returns copies of the rows not yet taken, in id order.
func (s *Slices) Rows() []Slice {
	out := make([]Slice, 0, len(s.open))
	for _, r := range s.open {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Slice) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// effectiveEnd of stack entry i: its end, clamped to its parent's effective end
// when the parent is complete.
func (s *Slices) effectiveEnd(st []entry, i int) int64 {
	end := st[i].end
	for j := i - 1; j >= 0; j-- {
		if st[j].pending {
			break
		}
		end = min(end, st[j].end)
	}
	return end
}

// trackStack is the stack key of an async track (thread stacks use the itid).
func trackStack(track int) int { return -(track + 1) }

// closeAt pops what has ended by time t on a stack (docs/format/traceevent.md#closing-a-stack).
func (s *Slices) closeAt(key int, t, off int64) {
	st := s.stack(key)
	for {
		i := len(st) - 1
		for i >= 0 && st[i].pending {
			i--
		}
		if i < 0 {
			break
		}
		end := s.effectiveEnd(st, i)
		if i < len(st)-1 {
			// Pending entries above a complete one.
			if t <= end {
				break
			}
			s.pending -= len(st) - 1 - i // every entry above i is pending
			for k := len(st) - 1; k > i; k-- {
				row := s.row(st[k].slice)
				s.setDur(row, end-row.TS)
				s.stats.Add(stat.JSONBegin, stat.DataLost, 1, off) // ended by an ending ancestor
			}
			st = st[:i]
			continue
		}
		if end > t {
			break
		}
		if end == t {
			s.markEnd(key, st[i].slice, i, t)
		}
		st = st[:i]
	}
	s.setStack(key, st)
}

// markEnd notes that slice at depth left thread key's stack at its end time
// t.
func (s *Slices) markEnd(key, slice, depth int, t int64) {
	if key < 0 {
		return // async tracks bind no flows
	}
	if t != s.markTS {
		clear(s.ended)
		s.markTS = t
	}
	if m, ok := s.ended[key]; !ok || m.depth < depth {
		s.ended[key] = endMark{slice: slice, depth: depth}
	}
}

// Bounds of Slices.spare: a few hundred KB at most.
const (
	maxSpare = 1024
	spareCap = 16
)

// setStack stores a stack, forgetting empty ones (async tracks come and go).
func (s *Slices) setStack(key int, st []entry) {
	if len(st) == 0 {
		if c := cap(st); c > 0 && c <= spareCap && len(s.spare) < maxSpare {
			s.spare = append(s.spare, st[:0])
		}
		if key < 0 {
			delete(s.asyncStacks, key)
		} else if key < len(s.threadStacks) {
			s.threadStacks[key] = nil
		}
		return
	}
	s.setStackKeep(key, st)
}

// grown returns st, or a spare array for an empty stack that has none.
func (s *Slices) grown(st []entry) []entry {
	if cap(st) == 0 && len(s.spare) > 0 {
		st = s.spare[len(s.spare)-1]
		s.spare = s.spare[:len(s.spare)-1]
	}
	return st
}

// stack returns the stack of key (a thread's itid, or trackStack of an async
// track).
func (s *Slices) stack(key int) []entry {
	if key < 0 {
		return s.asyncStacks[key]
	}
	if key < len(s.threadStacks) {
		return s.threadStacks[key]
	}
	return nil
}

// setStackKeep stores a stack, empty or not.
func (s *Slices) setStackKeep(key int, st []entry) {
	if key < 0 {
		s.asyncStacks[key] = st
		return
	}
	if key >= len(s.threadStacks) {
		s.threadStacks = append(s.threadStacks, make([][]entry, key+1-len(s.threadStacks))...)
	}
	s.threadStacks[key] = st
}

func (s *Slices) push(key, itid int, ev *event.Event, dur int64, hasDur bool) (int, bool) {
	st := s.stack(key)
	if len(st) >= MaxDepth {
		s.stats.Add(stat.JSONMaxDepth, stat.DataLost, 1, ev.Offset)
		return 0, false
	}
	parent := int64(-1)
	if len(st) > 0 {
		parent = int64(st[len(st)-1].slice)
	}
	row := Slice{TS: ev.TS.NS, Dur: dur, HasDur: hasDur, Itid: itid, Depth: len(st),
		ParentID: parent, Name: ev.Name, HasName: ev.HasName, Cat: ev.Cat, HasCat: ev.HasCat, Cookie: -1, Emit: itid}
	id := s.add(row)
	if s.onSlice != nil && key >= 0 {
		s.onSlice(key, id)
	}
	return id, true
}

// enclosing returns the slice of thread itid that an event at t binds to:
// the deepest slice that ends exactly at t, if one does (slices are closed
// intervals here, as in catapult's findSliceAtTs), else the top of the
// thread's stack after closing what ended by t; ok is false when there is
// neither.
func (s *Slices) enclosing(itid int, t, off int64) (int64, bool) {
	s.closeAt(itid, t, off)
	if m, ok := s.ended[itid]; ok && s.markTS == t {
		return int64(m.slice), true
	}
	st := s.stack(itid)
	if len(st) == 0 {
		return 0, false
	}
	return int64(st[len(st)-1].slice), true
}

// Begin handles a B event of thread itid. It returns the slice it made,
// nil if the event was dropped.
func (s *Slices) Begin(itid int, ev *event.Event) *Slice { return s.made(s.begin(itid, itid, ev)) }

// made returns the row a push made, nil if none.
func (s *Slices) made(id int, ok bool) *Slice {
	if !ok {
		return nil
	}
	return s.row(id)
}

func (s *Slices) begin(key, itid int, ev *event.Event) (int, bool) {
	s.closeAt(key, ev.TS.NS, ev.Offset)
	if s.maxPending > 0 && s.pending >= s.maxPending {
		s.stats.Add(stat.JSONMaxDepth, stat.DataLost, 1, ev.Offset)
		return 0, false
	}
	i, ok := s.push(key, itid, ev, 0, false)
	if ok {
		s.pending++
		s.setStackKeep(key, append(s.grown(s.stack(key)), entry{slice: i, pending: true}))
	}
	return i, ok
}

// End handles an E event: it closes the nearest open compatible slice (names
// and categories match, or one side is missing) and returns it, nil if none
// was found.
func (s *Slices) End(itid int, ev *event.Event) *Slice { return s.end(itid, ev, true) }

func (s *Slices) end(key int, ev *event.Event, matchCat bool) *Slice {
	s.closeAt(key, ev.TS.NS, ev.Offset)
	st := s.stack(key)
	for i := len(st) - 1; i >= 0; i-- {
		if !st[i].pending {
			continue
		}
		row := s.row(st[i].slice)
		if (ev.HasName && row.HasName && ev.Name != row.Name) ||
			(matchCat && ev.HasCat && row.HasCat && ev.Cat != row.Cat) {
			continue
		}
		s.setDur(row, ev.TS.NS-row.TS)
		s.pending--
		if i == len(st)-1 {
			s.markEnd(key, st[i].slice, i, ev.TS.NS)
			s.setStack(key, st[:i])
		} else {
			st[i].pending, st[i].end = false, ev.TS.NS
		}
		return row
	}
	return nil
}

// Complete handles an X event (and thread-scoped instants, with dur 0). It
// returns the slice it made, nil if the event was dropped.
func (s *Slices) Complete(itid int, ev *event.Event, dur int64) *Slice {
	return s.made(s.complete(itid, itid, ev, dur))
}

func (s *Slices) complete(key, itid int, ev *event.Event, dur int64) (int, bool) {
	s.closeAt(key, ev.TS.NS, ev.Offset)
	i, ok := s.push(key, itid, ev, dur, true)
	if !ok {
		return 0, false
	}
	end := ev.TS.NS + dur
	st := s.stack(key)
	if n := len(st); n > 0 && !st[n-1].pending {
		if parentEnd := s.effectiveEnd(st, n-1); end > parentEnd {
			s.row(i).Overlap = true
			end = parentEnd
		}
	}
	s.setStackKeep(key, append(s.grown(st), entry{slice: i, end: end}))
	return i, true
}

// AsyncBegin handles a nestable b on a track: a pending slice on the track's
// stack. callid is the main thread of the event's process, emit the thread
// that wrote it. It returns the slice it made, nil if the event was dropped.
func (s *Slices) AsyncBegin(track, callid, emit int, ev *event.Event) *Slice {
	return s.async(track, emit, s.made(s.begin(trackStack(track), callid, ev)))
}

// AsyncInstant handles a nestable n: a slice of duration 0 on the track,
// ended by the thread that emitted it. It returns the slice it made, nil if
// the event was dropped.
func (s *Slices) AsyncInstant(track, callid, emit int, ev *event.Event) *Slice {
	r := s.async(track, emit, s.made(s.complete(trackStack(track), callid, ev, 0)))
	if r != nil {
		r.EndItid, r.HasEndItid = emit, true
	}
	return r
}

// async marks a slice made on track by thread emit.
func (s *Slices) async(track, emit int, r *Slice) *Slice {
	if r != nil {
		r.Cookie, r.Emit = track, emit
	}
	return r
}

// AsyncEnd handles a nestable e of thread emit: it closes the track's nearest
// open slice with a compatible name (the category is part of the track) and
// returns it, nil if none was found.
func (s *Slices) AsyncEnd(track, emit int, ev *event.Event) *Slice {
	r := s.end(trackStack(track), ev, false)
	if r != nil {
		r.EndItid, r.HasEndItid = emit, true
	}
	return r
}

// Finish counts the thread slices never closed; they keep no duration.
func (s *Slices) Finish() {
	var n int64
	for _, r := range s.open {
		if !r.HasDur && r.Cookie < 0 {
			n++
		}
	}
	s.stats.Add(stat.JSONBegin, stat.NotMatch, n, -1)
}
