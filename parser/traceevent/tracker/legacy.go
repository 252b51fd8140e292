package tracker

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

type legacyState struct {
	open       bool
	sRow       int
	last       int64 // ts of the key's previous event
	openT      int   // row of a T step still open, -1 if none
	sawT, sawP bool
}

// Legacy builds the slices of legacy async events S, T, p and F (docs/format/traceevent.md#legacy-async):
// one slice from S to F on the key's track, and step slices below it.
type Legacy struct {
	stats Stats
	s     *Slices
	state map[int]*legacyState
}

// NewLegacy returns a tracker appending its rows to s.
func NewLegacy(s *Slices, st Stats) *Legacy {
	return &Legacy{s: s, stats: st, state: map[int]*legacyState{}}
}

// stepStat is the stat event of a T or p step.
func stepStat(ph byte) stat.Event {
	if ph == 'T' {
		return stat.JSONAsyncStepInto
	}
	return stat.JSONAsyncStepPast
}

func (l *Legacy) row(track, callid, emit int, ev *event.Event, depth int, parent int64) int {
	return l.s.add(Slice{TS: ev.TS.NS, Itid: callid, Depth: depth, ParentID: parent,
		Name: ev.Name, HasName: ev.HasName, Cat: ev.Cat, HasCat: ev.HasCat, Cookie: track, Emit: emit})
}

func (l *Legacy) closeT(st *legacyState, t int64, emit int) {
	if st.openT >= 0 {
		r := l.s.row(st.openT)
		l.s.setDur(r, t-r.TS)
		r.EndItid, r.HasEndItid = emit, true
		st.openT = -1
	}
}

// Add handles one S, T, p or F event of a track. It returns the slice the
// event made (S, T, p), the S slice an F finished, and false when the event
// was dropped: an S of a key already open (data_lost), a step or F of a key
// not open (not_match); a step after T and p were mixed is kept and counted
// not_supported.
func (l *Legacy) Add(track, callid, emit int, ev *event.Event) (made, finished *Slice, ok bool) {
	st := l.state[track]
	if st == nil {
		st = &legacyState{openT: -1}
		l.state[track] = st
	}
	t := ev.TS.NS
	switch ev.Ph {
	case 'S':
		if st.open {
			l.stats.Add(stat.JSONAsyncStart, stat.DataLost, 1, ev.Offset)
			return nil, nil, false
		}
		*st = legacyState{open: true, sRow: l.row(track, callid, emit, ev, 0, -1), last: t, openT: -1}
		made = l.s.row(st.sRow)
	case 'T', 'p':
		if !st.open {
			l.stats.Add(stepStat(ev.Ph), stat.NotMatch, 1, ev.Offset)
			return nil, nil, false
		}
		if ev.Ph == 'T' {
			st.sawT = true
		} else {
			st.sawP = true
		}
		if st.sawT && st.sawP {
			l.stats.Add(stepStat(ev.Ph), stat.NotSupported, 1, ev.Offset)
		}
		l.closeT(st, t, emit)
		s := *l.s.row(st.sRow)
		step := *ev
		step.Name, step.HasName = s.Name, s.HasName
		if name, ok := argString(ev.Args, "step"); ok {
			step.Name, step.HasName = name, true
		}
		step.Cat, step.HasCat = s.Cat, s.HasCat
		if ev.Ph == 'p' {
			// A past step covers [previous event of the key, step ts).
			step.TS = event.Time{NS: st.last, Present: true, Valid: true}
			made = l.s.row(l.row(track, callid, emit, &step, 1, s.ID))
			l.s.setDur(made, t-st.last)
			made.EndItid, made.HasEndItid = emit, true
		} else {
			st.openT = l.row(track, callid, emit, &step, 1, s.ID)
			made = l.s.row(st.openT)
		}
		st.last = t
	case 'F':
		if !st.open {
			l.stats.Add(stat.JSONAsyncFinish, stat.NotMatch, 1, ev.Offset)
			return nil, nil, false
		}
		l.closeT(st, t, emit)
		finished = l.s.row(st.sRow)
		l.s.setDur(finished, t-finished.TS)
		finished.EndItid, finished.HasEndItid = emit, true
		delete(l.state, track)
	}
	return made, finished, true
}

// Finish counts the S slices never finished; they and their open step keep
// no duration.
func (l *Legacy) Finish() {
	for _, st := range l.state {
		if st.open {
			l.stats.Add(stat.JSONAsyncStart, stat.NotMatch, 1, -1) // never finished
		}
	}
}
