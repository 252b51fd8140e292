package traceevent

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/parser/traceevent/tracker"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
)

// invalidID is the reference's 32-bit "invalid" marker that lands in
// callstack.parent_id (depth 0) and child_callid (synchronous slices).
const invalidID = 4294967295

// closeSlice takes a slice that is final: it writes the slice's pending
// arguments and hands its rows to the order buffer.
func (im *Importer) closeSlice(r *tracker.Slice) {
	if r.PendArgs != nil {
		// A slice never closed keeps the arguments of its start.
		im.args.write(r.ArgSet, r.PendArgs)
		r.PendArgs = nil
	}
	if r.HasDur {
		im.sliceThreads[r.Itid] = true
		im.env.Range.Add(r.TS + r.Dur)
	}
	im.order.push(r, im.writeSlice)
}

// writeSlice writes one callstack row and its callstack_extra row, and
// gives the slice back to the tracker.
func (im *Importer) writeSlice(r *tracker.Slice) {
	im.writeSliceRows(r)
	im.slices.Release(r)
}

// writeSliceRows writes one callstack row and its callstack_extra row.
func (im *Importer) writeSliceRows(r *tracker.Slice) {
	async := r.Cookie >= 0
	a := im.app.callstack
	a.RowID(r.ID + 1) // rowids keep id order whatever the order of writing
	a.I(r.ID)
	a.I(r.TS)
	a.IOpt(r.Dur, r.HasDur)
	a.I(int64(r.Itid))
	a.TOpt(r.Cat, r.HasCat)
	a.TOpt(r.Name, r.HasName)
	a.I(int64(r.Depth))
	if async {
		a.I(int64(r.Cookie))
		a.I(int64(r.Emit))
	} else {
		a.Null()
		if r.ParentID < 0 {
			a.I(invalidID)
		} else {
			a.I(r.ParentID)
		}
	}
	a.IOpt(r.ArgSet, r.HasArgSet)
	for range 8 { // chainId … custom_args
		a.TNull()
	}
	if async {
		a.I(int64(r.Emit))
	} else {
		a.I(invalidID)
	}
	a.End()

	if !async && !r.HasThreadTS && !r.HasThreadDur && r.SF == 0 && r.ESF == 0 && r.CName == "" && !r.Overlap {
		return
	}
	x := im.app.extra
	x.RowID(r.ID + 1) // callstack_id order, with gaps where a slice has no extra row
	x.I(r.ID)
	x.IOpt(r.ThreadTS, r.HasThreadTS)
	x.IOpt(r.ThreadDur, r.HasThreadDur)
	x.IOpt(int64(r.Cookie), async)
	x.IOpt(r.ParentID, async && r.ParentID >= 0)
	x.IOpt(int64(r.EndItid), async && r.HasEndItid)
	x.IOpt(int64(r.SF)-1, r.SF != 0)
	x.IOpt(int64(r.ESF)-1, r.ESF != 0)
	x.TOpt(r.CName, r.CName != "")
	x.IOpt(1, r.Overlap)
	x.End()
}

// drain writes the rows other trackers made for the latest event, which are
// final when made, and forgets them.
func (im *Importer) drain() {
	for i := range im.instants.Rows {
		in := &im.instants.Rows[i]
		a := im.app.instant
		a.I(in.TS)
		a.TOpt(in.Name, in.HasName)
		ref, ok := in.Ref()
		a.IOpt(int64(ref), ok)
		a.Null()
		a.T(in.RefType())
		a.Real(0)
		a.End()
		x := im.app.instantExtra
		x.I(int64(in.RowID))
		x.T(string(in.Scope))
		x.TOpt(in.Cat, in.HasCat)
		x.I(int64(in.Itid))
		set := im.args.add(in.Args)
		x.IOpt(set, set != none)
		sf := im.frameRef(in.SF)
		x.IOpt(int64(sf)-1, sf != 0)
		x.End()
	}
	im.instants.Base += len(im.instants.Rows)
	im.instants.Rows = im.instants.Rows[:0]

	for i := range im.flows.Rows {
		f := &im.flows.Rows[i]
		a := im.app.flow
		a.I(int64(f.ID))
		a.I(int64(f.Version))
		a.I(f.Out)
		a.I(f.In)
		a.TOpt(f.Cat, f.Version == 1 && f.HasCat)
		a.TOpt(f.Name, f.Version == 1 && f.HasName)
		a.T(f.Key)
		set := int64(none)
		if f.Version == 1 {
			if list := mergeArgs(event.FlattenOrNil(f.SrcArgs), event.FlattenOrNil(f.DstArgs)); len(list) > 0 {
				set = im.args.alloc()
				im.args.write(set, list)
			}
		}
		a.IOpt(set, set != none)
		a.End()
	}
	im.flows.Base += len(im.flows.Rows)
	im.flows.Rows = im.flows.Rows[:0]

	for i := range im.meta.Rows {
		m := &im.meta.Rows[i]
		a := im.app.meta
		a.I(int64(m.ID))
		a.IOpt(m.TS, m.HasTS)
		a.I(int64(m.Ipid))
		a.I(int64(m.Itid))
		a.TOpt(m.Name, m.HasName)
		set := im.args.add(m.Args)
		a.IOpt(set, set != none)
		a.End()
	}
	im.meta.Base += len(im.meta.Rows)
	im.meta.Rows = im.meta.Rows[:0]

	im.drainSamples()

	d := &im.dumps
	for i := range d.Dumps {
		m := &d.Dumps[i]
		a := im.app.dump
		a.I(int64(m.ID))
		a.TOpt(m.DumpID, m.DumpID != "")
		a.T(m.Kind)
		a.I(m.TS)
		a.I(int64(m.Ipid))
		a.I(int64(m.Itid))
		a.TOpt(m.LevelOfDetail, m.LevelOfDetail != "")
		a.TOpt(string(m.ExtraJSON), m.ExtraJSON != nil)
		set := im.args.add(m.Args)
		a.IOpt(set, set != none)
		a.End()
	}
	for i := range d.Values {
		v := &d.Values[i]
		a := im.app.value
		a.I(int64(v.ID))
		a.I(int64(v.DumpID))
		a.T(v.Source)
		a.TOpt(v.Path, v.HasPath)
		a.TOpt(v.GUID, v.GUID != "")
		a.T(v.Attr)
		a.TOpt(v.Type, v.Type != "")
		a.TOpt(v.Units, v.Units != "")
		a.IOpt(v.Int, v.HasInt)
		a.TOpt(v.Str, v.HasStr)
		a.End()
	}
	for i := range d.Edges {
		e := &d.Edges[i]
		a := im.app.edge
		a.I(int64(e.ID))
		a.I(int64(e.DumpID))
		a.T(e.Source)
		a.T(e.Target)
		a.I(e.Importance)
		a.TOpt(e.Type, e.Type != "")
		a.End()
	}
	d.Base.Dumps += len(d.Dumps)
	d.Base.Values += len(d.Values)
	d.Base.Edges += len(d.Edges)
	d.Dumps, d.Values, d.Edges = d.Dumps[:0], d.Values[:0], d.Edges[:0]

	mk := im.markers
	for _, c := range mk.ClockSyncs {
		a := im.app.clock
		a.I(int64(c.ID))
		a.T(c.SyncID)
		a.I(c.TS)
		a.IOpt(c.IssueTS, c.HasIssue)
		a.I(int64(c.Itid))
		a.T(c.Source)
		a.End()
	}
	for _, c := range mk.Contexts {
		a := im.app.context
		a.I(int64(c.ID))
		a.I(c.TS)
		a.I(int64(c.Itid))
		a.T(c.Phase)
		a.TOpt(c.Cat, c.Cat != "")
		a.TOpt(c.Name, c.Name != "")
		a.TOpt(c.Scope, c.Scope != "")
		a.T(c.IDKind)
		a.T(c.RawID)
		a.End()
	}
	for _, l := range mk.Linked {
		a := im.app.link
		a.I(int64(l.ID))
		a.I(l.TS)
		a.I(int64(l.Itid))
		a.TOpt(l.Cat, l.Cat != "")
		a.TOpt(l.Name, l.Name != "")
		a.TOpt(l.Scope, l.Scope != "")
		a.T(l.IDKind)
		a.T(l.RawID)
		a.T(l.LinkedRawID)
		a.End()
	}
	mk.Base.ClockSyncs += len(mk.ClockSyncs)
	mk.Base.Contexts += len(mk.Contexts)
	mk.Base.Linked += len(mk.Linked)
	mk.ClockSyncs, mk.Contexts, mk.Linked = mk.ClockSyncs[:0], mk.Contexts[:0], mk.Linked[:0]

	for i := len(im.snapArgs); i < len(im.objects.Snapshots); i++ {
		s := &im.objects.Snapshots[i]
		im.snapArgs = append(im.snapArgs, im.args.add(s.Args))
		s.Args = nil
	}
}

// drainSamples writes the stack samples made so far.
func (im *Importer) drainSamples() {
	for i := range im.samples.Rows {
		s := &im.samples.Rows[i]
		im.env.Range.Add(s.TS)
		a := im.app.sample
		a.I(int64(s.ID))
		a.T(s.Source)
		a.IOpt(int64(s.CPUProfileID), s.CPUProfileID >= 0)
		a.I(s.TS)
		a.I(int64(s.Itid))
		a.IOpt(s.CPU, s.HasCPU)
		a.TOpt(s.Name, s.HasName)
		a.IOpt(int64(s.FrameID), s.FrameID >= 0)
		if s.HasWeightReal {
			a.Real(s.WeightReal)
		} else {
			a.I(s.Weight)
		}
		set := im.args.add(s.Args)
		a.IOpt(set, set != none)
		a.End()
	}
	im.samples.Base += len(im.samples.Rows)
	im.samples.Rows = im.samples.Rows[:0]
}

// topLevelFirst handles the top-level members needed before the events: the
// stackFrames object (docs/format/traceevent.md#samples-and-stack-frames, docs/format/traceevent.md#containers) and a traceEvents that is not an array.
func (im *Importer) topLevelFirst(rd *tokenizer.Reader) {
	if raw, ok := rd.Other["stackFrames"]; ok {
		n := len(im.frames.Rows)
		im.frames.AddStackFrames(raw, "stackFrames", -1)
		im.stats.Add(stat.JSONStackFrames, stat.Received, int64(len(im.frames.Rows)-n), 0)
	}
	if _, ok := rd.Other["traceEvents"]; ok {
		im.stats.Add(stat.JSONFile, stat.NotSupported, 1, 0)
	}
}

// topLevelLast handles the other top-level members after the events: the
// samples array and the trace_config rows (docs/format/traceevent.md#top-level-keys).
func (im *Importer) topLevelLast(rd *tokenizer.Reader, in Input, size int64) {
	if raw, ok := rd.Other["samples"]; ok {
		im.samples.TopLevel(raw, func(tid event.Ident) int {
			itid, ok := im.sampleTIDs[tid]
			if !ok {
				itid = im.threads.ByTid(tid)
				im.sampleTIDs[tid] = itid
			}
			return itid
		})
		// Processed in (ts, array order).
		slices.SortStableFunc(im.samples.Rows, func(a, b tracker.StackSample) int { return cmp.Compare(a.TS, b.TS) })
		for i := range im.samples.Rows {
			im.samples.Rows[i].ID = im.samples.Base + i
		}
		im.stats.Add(stat.JSONSamples, stat.Received, int64(len(im.samples.Rows)), -1)
		im.drainSamples()
	}
	container := "array"
	if rd.Form() == tokenizer.ObjectForm {
		container = "object"
	}
	compression := in.Compression
	if compression == "" {
		compression = "none"
	}
	im.configRow("container", container)
	im.configRow("compression", compression)
	im.configRow("uncompressed_size", strconv.FormatInt(size, 10))
	for _, key := range rd.OtherKeys {
		raw := rd.Other[key]
		switch key {
		case "traceEvents", "stackFrames", "samples":
		case "displayTimeUnit":
			im.stats.Add(stat.JSONDisplayTimeUnit, stat.Received, 1, -1)
			text, ok := event.StringValue(raw)
			if !ok || (text != "ms" && text != "ns") {
				im.stats.Add(stat.JSONDisplayTimeUnit, stat.NotSupported, 1, -1)
			}
			if !ok {
				text = string(raw)
			}
			im.configRow(key, text)
		case "controllerTraceDataKey":
			text, ok := event.StringValue(raw)
			if !ok {
				text = string(raw)
			}
			im.configRow(key, text)
		case "otherData", "metadata":
			configLeaves(raw, key, 0, im.configRow)
		case "systemTraceEvents":
			im.stats.Add(stat.JSONSystemTraceEvents, stat.Received, 1, -1)
			if raw != nil { // else streamed as it was read
				im.systemTraceEvents(raw)
			}
		default:
			im.stats.Add(stat.JSONTopLevel, stat.Received, 1, -1)
			im.configRow(key, string(raw))
		}
	}
}

// configRow writes one trace_config row of this importer.
func (im *Importer) configRow(key, value string) {
	a := im.app.config
	a.I(im.configID)
	a.T("trace_event_json")
	a.T(key)
	a.T(value)
	a.End()
	im.configID++
}

// configLeaves flattens a JSON value into key/value text pairs with the
// argument key rules (docs/format/traceevent.md#top-level-keys): numbers in their JSON spelling,
// strings decoded, booleans and null as their literals.
func configLeaves(raw []byte, key string, depth int, emit func(key, value string)) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	js := jsonscan.NewBytes(raw)
	switch raw[0] {
	case '{', '[':
		if depth >= event.MaxArgDepth || isEmptyContainer(raw) {
			emit(key, string(raw))
			return
		}
		visit := func(sub string) error {
			start := js.Offset()
			if err := js.SkipValue(); err != nil {
				return err
			}
			configLeaves(raw[start:js.Offset()], sub, depth+1, emit)
			return nil
		}
		if raw[0] == '{' {
			js.Object(func(k []byte) error { return visit(key + "." + string(k)) })
		} else {
			js.Array(func(i int) error { return visit(key + "[" + strconv.Itoa(i) + "]") })
		}
	case '"':
		b, err := js.ReadString(nil)
		if err != nil {
			emit(key, string(raw))
			return
		}
		emit(key, string(b))
	default:
		emit(key, string(raw))
	}
}

func isEmptyContainer(raw []byte) bool {
	return len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0 && len(raw) >= 2
}

// systemChunk is the largest system_trace_events data value (docs/format/traceevent.md#system_trace_events).
const systemChunk = 64 << 20

// systemText cuts systemTraceEvents values into system_trace_events rows.
type systemText struct {
	chunk int    // the largest data value: systemChunk (tests set less)
	buf   []byte // streamed text not yet written
	seq   int64  // chunk number within the value
	id    int64  // next row id
}

// systemTraceEvents stores a systemTraceEvents value read whole: a string
// (when the reader did not stream it) as text, anything else as JSON.
func (im *Importer) systemTraceEvents(raw []byte) {
	kind, data := "json", raw
	if len(raw) > 0 && raw[0] == '"' {
		if b, err := jsonscan.NewBytes(raw).ReadString(nil); err == nil {
			kind, data = "text", b
		}
	}
	im.systemRows(kind, data, true)
}

// systemPart takes a part of a systemTraceEvents string as the reader
// streams it (Reader.SystemText) and writes the chunks that are complete.
func (im *Importer) systemPart(part []byte, end bool) {
	st := &im.system
	st.buf = append(st.buf, part...)
	rest := im.systemRows("text", st.buf, end)
	st.buf = append(st.buf[:0], rest...)
}

// systemRows writes data as rows of kind, in chunks of at most st.chunk
// bytes split after a newline in a chunk's last MiB when there is one, and
// never inside a UTF-8 sequence (docs/format/traceevent.md#system_trace_events). Unless end is set, it returns
// the data after the last full chunk unwritten, to be continued; a value
// gets one row even when empty.
func (im *Importer) systemRows(kind string, data []byte, end bool) []byte {
	st := &im.system
	for len(data) > st.chunk || (end && (len(data) > 0 || st.seq == 0)) {
		n := len(data)
		if n > st.chunk {
			n = st.chunk
			window := min(st.chunk, 1<<20)
			if nl := bytes.LastIndexByte(data[n-window:n], '\n'); nl >= 0 {
				n = n - window + nl + 1
			} else {
				for n > 0 && !utf8.RuneStart(data[n]) {
					n--
				}
			}
		}
		a := im.app.system
		a.I(st.id)
		a.T(kind)
		a.I(st.seq)
		a.T(string(data[:n]))
		a.End()
		st.id++
		st.seq++
		data = data[n:]
	}
	if end {
		st.seq = 0
	}
	return data
}

// Finish ends the import: it closes the books on what is still open, writes
// the rows kept until the end (processes, threads, counters, frames, tracks,
// objects, profiles) and the stat counts. Call it once, after the last Read,
// and only if some file was read.
func (im *Importer) Finish() {
	st := &im.stats
	im.slices.Finish()
	var nestableOpen int64
	im.slices.EachOpen(func(r *tracker.Slice) { // no order needed to count
		if r.Cookie >= 0 && !r.HasDur && im.tracks.Rows[r.Cookie].Kind == "nestable" {
			nestableOpen++
		}
	})
	st.Add(stat.JSONNestableBegin, stat.NotMatch, nestableOpen, -1)
	im.legacy.Finish()
	im.flows.Finish()
	im.slices.TakeAll(im.closeSlice)
	im.order.flush(im.writeSlice)
	im.frames.Resolve()
	st.Add(stat.JSONStackFrames, stat.NotMatch, im.frames.UnknownParents, -1)
	im.drain()
	im.stats.flush(im.env.Log, im.lastPath)
	im.countMarkers()

	im.writeFrames()
	im.writeTracks()
	im.writeCounters()
	im.writeObjects()
	im.writeProfiles()
	im.writeThreads()
	im.args.app.Flush()
	ap := &im.app
	for _, a := range []*rows.Appender{ap.callstack, ap.extra, ap.instant, ap.instantExtra, ap.flow, ap.sample,
		ap.meta, ap.dump, ap.value, ap.edge, ap.clock, ap.context, ap.link, ap.config, ap.system} {
		a.Flush()
	}
}

// markerEvents are the stat rows of the phases that are the JSON form of
// user-space trace markers: slices, async slices, instants and counters, the
// events trace_streamer turns into callstack and measure rows.
var markerEvents = [...]stat.Event{stat.JSONBegin, stat.JSONEnd, stat.JSONComplete, stat.JSONInstant, stat.JSONMark,
	stat.JSONCounter, stat.JSONNestableBegin, stat.JSONNestableInstant, stat.JSONNestableEnd, stat.JSONAsyncStart,
	stat.JSONAsyncStepInto, stat.JSONAsyncStepPast, stat.JSONAsyncFinish}

// countMarkers counts those events once more under tracing_mark_write/received,
// as trace_streamer counts every user-space trace marker it reads, valid or
// not (docs/compat.md). SmartPerf-Host draws no process or thread rows unless
// that count (or print's or sched_switch's) is above zero. Their problems stay
// counted once, in the json_* rows.
func (im *Importer) countMarkers() {
	var n int64
	for _, e := range markerEvents {
		n += im.env.Log.Count(e, stat.Received) + im.env.Log.Count(e, stat.InvalidData)
	}
	im.env.Log.Add(stat.TracingMarkWrite, stat.Received, n)
}

func (im *Importer) writeFrames() {
	a := rows.NewAppender(im.env.Sink, im.t.StackFrame)
	for _, f := range im.frames.Rows {
		a.I(int64(f.ID))
		a.T(f.Source)
		a.IOpt(int64(f.Ipid), f.Ipid >= 0)
		a.IOpt(int64(f.CPUProfileID), f.CPUProfileID >= 0)
		a.T(f.Key)
		a.IOpt(int64(f.ParentID), f.ParentID >= 0)
		a.TOpt(f.Name, f.Name != "")
		a.TOpt(f.Category, f.Category != "")
		a.TOpt(f.URL, f.URL != "")
		a.TOpt(f.ScriptID, f.ScriptID != "")
		a.IOpt(f.Line, f.HasLine)
		a.IOpt(f.Column, f.HasLine)
		a.End()
	}
	a.Flush()
}

func (im *Importer) writeTracks() {
	a := rows.NewAppender(im.env.Sink, im.t.AsyncTrack)
	for _, t := range im.tracks.Rows {
		a.I(int64(t.ID))
		a.T(t.Kind)
		a.TOpt(t.Cat, t.HasCat)
		a.TOpt(t.Name, t.Kind == "legacy" && t.Name != "")
		a.TOpt(t.Scope, t.Scope != "")
		a.T(t.IDKind)
		a.T(t.RawID)
		a.IOpt(int64(t.Ipid), t.Ipid >= 0)
		a.End()
	}
	a.Flush()
}

// writeCounters writes the counter series: measure_filter and
// process_measure_filter rows (one id per series), then the samples.
func (im *Importer) writeCounters() {
	mf := rows.NewAppender(im.env.Sink, im.t.MeasureFilter)
	pmf := rows.NewAppender(im.env.Sink, im.t.ProcessMeasureFilter)
	for id, f := range im.counters.Filters {
		mf.I(int64(id))
		mf.T("process_measure_filter")
		mf.T(f.Name)
		mf.I(int64(f.Ipid))
		mf.End()
		pmf.I(int64(id))
		pmf.T(f.Name)
		pmf.I(int64(f.Ipid))
		pmf.End()
	}
	mf.Flush()
	pmf.Flush()
	pm := rows.NewAppender(im.env.Sink, im.t.ProcessMeasure)
	for _, s := range im.counters.Samples {
		pm.T("measure")
		pm.I(s.TS)
		pm.IOpt(s.Dur, s.HasDur)
		if v, err := strconv.ParseInt(string(s.Value), 10, 64); err == nil {
			pm.I(v)
		} else if f, err := strconv.ParseFloat(string(s.Value), 64); err == nil && !math.IsInf(f, 0) {
			pm.Real(f)
		} else {
			pm.Null()
		}
		pm.I(int64(s.Filter))
		pm.End()
	}
	pm.Flush()
}

func (im *Importer) writeObjects() {
	a := rows.NewAppender(im.env.Sink, im.t.ObjectInstance)
	for _, o := range im.objects.Instances {
		a.I(int64(o.ID))
		a.I(int64(o.Ipid))
		a.TOpt(o.Scope, o.Scope != "")
		a.T(o.IDKind)
		a.T(o.RawID)
		a.TOpt(o.Cat, o.Cat != "")
		a.TOpt(o.Name, o.Name != "")
		a.I(o.CreateTS)
		a.I(int64(o.CreateItid))
		a.IOpt(o.DeleteTS, o.Deleted)
		a.IOpt(int64(o.DeleteItid), o.Deleted)
		explicit := int64(0)
		if o.ExplicitCreate {
			explicit = 1
		}
		a.I(explicit)
		a.End()
	}
	a.Flush()
	s := rows.NewAppender(im.env.Sink, im.t.ObjectSnapshot)
	for i, o := range im.objects.Snapshots {
		s.I(int64(o.ID))
		s.I(int64(o.ObjectID))
		s.I(o.TS)
		s.I(int64(o.Itid))
		s.TOpt(o.Cat, o.Cat != "")
		s.TOpt(o.Name, o.Name != "")
		s.TOpt(o.BaseType, o.BaseType != "")
		s.IOpt(im.snapArgs[i], im.snapArgs[i] != none)
		s.End()
	}
	s.Flush()
}

func (im *Importer) writeProfiles() {
	a := rows.NewAppender(im.env.Sink, im.t.CPUProfile)
	for _, p := range im.samples.Profiles {
		a.I(int64(p.ID))
		a.I(int64(p.Ipid))
		a.I(int64(p.Itid))
		a.T(p.Key)
		a.I(p.StartTS)
		a.End()
	}
	a.Flush()
}

// writeThreads writes the process and thread tables with their names (spec
// docs/format/traceevent.md#names) and the counts the UI uses to show a process.
func (im *Importer) writeThreads() {
	writeThreadTables(im.env.Sink, im.t, im.threads, im.sliceThreads, im.counters.Filters)
}

// WritePlaceholderThreads writes the process and thread tables of a run
// without Trace Event input: only row 0 of each, the reference's "swapper"
// placeholder. This package is the one writer of both tables.
func WritePlaceholderThreads(sink rows.Sink, t *schema.Tables) {
	writeThreadTables(sink, t, tracker.NewThreads(nil), nil, nil)
}

// writeThreadTables writes one process row per process of th and one thread
// row per thread, with the counts of threads, threads with slices
// (sliceThreads) and counter series (filters) per process.
func writeThreadTables(sink rows.Sink, tables *schema.Tables, th *tracker.Threads, sliceThreads map[int]bool,
	filters []tracker.CounterFilter) {
	threadCount := make([]int64, len(th.Processes))
	sliceCount := make([]int64, len(th.Processes))
	for itid, t := range th.Threads {
		if itid == 0 {
			continue
		}
		threadCount[t.Ipid]++
		if sliceThreads[itid] {
			sliceCount[t.Ipid]++
		}
	}
	memCount := make([]int64, len(th.Processes))
	for _, f := range filters {
		memCount[f.Ipid] = 1
	}
	p := rows.NewAppender(sink, tables.Process)
	for ipid, pr := range th.Processes {
		name, ok := th.ProcessName(ipid)
		p.I(int64(ipid))
		p.I(int64(ipid))
		p.I(pr.Pid)
		p.TOpt(name, ok)
		p.Null()
		p.I(0)
		p.I(threadCount[ipid])
		p.I(sliceCount[ipid])
		p.I(memCount[ipid])
		p.End()
	}
	p.Flush()
	t := rows.NewAppender(sink, tables.Thread)
	for itid, tr := range th.Threads {
		name, ok := th.ThreadName(itid)
		t.I(int64(itid))
		t.I(int64(itid))
		t.I(tr.Tid)
		t.TOpt(name, ok)
		t.Null()
		t.Null()
		t.I(int64(tr.Ipid))
		main := int64(0)
		if itid > 0 && tr.Tid == th.Processes[tr.Ipid].Pid {
			main = 1
		}
		t.I(main)
		t.I(0)
		t.End()
	}
	t.Flush()
}
