package tracker

import (
	"slices"

	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// Flow is one flow arrow (docs/format/traceevent.md#flows).
type Flow struct {
	ID      int
	Version int // 1: s/t/f; 2: bind_id
	Out, In int64
	Cat     string
	HasCat  bool
	Name    string
	HasName bool
	Key     string
	SrcArgs []byte // v1: args of the starting event
	DstArgs []byte // v1: args of the ending event
}

// FlowEvent is one flow_event row: an s, t or f event as it was read, bound
// to a slice or not (docs/format/traceevent.md#flow-events).
type FlowEvent struct {
	ID      int
	TS      int64
	Itid    int
	Phase   byte // 's', 't' or 'f'
	Cat     string
	HasCat  bool
	Name    string
	HasName bool
	Key     string // normalised id
	HasKey  bool   // false: no usable id
	BP      string
	Slice   int64  // the slice it binds to; -1: none
	Arrow   int    // the arrow (Flow.ID) it ends; -1: none
	Args    []byte // raw args object (nil: none)
}

// FlowRows are the rows the flow tracker made since the last Take.
type FlowRows struct {
	Arrows []Flow
	Events []FlowEvent
}

type flowKey struct{ cat, name, id string }

type openFlow struct {
	src  int64
	ev   *event.Event
	args []byte
}

// pendingEnd is an f without bp waiting for the next slice of its thread,
// with the flow it ends (when isOpen) and its own row.
type pendingEnd struct {
	key    flowKey
	open   openFlow
	isOpen bool
	ev     FlowEvent
}

// Flows builds flow arrows between synchronous slices.
type Flows struct {
	rows   made[Flow]
	events made[FlowEvent]
	stats  Stats
	s      *Slices
	open   map[flowKey]openFlow
	// pending ends (f without bp) wait for the next slice of their thread.
	pending map[int][]pendingEnd
	// the first slice a thread started at its latest start time.
	// the first slice each thread started at its latest start time, by itid
	// (a slice, not a map: every thread has one, and there may be millions).
	latest    []threadStart
	producers map[string]int64 // v2: key → producer slice
	consumed  map[string]bool  // v2: whether the producer was consumed
}

// NewFlows returns a flow tracker watching the slices of s.
func NewFlows(s *Slices, st Stats) *Flows {
	f := &Flows{s: s, stats: st, open: map[flowKey]openFlow{}, pending: map[int][]pendingEnd{},
		producers: map[string]int64{}, consumed: map[string]bool{}}
	s.onSlice = f.slice
	return f
}

// threadStart is the first slice a thread started at its latest start time.
type threadStart struct {
	ts    int64
	first int64 // slice id + 1; 0: no slice yet
}

// started returns the first slice thread itid started at its latest start
// time and that time.
func (f *Flows) started(itid int) (ts, slice int64, ok bool) {
	if itid >= len(f.latest) || f.latest[itid].first == 0 {
		return 0, 0, false
	}
	return f.latest[itid].ts, f.latest[itid].first - 1, true
}

func (f *Flows) slice(itid, row int) {
	r := f.s.row(row)
	if ts, _, ok := f.started(itid); !ok || ts != r.TS {
		if itid >= len(f.latest) {
			f.latest = append(f.latest, make([]threadStart, itid+1-len(f.latest))...)
		}
		f.latest[itid] = threadStart{ts: r.TS, first: r.ID + 1}
	}
	for _, p := range f.pending[itid] {
		p.ev.Slice = r.ID
		if p.isOpen {
			p.ev.Arrow = f.emit(1, p.open.src, r.ID, p.key, p.open.args, p.ev.Args, p.open.ev)
		}
		f.event(p.ev)
	}
	delete(f.pending, itid)
}

// emit makes an arrow and returns its id.
func (f *Flows) emit(version int, out, in int64, k flowKey, src, dst []byte, ev *event.Event) int {
	fl := Flow{ID: f.rows.next(), Version: version, Out: out, In: in, Key: k.id, SrcArgs: src, DstArgs: dst}
	if version == 1 && ev != nil {
		fl.Cat, fl.HasCat, fl.Name, fl.HasName = ev.Cat, ev.HasCat, ev.Name, ev.HasName
	}
	f.rows.add(fl)
	return fl.ID
}

// event makes a flow_event row.
func (f *Flows) event(e FlowEvent) {
	e.ID = f.events.next()
	f.events.add(e)
}

// Take hands over the arrows and flow events made since the last call (valid
// until the next event) and forgets them.
func (f *Flows) Take() FlowRows { return FlowRows{Arrows: f.rows.take(), Events: f.events.take()} }

// Pending reports whether Take has rows to hand over: most events make
// none, and a caller that asks first spares copying empty FlowRows.
func (f *Flows) Pending() bool { return f.rows.pending() || f.events.pending() }

// V1 handles an s, t or f event of thread itid: every one becomes a
// flow_event row, bound to the slice it names or not, and those that make or
// end an arrow make it. It reports false when the event made no arrow and
// opened no flow; but for an id that is not usable (the caller's to count),
// it counts why.
func (f *Flows) V1(itid int, ev *event.Event) bool {
	id, ok := NormaliseID(ev.ID)
	fe := FlowEvent{TS: ev.TS.NS, Itid: itid, Phase: ev.Ph, Cat: ev.Cat, HasCat: ev.HasCat, Name: ev.Name,
		HasName: ev.HasName, Key: id, HasKey: ok, BP: ev.BP, Slice: -1, Arrow: -1, Args: ev.Args}
	if !ok {
		f.event(fe)
		return false
	}
	off := ev.Offset
	k := flowKey{ev.Cat, ev.Name, id}
	encl, hasEncl := f.s.enclosing(itid, ev.TS.NS, off)
	if hasEncl && (ev.Ph != 'f' || ev.BP == "e") {
		fe.Slice = encl
	}
	op, isOpen := f.open[k]
	made := f.v1(ev, k, op, isOpen, hasEncl, &fe)
	if fe.Phase != 'f' || ev.BP != "" || fe.Slice >= 0 {
		f.event(fe)
	}
	return made
}

// v1 applies an s, t or f event with a usable id to the open flows, and
// fills its row's arrow (and, for an f without bp, its slice or its place
// among the ends waiting for the thread's next slice).
func (f *Flows) v1(ev *event.Event, k flowKey, op openFlow, isOpen, hasEncl bool, fe *FlowEvent) bool {
	off := ev.Offset
	switch ev.Ph {
	case 's':
		switch {
		case !hasEncl:
			f.stats.Add(stat.JSONFlowStart, stat.NotMatch, 1, off)
			return false
		case isOpen:
			f.stats.Add(stat.JSONFlowStart, stat.DataLost, 1, off)
			return false
		}
		// The event's memory is reused after this call: keep copies.
		f.open[k] = openFlow{src: fe.Slice, ev: &event.Event{Cat: ev.Cat, HasCat: ev.HasCat, Name: ev.Name,
			HasName: ev.HasName}, args: cloneBytes(ev.Args)}
	case 't':
		if !isOpen || !hasEncl {
			f.stats.Add(stat.JSONFlowStep, stat.NotMatch, 1, off)
			return false
		}
		fe.Arrow = f.emit(1, op.src, fe.Slice, k, op.args, ev.Args, op.ev)
		f.open[k] = openFlow{src: fe.Slice, ev: op.ev, args: op.args}
	case 'f':
		if isOpen {
			delete(f.open, k)
		}
		switch {
		case !isOpen || (ev.BP == "e" && !hasEncl):
			f.stats.Add(stat.JSONFlowEnd, stat.NotMatch, 1, off)
		case ev.BP == "e":
			fe.Arrow = f.emit(1, op.src, fe.Slice, k, op.args, ev.Args, op.ev)
			return true
		case ev.BP != "":
			f.stats.Add(stat.JSONFlowEnd, stat.NotSupported, 1, off)
			return false
		}
		if ev.BP != "" {
			return false
		}
		if ts, first, ok := f.started(fe.Itid); ok && ts == ev.TS.NS {
			fe.Slice = first
			if isOpen {
				fe.Arrow = f.emit(1, op.src, first, k, op.args, ev.Args, op.ev)
			}
			return isOpen
		}
		p := pendingEnd{key: k, open: op, isOpen: isOpen, ev: *fe}
		p.ev.Args = cloneBytes(ev.Args)
		f.pending[fe.Itid] = append(f.pending[fe.Itid], p)
		return isOpen
	}
	return true
}

// V2 handles the bind_id of the event that created slice id.
func (f *Flows) V2(slice int64, ev *event.Event) {
	key, ok := NormaliseID(ev.BindID)
	if !ok {
		return
	}
	if !ev.FlowIn && !ev.FlowOut {
		f.stats.Add(stat.JSONFlowV2, stat.InvalidData, 1, ev.Offset)
		return
	}
	if ev.FlowIn {
		if src, ok := f.producers[key]; ok {
			f.emit(2, src, slice, flowKey{id: key}, nil, nil, nil)
			f.consumed[key] = true
		} else {
			f.stats.Add(stat.JSONFlowV2, stat.NotMatch, 1, ev.Offset)
		}
	}
	if ev.FlowOut {
		if _, ok := f.producers[key]; ok && !f.consumed[key] && !ev.FlowIn {
			f.stats.Add(stat.JSONFlowV2, stat.DataLost, 1, ev.Offset)
			return
		}
		f.producers[key] = slice
		f.consumed[key] = false
	}
}

// Finish counts the ends of flows still waiting for a slice, and makes
// their rows and those of the other waiting f events, unbound.
func (f *Flows) Finish() {
	threads := make([]int, 0, len(f.pending))
	for itid := range f.pending {
		threads = append(threads, itid)
	}
	slices.Sort(threads) // rows in a stable order
	for _, itid := range threads {
		for _, p := range f.pending[itid] {
			if p.isOpen {
				f.stats.Add(stat.JSONFlowEnd, stat.NotMatch, 1, -1)
			}
			f.event(p.ev)
		}
	}
	f.pending = map[int][]pendingEnd{}
}

// cloneBytes copies b (nil stays nil).
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}
