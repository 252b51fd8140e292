package tracker

import (
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

type flowKey struct{ cat, name, id string }

type openFlow struct {
	src  int64
	ev   *event.Event
	args []byte
}

type pendingEnd struct {
	key  flowKey
	open openFlow
	ts   int64
	args []byte
}

// Flows builds flow arrows between synchronous slices.
type Flows struct {
	rows  made[Flow]
	stats Stats
	s     *Slices
	open  map[flowKey]openFlow
	// pending ends (f without bp:"e") wait for the next slice of their thread.
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
		f.emit(1, p.open.src, r.ID, p.key, p.open.args, p.args, p.open.ev)
	}
	delete(f.pending, itid)
}

func (f *Flows) emit(version int, out, in int64, k flowKey, src, dst []byte, ev *event.Event) {
	fl := Flow{ID: f.rows.next(), Version: version, Out: out, In: in, Key: k.id, SrcArgs: src, DstArgs: dst}
	if version == 1 && ev != nil {
		fl.Cat, fl.HasCat, fl.Name, fl.HasName = ev.Cat, ev.HasCat, ev.Name, ev.HasName
	}
	f.rows.add(fl)
}

// Take hands over the arrows made since the last call (valid until the next
// event) and forgets them.
func (f *Flows) Take() []Flow { return f.rows.take() }

// V1 handles an s, t or f event of thread itid. It reports false when the
// event was counted as a problem.
func (f *Flows) V1(itid int, ev *event.Event) bool {
	id, ok := NormaliseID(ev.ID)
	if !ok {
		return true
	}
	off := ev.Offset
	k := flowKey{ev.Cat, ev.Name, id}
	encl, hasEncl := f.s.enclosing(itid, ev.TS.NS, off)
	op, isOpen := f.open[k]
	switch ev.Ph {
	case 's':
		switch {
		case !hasEncl:
			f.stats.Add(stat.JSONFlowStart, stat.NotMatch, 1, off)
			return false
		case isOpen:
			f.stats.Add(stat.JSONFlowStart, stat.DataLost, 1, off)
			return false
		default:
			// The event's memory is reused after this call: keep copies.
			f.open[k] = openFlow{src: encl, ev: &event.Event{Cat: ev.Cat, HasCat: ev.HasCat, Name: ev.Name, HasName: ev.HasName},
				args: cloneBytes(ev.Args)}
		}
	case 't':
		if !isOpen || !hasEncl {
			f.stats.Add(stat.JSONFlowStep, stat.NotMatch, 1, off)
			return false
		}
		f.emit(1, op.src, encl, k, op.args, ev.Args, op.ev)
		f.open[k] = openFlow{src: encl, ev: op.ev, args: op.args}
	case 'f':
		if !isOpen {
			f.stats.Add(stat.JSONFlowEnd, stat.NotMatch, 1, off)
			return false
		}
		delete(f.open, k)
		switch {
		case ev.BP == "e":
			if !hasEncl {
				f.stats.Add(stat.JSONFlowEnd, stat.NotMatch, 1, off)
				return false
			}
			f.emit(1, op.src, encl, k, op.args, ev.Args, op.ev)
		case ev.BP != "":
			f.stats.Add(stat.JSONFlowEnd, stat.NotSupported, 1, off)
			return false
		default:
			if ts, first, ok := f.started(itid); ok && ts == ev.TS.NS {
				f.emit(1, op.src, first, k, op.args, ev.Args, op.ev)
				return true
			}
			f.pending[itid] = append(f.pending[itid], pendingEnd{key: k, open: op, ts: ev.TS.NS, args: cloneBytes(ev.Args)})
		}
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

// Finish counts the ends still waiting for a slice.
func (f *Flows) Finish() {
	for _, p := range f.pending {
		f.stats.Add(stat.JSONFlowEnd, stat.NotMatch, int64(len(p)), -1)
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
