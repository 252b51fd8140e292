package traceevent

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
}

// SliceCounts are the stat counts of the slice rules.
type SliceCounts struct {
	Truncated    int64 // json_begin data_lost: ended by an ending ancestor
	Unclosed     int64 // json_begin not_match: never closed
	Unmatched    int64 // json_end not_match: E without a compatible open slice
	Overlaps     int64 // json_complete not_match
	TooDeep      int64 // json_max_depth data_lost
	InvalidXDurs int64 // json_complete invalid_data: X without a usable dur
}

type entry struct {
	slice   int  // index into Slices.Rows
	pending bool // B without its E yet
	end     int64
}

// Slices builds the synchronous slices of all threads (spec §2.4) from events
// in processing order.
type Slices struct {
	Rows   []Slice
	Counts SliceCounts
	stacks map[int][]entry
	// OnSlice, if set, is called for every slice created on a thread stack
	// (not on async tracks), with its row index.
	OnSlice func(itid, row int)
}

// NewSlices returns an empty builder.
func NewSlices() *Slices { return &Slices{stacks: map[int][]entry{}} }

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

// closeAt pops what has ended by time t on a stack (spec §2.4.1).
func (s *Slices) closeAt(key int, t int64) {
	st := s.stacks[key]
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
			for k := len(st) - 1; k > i; k-- {
				row := &s.Rows[st[k].slice]
				row.Dur, row.HasDur = end-row.TS, true
				s.Counts.Truncated++
			}
			st = st[:i]
			continue
		}
		if end > t {
			break
		}
		st = st[:i]
	}
	s.stacks[key] = st
}

func (s *Slices) push(key, itid int, ev *Event, dur int64, hasDur bool) (int, bool) {
	st := s.stacks[key]
	if len(st) >= MaxDepth {
		s.Counts.TooDeep++
		return 0, false
	}
	parent := int64(-1)
	if len(st) > 0 {
		parent = s.Rows[st[len(st)-1].slice].ID
	}
	row := Slice{ID: int64(len(s.Rows)), TS: ev.TS.NS, Dur: dur, HasDur: hasDur, Itid: itid, Depth: len(st),
		ParentID: parent, Name: ev.Name, HasName: ev.HasName, Cat: ev.Cat, HasCat: ev.HasCat, Cookie: -1, Emit: itid}
	s.Rows = append(s.Rows, row)
	if s.OnSlice != nil && key >= 0 {
		s.OnSlice(key, len(s.Rows)-1)
	}
	return len(s.Rows) - 1, true
}

// Enclosing returns the slice id at the top of thread itid's stack after
// closing what ended by t; ok is false when nothing is open.
func (s *Slices) Enclosing(itid int, t int64) (int64, bool) {
	s.closeAt(itid, t)
	st := s.stacks[itid]
	if len(st) == 0 {
		return 0, false
	}
	return s.Rows[st[len(st)-1].slice].ID, true
}

// Begin handles a B event of thread itid.
func (s *Slices) Begin(itid int, ev *Event) { s.begin(itid, itid, ev) }

func (s *Slices) begin(key, itid int, ev *Event) (int, bool) {
	s.closeAt(key, ev.TS.NS)
	i, ok := s.push(key, itid, ev, 0, false)
	if ok {
		s.stacks[key] = append(s.stacks[key], entry{slice: i, pending: true})
	}
	return i, ok
}

// End handles an E event: it closes the nearest open compatible slice (names
// and categories match, or one side is missing).
func (s *Slices) End(itid int, ev *Event) {
	if !s.end(itid, ev, true) {
		s.Counts.Unmatched++
	}
}

func (s *Slices) end(key int, ev *Event, matchCat bool) bool {
	s.closeAt(key, ev.TS.NS)
	st := s.stacks[key]
	for i := len(st) - 1; i >= 0; i-- {
		if !st[i].pending {
			continue
		}
		row := &s.Rows[st[i].slice]
		if (ev.HasName && row.HasName && ev.Name != row.Name) ||
			(matchCat && ev.HasCat && row.HasCat && ev.Cat != row.Cat) {
			continue
		}
		row.Dur, row.HasDur = ev.TS.NS-row.TS, true
		if i == len(st)-1 {
			s.stacks[key] = st[:i]
		} else {
			st[i].pending, st[i].end = false, ev.TS.NS
		}
		return true
	}
	return false
}

// Complete handles an X event (and thread-scoped instants, with dur 0).
func (s *Slices) Complete(itid int, ev *Event, dur int64) { s.complete(itid, itid, ev, dur) }

func (s *Slices) complete(key, itid int, ev *Event, dur int64) (int, bool) {
	s.closeAt(key, ev.TS.NS)
	i, ok := s.push(key, itid, ev, dur, true)
	if !ok {
		return 0, false
	}
	end := ev.TS.NS + dur
	st := s.stacks[key]
	if n := len(st); n > 0 && !st[n-1].pending {
		if parentEnd := s.effectiveEnd(st, n-1); end > parentEnd {
			s.Rows[i].Overlap = true
			s.Counts.Overlaps++
			end = parentEnd
		}
	}
	s.stacks[key] = append(st, entry{slice: i, end: end})
	return i, true
}

// AsyncBegin handles a nestable b on a track: a pending slice on the track's
// stack. callid is the main thread of the event's process, emit the thread
// that wrote it.
func (s *Slices) AsyncBegin(track, callid, emit int, ev *Event) {
	if i, ok := s.begin(trackStack(track), callid, ev); ok {
		s.Rows[i].Cookie, s.Rows[i].Emit = track, emit
	}
}

// AsyncInstant handles a nestable n: a slice of duration 0 on the track.
func (s *Slices) AsyncInstant(track, callid, emit int, ev *Event) {
	if i, ok := s.complete(trackStack(track), callid, ev, 0); ok {
		s.Rows[i].Cookie, s.Rows[i].Emit = track, emit
	}
}

// AsyncEnd handles a nestable e: it closes the track's nearest open slice with
// a compatible name (the category is part of the track). It reports whether
// one was found.
func (s *Slices) AsyncEnd(track int, ev *Event) bool { return s.end(trackStack(track), ev, false) }

// Finish counts the slices never closed; they keep no duration.
func (s *Slices) Finish() {
	for _, r := range s.Rows {
		if !r.HasDur && r.Cookie < 0 {
			s.Counts.Unclosed++
		}
	}
}
