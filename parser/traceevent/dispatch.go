package traceevent

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tracker"
	"tracestreamer/stat"
)

// process handles one event in processing order.
func (im *Importer) process(ev *event.Event) {
	im.offset = ev.Offset
	if mayMerge(ev.Ph) {
		// Of arguments flattened ahead of time to be merged; the others'
		// when their set is found (argSets).
		im.argProblems(ev.ArgProblems())
	}
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

// argProblems counts what flattening an event's arguments tolerated
// (docs/format/traceevent.md#arguments), at the offset of the event
// processed now.
func (im *Importer) argProblems(p event.ArgProblems) {
	im.stats.Add(stat.JSONString, stat.InvalidData, int64(p.BadStrings), im.offset)
	im.stats.Add(stat.JSONDuplicateKey, stat.Received, int64(p.DupKeys), im.offset)
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
	case 'B', 'X', 'E', 'i', 'I', 'R':
		st.Add(name, stat.Received, 1, off)
		return im.threadSlice(name, ipid, itid, ev)
	case 'C':
		st.Add(name, stat.Received, 1, off)
		n := len(im.counters.Samples)
		im.counters.Add(ipid, ev)
		return len(im.counters.Samples) > n
	case 'b', 'n', 'e':
		return im.nestable(name, ipid, itid, ev)
	case 'S', 'T', 'p', 'F':
		return im.legacyAsync(name, ipid, itid, ev)
	case 's', 't', 'f':
		im.accept(name, off, !tracker.ValidID(ev.ID))
		return im.flows.V1(itid, ev) // kept as a flow_event row even when invalid or unmatched
	case 'P':
		st.Add(name, stat.Received, 1, off)
		im.samples.P(ipid, itid, ev)
	case 'N', 'O', 'D':
		out := im.objects.Add(ipid, itid, ev)
		return im.accept(name, off, out == tracker.ObjectBadID) && out == tracker.ObjectApplied
	case 'M':
		st.Add(name, stat.Received, 1, off)
		im.metadata(ipid, itid, ev)
	case 'V', 'v':
		return im.accept(name, off, !im.dumps.Add(ipid, itid, ev))
	case 'c':
		return im.accept(name, off, !im.markers.ClockSync(itid, ev))
	case '(', ')':
		return im.accept(name, off, !im.markers.Context(ipid, itid, ev))
	case '=':
		if !im.accept(name, off, !im.markers.Link(itid, ev)) {
			return false
		}
		st.Add(name, stat.NotSupported, 1, off)
	}
	return true
}

// threadSlice handles the events of thread stacks: B, X and E, and instants
// (thread-scoped ones are slices of duration 0).
func (im *Importer) threadSlice(name stat.Event, ipid, itid int, ev *event.Event) bool {
	var row *tracker.Slice
	switch ev.Ph {
	case 'B':
		row = im.slices.Begin(itid, ev)
	case 'X':
		row = im.slices.Complete(itid, ev, ev.Dur.NS)
	case 'E':
		row = im.slices.End(itid, ev)
		if row == nil {
			im.stats.Add(name, stat.NotMatch, 1, ev.Offset)
			return false
		}
		im.ended(row, ev)
		return true
	default: // i, I, R
		if _, known := tracker.InstantScope(ev); !known {
			im.stats.Add(name, stat.NotSupported, 1, ev.Offset)
		}
		if im.instants.Add(ipid, itid, ev) {
			return true
		}
		row = im.slices.Complete(itid, ev, 0)
	}
	if row == nil {
		return false
	}
	im.sliceMade(row, ev, ev.Ph == 'B')
	if row.Overlap {
		im.stats.Add(name, stat.NotMatch, 1, ev.Offset)
	}
	return true
}

// nestable handles b, n and e on their async track.
func (im *Importer) nestable(name stat.Event, ipid, itid int, ev *event.Event) bool {
	var track int
	var both, ok, known bool
	if ev.Ph == 'e' {
		track, both, ok, known = im.tracks.Find(ev, ipid, false)
	} else {
		track, both, ok = im.tracks.Lookup(ev, ipid, false)
	}
	if !im.accept(name, ev.Offset, !ok) {
		return false
	}
	if both {
		im.stats.Add(stat.JSONEvent, stat.NotSupported, 1, ev.Offset)
	}
	var row *tracker.Slice
	switch ev.Ph {
	case 'b':
		row = im.slices.AsyncBegin(track, im.threads.MainThread(ipid), itid, ev)
	case 'n':
		row = im.slices.AsyncInstant(track, im.threads.MainThread(ipid), itid, ev)
	case 'e':
		if known {
			row = im.slices.AsyncEnd(track, itid, ev)
		}
		if row == nil {
			im.stats.Add(name, stat.NotMatch, 1, ev.Offset)
			return false
		}
		im.ended(row, ev)
		return true
	}
	if row == nil {
		return false
	}
	im.sliceMade(row, ev, ev.Ph == 'b')
	return true
}

// legacyAsync handles S, T, p and F on their legacy async track.
func (im *Importer) legacyAsync(name stat.Event, ipid, itid int, ev *event.Event) bool {
	var track int
	var both, ok, known bool
	if ev.Ph == 'S' {
		track, both, ok = im.tracks.Lookup(ev, ipid, true)
		known = true
	} else {
		track, both, ok, known = im.tracks.Find(ev, ipid, true)
	}
	if !im.accept(name, ev.Offset, !ok) {
		return false
	}
	if both {
		im.stats.Add(stat.JSONEvent, stat.NotSupported, 1, ev.Offset)
	}
	if !known {
		im.stats.Add(name, stat.NotMatch, 1, ev.Offset)
		return false
	}
	return im.legacyEvent(track, ipid, itid, ev)
}

// metadata records an M event, and the stack frames of a stackFrames one.
func (im *Importer) metadata(ipid, itid int, ev *event.Event) {
	im.meta.Add(im.threads, ipid, itid, ev)
	if ev.Name != "stackFrames" {
		return
	}
	if raw, ok := event.ArgRaw(ev.Args, "stackFrames"); ok {
		// Texts are counted as the event's args; raw's own offset is not
		// known, and not needed then.
		n, _ := im.frames.AddStackFrames(raw, "metadata", ipid, nil, -1, ev.Offset)
		im.stats.Add(stat.JSONStackFrames, stat.Received, int64(n), ev.Offset)
	}
}
