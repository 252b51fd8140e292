package traceevent

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tracker"
	"tracestreamer/stat"
)

// process handles one event in processing order.
func (im *Importer) process(ev *event.Event) {
	ipid, itid, ok := im.threads.Lookup(ev)
	if !ok {
		return // beyond Options.MaxThreads: counted by Lookup
	}
	accepted := im.dispatch(ev, ipid, itid)
	if accepted && ev.Ph != 'M' {
		im.env.Range.Add(ev.TS.NS)
	}
	im.drain()
	im.slices.Take(im.closeSlice)
}

// accept counts an event of phase stat name as received, or as invalid_data
// when invalid is set, and reports whether it was received.
func (im *Importer) accept(name stat.Event, off int64, invalid bool) bool {
	if invalid {
		im.stats.Add(name, stat.InvalidData, 1, off)
		return false
	}
	im.stats.Add(name, stat.Received, 1, off)
	return true
}

// dispatch hands an event to the tracker of its phase and counts what
// happens. It reports whether the event was accepted: it made, closed or
// changed a row (events dropped as unmatched or invalid do not count toward
// trace_range).
func (im *Importer) dispatch(ev *event.Event, ipid, itid int) bool {
	name, _ := phaseStat(ev.Ph)
	off := ev.Offset
	st := &im.stats
	switch ev.Ph {
	case 'B', 'X':
		st.Add(name, stat.Received, 1, off)
		before := im.slices.Next()
		if ev.Ph == 'B' {
			im.slices.Begin(itid, ev)
		} else {
			im.slices.Complete(itid, ev, ev.Dur.NS)
		}
		if im.slices.Next() == before {
			return false
		}
		im.slicesMade(before, ev, ev.Ph == 'B')
		if im.slices.Row(before).Overlap {
			st.Add(name, stat.NotMatch, 1, off)
		}
	case 'E':
		st.Add(name, stat.Received, 1, off)
		if !im.slices.End(itid, ev) {
			st.Add(name, stat.NotMatch, 1, off)
			return false
		}
		im.ended(im.slices.Ended, itid, ev)
	case 'i', 'I', 'R':
		st.Add(name, stat.Received, 1, off)
		if _, known := tracker.InstantScope(ev); !known {
			st.Add(name, stat.NotSupported, 1, off)
		}
		if !im.instants.Add(ipid, itid, ev) {
			before := im.slices.Next()
			im.slices.Complete(itid, ev, 0)
			if im.slices.Next() == before {
				return false
			}
			im.slicesMade(before, ev, false)
		}
	case 'C':
		st.Add(name, stat.Received, 1, off)
		n := len(im.counters.Samples)
		im.counters.Add(ipid, ev)
		return len(im.counters.Samples) > n
	case 'b', 'n':
		track, both, ok := im.tracks.Lookup(ev, ipid, false)
		if !im.accept(name, off, !ok) {
			return false
		}
		if both {
			st.Add(stat.JSONEvent, stat.NotSupported, 1, off)
		}
		callid := im.threads.MainThread(ipid)
		before := im.slices.Next()
		if ev.Ph == 'b' {
			im.slices.AsyncBegin(track, callid, itid, ev)
		} else {
			im.slices.AsyncInstant(track, callid, itid, ev)
		}
		if im.slices.Next() == before {
			return false
		}
		if ev.Ph == 'n' {
			r := im.slices.Row(before)
			r.EndItid, r.HasEndItid = itid, true
		}
		im.slicesMade(before, ev, ev.Ph == 'b')
	case 'e':
		track, both, ok, known := im.tracks.Find(ev, ipid, false)
		if !im.accept(name, off, !ok) {
			return false
		}
		if both {
			st.Add(stat.JSONEvent, stat.NotSupported, 1, off)
		}
		if !known || !im.slices.AsyncEnd(track, ev) {
			st.Add(name, stat.NotMatch, 1, off)
			return false
		}
		row := im.slices.Row(im.slices.Ended)
		row.EndItid, row.HasEndItid = itid, true
		im.ended(im.slices.Ended, itid, ev)
	case 'S', 'T', 'p', 'F':
		var track int
		var both, ok, known bool
		if ev.Ph == 'S' {
			track, both, ok = im.tracks.Lookup(ev, ipid, true)
			known = true
		} else {
			track, both, ok, known = im.tracks.Find(ev, ipid, true)
		}
		if !im.accept(name, off, !ok) {
			return false
		}
		if both {
			st.Add(stat.JSONEvent, stat.NotSupported, 1, off)
		}
		if !known {
			st.Add(name, stat.NotMatch, 1, off)
			return false
		}
		return im.legacyEvent(track, ipid, itid, ev)
	case 's', 't', 'f':
		if _, ok := tracker.NormaliseID(ev.ID); !im.accept(name, off, !ok) {
			return false
		}
		return im.flows.V1(itid, ev)
	case 'P':
		st.Add(name, stat.Received, 1, off)
		im.samples.P(ipid, itid, ev)
	case 'N', 'O', 'D':
		out := im.objects.Add(ipid, itid, ev)
		if !im.accept(name, off, out == tracker.ObjectBadID) {
			return false
		}
		return out == tracker.ObjectApplied
	case 'M':
		st.Add(name, stat.Received, 1, off)
		im.meta.Add(im.threads, ipid, itid, ev)
		if ev.Name == "stackFrames" {
			if raw, ok := event.ArgRaw(ev.Args, "stackFrames"); ok {
				n := len(im.frames.Rows)
				im.frames.AddStackFrames(raw, "metadata", ipid)
				st.Add(stat.JSONStackFrames, stat.Received, int64(len(im.frames.Rows)-n), off)
			}
		}
	case 'V', 'v':
		if !im.accept(name, off, !im.dumps.Add(ipid, itid, ev)) {
			return false
		}
	case 'c':
		if !im.accept(name, off, !im.markers.ClockSync(itid, ev)) {
			return false
		}
	case '(', ')':
		if !im.accept(name, off, !im.markers.Context(ipid, itid, ev)) {
			return false
		}
	case '=':
		if !im.accept(name, off, !im.markers.Link(itid, ev)) {
			return false
		}
		st.Add(name, stat.NotSupported, 1, off)
	}
	return true
}
