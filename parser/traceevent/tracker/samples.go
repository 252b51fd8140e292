package tracker

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/stat"
)

// CPUProfile is one cpu_profile row: a V8 CPU profile carried by Profile and
// ProfileChunk events (docs/format/traceevent.md#samples-and-stack-frames).
type CPUProfile struct {
	ID      int
	Ipid    int
	Itid    int
	Key     string
	StartTS int64
	now     int64 // time of the last sample, ns
}

// StackSample is one stack_sample row.
type StackSample struct {
	ID           int
	Source       string // "samples", "trace_event" or "v8_profile"
	CPUProfileID int    // -1: NULL
	TS           int64
	Itid         int
	CPU          int64
	HasCPU       bool
	Name         string
	HasName      bool
	FrameID      int // -1: NULL
	Weight       int64
	// WeightReal is a fractional weight (HasWeightReal), stored as REAL.
	WeightReal    float64
	HasWeightReal bool
	Args          []byte
}

type profileKey struct {
	ipid int
	id   string
}

// Samples builds CPU profiles and stack samples from P events.
type Samples struct {
	Profiles []CPUProfile
	rows     made[StackSample]
	stats    Stats
	frames   *Frames
	byKey    map[profileKey]int
	parents  map[int]map[int64]int64 // profile → child node → parent node (from children lists)
}

// NewSamples returns a tracker adding profile frames to frames.
func NewSamples(frames *Frames, st Stats) *Samples {
	return &Samples{stats: st, frames: frames, byKey: map[profileKey]int{}, parents: map[int]map[int64]int64{}}
}

func (s *Samples) profile(ipid, itid int, key string, start int64) int {
	k := profileKey{ipid, key}
	if p, ok := s.byKey[k]; ok {
		return p
	}
	p := len(s.Profiles)
	s.Profiles = append(s.Profiles, CPUProfile{ID: p, Ipid: ipid, Itid: itid, Key: key, StartTS: start, now: start})
	s.byKey[k] = p
	s.parents[p] = map[int64]int64{}
	return p
}

// path follows members of nested objects in raw JSON.
func path(raw []byte, keys ...string) ([]byte, bool) {
	for _, k := range keys {
		v, ok := event.ArgRaw(raw, k)
		if !ok {
			return nil, false
		}
		raw = v
	}
	return raw, true
}

// P handles a P event of thread itid in process ipid.
func (s *Samples) P(ipid, itid int, ev *event.Event) {
	switch ev.Name {
	case "Profile":
		key, _ := NormaliseID(ev.ID)
		start := ev.TS.NS
		if raw, ok := path(ev.Args, "data", "startTime"); ok {
			if text, ok := event.NumberText(raw); ok {
				if v, ok := event.ScaleText(string(text)); ok {
					start = v
				}
			}
		}
		if _, exists := s.byKey[profileKey{ipid, key}]; !exists {
			s.profile(ipid, itid, key, start)
		}
	case "ProfileChunk":
		s.chunk(ipid, itid, ev)
	default:
		fr := -1
		if ev.SF != nil {
			if id, valid, found := s.frames.Ref(ev.SF); found {
				fr = id
			} else if valid {
				s.stats.Add(stat.JSONSample, stat.NotMatch, 1, ev.Offset)
			}
		}
		s.rows.add(StackSample{ID: s.rows.next(), Source: "trace_event", CPUProfileID: -1, TS: ev.TS.NS,
			Itid: itid, Name: ev.Name, HasName: ev.HasName, FrameID: fr, Weight: 1, Args: ev.Args})
	}
}

func (s *Samples) chunk(ipid, itid int, ev *event.Event) {
	key, _ := NormaliseID(ev.ID)
	p, ok := s.byKey[profileKey{ipid, key}]
	if !ok {
		s.stats.Add(stat.JSONSample, stat.NotMatch, 1, ev.Offset)
		p = s.profile(ipid, itid, key, ev.TS.NS)
	}
	cp, ok := path(ev.Args, "data", "cpuProfile")
	if !ok {
		cp = []byte("{}")
	}
	if nodes, ok := event.ArgRaw(cp, "nodes"); ok {
		if err := s.nodes(p, ipid, nodes, textCount{s.stats, ev.Offset}); err != nil {
			s.stats.Add(stat.JSONSample, stat.InvalidData, 1, ev.Offset)
		}
	}
	samples, _ := event.ArgRaw(cp, "samples")
	deltas, _ := path(ev.Args, "data", "timeDeltas")
	ids, err1 := intList(samples)
	ds, err2 := timeList(deltas)
	if err1 != nil || err2 != nil {
		s.stats.Add(stat.JSONSample, stat.InvalidData, 1, ev.Offset)
		return
	}
	prof := &s.Profiles[p]
	for i, id := range ids {
		if i < len(ds) {
			prof.now += ds[i]
		}
		fr, ok := s.frames.v8Frame(p, ipid, id)
		if !ok {
			fr = -1
			s.stats.Add(stat.JSONSample, stat.NotMatch, 1, ev.Offset)
		}
		s.rows.add(StackSample{ID: s.rows.next(), Source: "v8_profile", CPUProfileID: p, TS: prof.now,
			Itid: itid, FrameID: fr, Weight: 1})
	}
}

// nodes adds the nodes of a chunk as frames; c counts their replaced texts
// (a ProfileChunk's args are not kept).
func (s *Samples) nodes(p, ipid int, raw []byte, c textCount) error {
	js := jsonscan.NewBytes(raw)
	return js.Array(func(int) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		obj := event.TrimSpace(raw[start:js.Offset()])
		var n v8Node
		idRaw, ok := event.ArgRaw(obj, "id")
		if !ok {
			return nil
		}
		if n.ID, ok = parseInt(idRaw); !ok {
			return nil
		}
		if v, ok := event.ArgRaw(obj, "parent"); ok {
			n.Parent, n.HasParent = parseInt(v)
		} else if par, ok := s.parents[p][n.ID]; ok {
			n.Parent, n.HasParent = par, true
		}
		if cf, ok := event.ArgRaw(obj, "callFrame"); ok {
			n.FunctionName, _ = c.member(cf, "functionName")
			n.URL, _ = c.member(cf, "url")
			if v, ok := event.ArgRaw(cf, "scriptId"); ok {
				n.ScriptID, _ = NormaliseID(v)
				c.decoded(n.ScriptID, v)
			}
			if v, ok := event.ArgRaw(cf, "lineNumber"); ok {
				n.Line, _ = parseInt(v)
			}
			if v, ok := event.ArgRaw(cf, "columnNumber"); ok {
				n.Column, _ = parseInt(v)
			}
		}
		if kids, ok := event.ArgRaw(obj, "children"); ok {
			list, _ := intList(kids)
			for _, c := range list {
				if _, set := s.parents[p][c]; !set {
					s.parents[p][c] = n.ID
				}
			}
		}
		s.frames.addV8Node(p, ipid, n, c.off)
		return nil
	})
}

func parseInt(raw []byte) (int64, bool) {
	v, err := strconv.ParseInt(string(event.TrimSpace(raw)), 10, 64)
	return v, err == nil
}

func intList(raw []byte) ([]int64, error) {
	return numberList(raw, func(js *jsonscan.Decoder) (int64, error) { return js.ReadInt() })
}

// timeList reads µs deltas as ns, exactly.
func timeList(raw []byte) ([]int64, error) {
	return numberList(raw, func(js *jsonscan.Decoder) (int64, error) {
		b, err := js.ReadNumber()
		if err != nil {
			return 0, err
		}
		v, ok := jsonscan.ScaleDecimal(b, 3)
		if !ok {
			return 0, js.Errorf("%q is not a time", b)
		}
		return v, nil
	})
}

// numberList reads a JSON array (nil: none), each element with read.
func numberList(raw []byte, read func(*jsonscan.Decoder) (int64, error)) ([]int64, error) {
	if raw == nil {
		return nil, nil
	}
	var out []int64
	js := jsonscan.NewBytes(raw)
	err := js.Array(func(int) error {
		v, err := read(js)
		out = append(out, v)
		return err
	})
	return out, err
}

// TopLevel reads the top-level samples array ({cpu?, tid, ts, name?, sf?,
// weight?}) into stack samples (source "samples"), made in (ts, array order)
// after all events; thread maps a tid to its itid. It returns the number of
// samples made. Problems are counted at the byte offset of their entry (off
// is raw's).
func (s *Samples) TopLevel(raw []byte, off int64, thread func(tid event.Ident) int) (int, error) {
	js := jsonscan.NewBytes(raw)
	var made []StackSample
	err := js.Array(func(int) error {
		js.Peek() // past the space before the entry
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		at := off + start
		obj := event.TrimSpace(raw[start:js.Offset()])
		ev, err := event.Decode(&tokenizer.Element{Raw: obj})
		if err != nil || !ev.TS.Valid {
			s.stats.Add(stat.JSONSamples, stat.InvalidData, 1, at)
			return nil
		}
		s.stats.Add(stat.JSONString, stat.InvalidData, int64(ev.BadStrings), at)
		row := StackSample{Source: "samples", CPUProfileID: -1, TS: ev.TS.NS, Itid: thread(ev.Tid),
			Name: ev.Name, HasName: ev.HasName, FrameID: -1, Weight: 1}
		if v, ok := event.ArgRaw(obj, "cpu"); ok {
			row.CPU, row.HasCPU = parseInt(v)
		}
		if v, ok := event.ArgRaw(obj, "weight"); ok {
			if w, ok := parseInt(v); ok {
				row.Weight = w
			} else if f, err := strconv.ParseFloat(string(v), 64); err == nil && !math.IsInf(f, 0) {
				// Weights may be fractional (catapult's traceviewify): kept as REAL.
				row.WeightReal, row.HasWeightReal = f, true
			}
		}
		if ev.SF != nil {
			if id, valid, found := s.frames.Ref(ev.SF); found {
				row.FrameID = id
			} else if valid {
				s.stats.Add(stat.JSONSamples, stat.NotMatch, 1, at) // an sf naming no frame
			}
		}
		made = append(made, row)
		return nil
	})
	slices.SortStableFunc(made, func(a, b StackSample) int { return cmp.Compare(a.TS, b.TS) })
	for _, r := range made {
		r.ID = s.rows.next()
		s.rows.add(r)
	}
	return len(made), err
}

// Take hands over the samples made since the last call (valid until the
// next event) and forgets them.
func (s *Samples) Take() []StackSample { return s.rows.take() }
