package traceevent

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tracker"
	"tracestreamer/stat"
)

// process handles one event in processing order.
func (im *Importer) process(ev *event.Event) {
	strs := im.threads.StringIDs
	ipid, itid := im.threads.Lookup(ev.Pid, ev.Tid)
	im.stats.add(stat.JSONPidTid, stat.Received, int64(im.threads.StringIDs-strs), ev.Offset)
	trunc, deep := im.slices.Counts.Truncated, im.slices.Counts.TooDeep
	accepted := im.dispatch(ev, ipid, itid)
	im.stats.add(stat.JSONBegin, stat.DataLost, im.slices.Counts.Truncated-trunc, ev.Offset)
	im.stats.add(stat.JSONMaxDepth, stat.DataLost, im.slices.Counts.TooDeep-deep, ev.Offset)
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
		im.stats.add(name, stat.InvalidData, 1, off)
		return false
	}
	im.stats.add(name, stat.Received, 1, off)
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
		st.add(name, stat.Received, 1, off)
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
			st.add(name, stat.NotMatch, 1, off)
		}
	case 'E':
		st.add(name, stat.Received, 1, off)
		im.slices.End(itid, ev)
		if im.slices.Ended < 0 {
			st.add(name, stat.NotMatch, 1, off)
			return false
		}
		im.ended(im.slices.Ended, itid, ev)
	case 'i', 'I', 'R':
		st.add(name, stat.Received, 1, off)
		if _, known := tracker.InstantScope(ev); !known {
			st.add(name, stat.NotSupported, 1, off)
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
		st.add(name, stat.Received, 1, off)
		nn, inv, n := im.counters.NotNumeric, im.counters.Invalid, len(im.counters.Samples)
		im.counters.Add(ipid, ev)
		st.add(name, stat.NotSupported, im.counters.NotNumeric-nn, off)
		st.add(name, stat.InvalidData, im.counters.Invalid-inv, off)
		return len(im.counters.Samples) > n
	case 'b', 'n':
		track, both, ok := im.tracks.Lookup(ev, ipid, false)
		if !im.accept(name, off, !ok) {
			return false
		}
		if both {
			st.add(stat.JSONEvent, stat.NotSupported, 1, off)
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
			st.add(stat.JSONEvent, stat.NotSupported, 1, off)
		}
		if !known || !im.slices.AsyncEnd(track, ev) {
			st.add(name, stat.NotMatch, 1, off)
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
			st.add(stat.JSONEvent, stat.NotSupported, 1, off)
		}
		if !known {
			st.add(name, stat.NotMatch, 1, off)
			return false
		}
		return im.legacyEvent(track, ipid, itid, ev)
	case 's', 't', 'f':
		if _, ok := tracker.NormaliseID(ev.ID); !im.accept(name, off, !ok) {
			return false
		}
		c := im.flows.Counts
		im.flows.V1(itid, ev)
		return !im.flowCounts(c, off)
	case 'P':
		st.add(name, stat.Received, 1, off)
		c := im.samples.Counts
		im.samples.P(ipid, itid, ev)
		st.add(name, stat.NotMatch, im.samples.Counts.NotMatch-c.NotMatch, off)
		st.add(name, stat.InvalidData, im.samples.Counts.Invalid-c.Invalid, off)
	case 'N', 'O', 'D':
		c := im.objects.Counts
		im.objects.Add(ipid, itid, ev)
		n := im.objects.Counts
		if !im.accept(name, off, n.BadID > c.BadID) {
			return false
		}
		st.add(name, stat.NotMatch, (n.NewAlive-c.NewAlive)+(n.SnapshotImplicit-c.SnapshotImplicit)+
			(n.DeleteNone-c.DeleteNone), off)
		st.add(name, stat.InvalidData, n.SnapshotInvalid-c.SnapshotInvalid, off)
		return n.DeleteNone == c.DeleteNone && n.SnapshotInvalid == c.SnapshotInvalid
	case 'M':
		st.add(name, stat.Received, 1, off)
		c := im.meta.Counts
		im.meta.Add(im.threads, ipid, itid, ev)
		st.add(name, stat.NotSupported, im.meta.Counts.NotSupported-c.NotSupported, off)
		st.add(name, stat.InvalidData, im.meta.Counts.InvalidData-c.InvalidData, off)
		if ev.Name == "stackFrames" {
			if raw, ok := event.ArgRaw(ev.Args, "stackFrames"); ok {
				n := len(im.frames.Rows)
				im.frames.AddStackFrames(raw, "metadata", ipid)
				st.add(stat.JSONStackFrames, stat.Received, int64(len(im.frames.Rows)-n), off)
			}
		}
	case 'V', 'v':
		inv := im.dumps.Invalid
		im.dumps.Add(ipid, itid, ev)
		if !im.accept(name, off, im.dumps.Invalid > inv) {
			return false
		}
	case 'c':
		c := im.markers.Counts
		im.markers.ClockSync(itid, ev)
		if !im.accept(name, off, im.markers.Counts.ClockSyncInvalid > c.ClockSyncInvalid) {
			return false
		}
	case '(', ')':
		c := im.markers.Counts
		im.markers.Context(ipid, itid, ev)
		n := im.markers.Counts
		if !im.accept(name, off, n.ContextInvalid > c.ContextInvalid) {
			return false
		}
		st.add(name, stat.NotMatch, n.ContextUnmatched-c.ContextUnmatched, off)
	case '=':
		c := im.markers.Counts
		im.markers.Link(itid, ev)
		if !im.accept(name, off, im.markers.Counts.LinkedInvalid > c.LinkedInvalid) {
			return false
		}
		st.add(name, stat.NotSupported, 1, off)
	}
	return true
}
