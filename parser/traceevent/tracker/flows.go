package tracker

import "tracestreamer/parser/traceevent/event"

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

// FlowCounts are the stat counts of flows.
type FlowCounts struct {
	StartNoSlice int64 // json_flow_start not_match
	StartOpen    int64 // json_flow_start data_lost
	StepNoMatch  int64 // json_flow_step not_match
	EndNoMatch   int64 // json_flow_end not_match
	EndBadBP     int64 // json_flow_end not_supported
	V2Lost       int64 // json_flow_v2 data_lost
	V2NoProducer int64 // json_flow_v2 not_match
	V2Invalid    int64 // json_flow_v2 invalid_data
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
	// Rows are the arrows not yet taken away; arrow Base+i is Rows[i].
	Rows   []Flow
	Base   int
	Counts FlowCounts
	s      *Slices
	open   map[flowKey]openFlow
	// pending ends (f without bp:"e") wait for the next slice of their thread.
	pending map[int][]pendingEnd
	// the first slice a thread started at its latest start time.
	lastTS    map[int]int64
	firstAtTS map[int]int64
	producers map[string]int64 // v2: key → producer slice
	consumed  map[string]bool  // v2: whether the producer was consumed
}

// NewFlows returns a flow tracker watching the slices of s.
func NewFlows(s *Slices) *Flows {
	f := &Flows{s: s, open: map[flowKey]openFlow{}, pending: map[int][]pendingEnd{},
		lastTS: map[int]int64{}, firstAtTS: map[int]int64{}, producers: map[string]int64{}, consumed: map[string]bool{}}
	s.OnSlice = f.slice
	return f
}

func (f *Flows) slice(itid, row int) {
	r := f.s.Row(row)
	if ts, ok := f.lastTS[itid]; !ok || ts != r.TS {
		f.lastTS[itid], f.firstAtTS[itid] = r.TS, r.ID
	}
	for _, p := range f.pending[itid] {
		f.emit(1, p.open.src, r.ID, p.key, p.open.args, p.args, p.open.ev)
	}
	delete(f.pending, itid)
}

func (f *Flows) emit(version int, out, in int64, k flowKey, src, dst []byte, ev *event.Event) {
	fl := Flow{ID: f.Base + len(f.Rows), Version: version, Out: out, In: in, Key: k.id, SrcArgs: src, DstArgs: dst}
	if version == 1 && ev != nil {
		fl.Cat, fl.HasCat, fl.Name, fl.HasName = ev.Cat, ev.HasCat, ev.Name, ev.HasName
	}
	f.Rows = append(f.Rows, fl)
}

// V1 handles an s, t or f event of thread itid.
func (f *Flows) V1(itid int, ev *event.Event) {
	id, ok := NormaliseID(ev.ID)
	if !ok {
		return
	}
	k := flowKey{ev.Cat, ev.Name, id}
	encl, hasEncl := f.s.Enclosing(itid, ev.TS.NS)
	op, isOpen := f.open[k]
	switch ev.Ph {
	case 's':
		switch {
		case !hasEncl:
			f.Counts.StartNoSlice++
		case isOpen:
			f.Counts.StartOpen++
		default:
			// The event's memory is reused after this call: keep copies.
			f.open[k] = openFlow{src: encl, ev: &event.Event{Cat: ev.Cat, HasCat: ev.HasCat, Name: ev.Name, HasName: ev.HasName},
				args: cloneBytes(ev.Args)}
		}
	case 't':
		if !isOpen || !hasEncl {
			f.Counts.StepNoMatch++
			return
		}
		f.emit(1, op.src, encl, k, op.args, ev.Args, op.ev)
		f.open[k] = openFlow{src: encl, ev: op.ev, args: op.args}
	case 'f':
		if !isOpen {
			f.Counts.EndNoMatch++
			return
		}
		delete(f.open, k)
		switch {
		case ev.BP == "e":
			if !hasEncl {
				f.Counts.EndNoMatch++
				return
			}
			f.emit(1, op.src, encl, k, op.args, ev.Args, op.ev)
		case ev.BP != "":
			f.Counts.EndBadBP++
		default:
			if ts, ok := f.lastTS[itid]; ok && ts == ev.TS.NS {
				f.emit(1, op.src, f.firstAtTS[itid], k, op.args, ev.Args, op.ev)
				return
			}
			f.pending[itid] = append(f.pending[itid], pendingEnd{key: k, open: op, ts: ev.TS.NS, args: cloneBytes(ev.Args)})
		}
	}
}

// V2 handles the bind_id of the event that created slice id.
func (f *Flows) V2(slice int64, ev *event.Event) {
	key, ok := NormaliseID(ev.BindID)
	if !ok {
		return
	}
	if !ev.FlowIn && !ev.FlowOut {
		f.Counts.V2Invalid++
		return
	}
	if ev.FlowIn {
		if src, ok := f.producers[key]; ok {
			f.emit(2, src, slice, flowKey{id: key}, nil, nil, nil)
			f.consumed[key] = true
		} else {
			f.Counts.V2NoProducer++
		}
	}
	if ev.FlowOut {
		if _, ok := f.producers[key]; ok && !f.consumed[key] && !ev.FlowIn {
			f.Counts.V2Lost++
			return
		}
		f.producers[key] = slice
		f.consumed[key] = false
	}
}

// Finish counts the ends still waiting for a slice.
func (f *Flows) Finish() {
	for _, p := range f.pending {
		f.Counts.EndNoMatch += int64(len(p))
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
