package traceevent

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/parser/traceevent/tracker"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// invalidID is the reference's 32-bit "invalid" marker that lands in
// callstack.parent_id (depth 0) and child_callid (synchronous slices).
const invalidID = 4294967295

// closeSlice takes a slice that is final: it writes the slice's pending
// arguments and hands its rows to the order buffer.
func (im *Importer) closeSlice(r *tracker.Slice) {
	if im.halted() {
		return
	}
	if r.PendArgs != nil {
		// A slice never closed keeps the arguments of its start.
		r.ArgSet = im.args.set(r.PendArgs)
		r.PendArgs = nil
	}
	if r.HasDur {
		if r.Itid >= len(im.sliceThreads) {
			im.sliceThreads = append(im.sliceThreads, make([]bool, r.Itid+1-len(im.sliceThreads))...)
		}
		im.sliceThreads[r.Itid] = true
		im.env.Range.Add(r.TS + r.Dur)
	}
	im.order.push(r, im.writeSlice)
}

// writeSlice writes one callstack row and its callstack_extra row, and
// gives the slice back to the tracker.
func (im *Importer) writeSlice(r *tracker.Slice) {
	if !im.halted() {
		im.writeSliceRows(r)
	}
	im.slices.Release(r)
}

// writeSliceRows writes one callstack row and its callstack_extra row.
func (im *Importer) writeSliceRows(r *tracker.Slice) {
	async := r.Cookie >= 0
	row := tables.Callstack{
		ID:             r.ID,
		TS:             r.TS,
		Dur:            rows.IOpt(r.Dur, r.HasDur),
		Callid:         int64(r.Itid),
		Cat:            rows.SOpt(r.Cat, r.HasCat),
		Name:           rows.SOpt(r.Name, r.HasName),
		Depth:          int64(r.Depth),
		Cookie:         rows.IOpt(int64(r.Cookie), async),
		ParentID:       rows.I(invalidID),
		Argsetid:       rows.IOpt(r.ArgSet, r.HasArgSet),
		ChainID:        rows.Text{}, // HiTrace columns: filled for flows by analysis/flowchains
		SpanID:         rows.Text{},
		ParentSpanID:   rows.Text{},
		Flag:           rows.Text{},
		TraceLevel:     rows.Text{},
		TraceTag:       rows.Text{},
		CustomCategory: rows.Text{},
		CustomArgs:     rows.Text{},
		ChildCallid:    invalidID,
	}
	if async {
		row.ParentID = rows.I(int64(r.Emit))
		row.ChildCallid = int64(r.Emit)
	} else if r.ParentID >= 0 {
		row.ParentID = rows.I(r.ParentID)
	}
	im.app.callstack.AppendAt(r.ID+1, &row) // rowids keep id order whatever the order of writing

	if !async && !r.HasThreadTS && !r.HasThreadDur && r.SF == 0 && r.ESF == 0 && r.CName == "" && !r.Overlap {
		return
	}
	im.app.extra.AppendAt(r.ID+1, &tables.CallstackExtra{ // callstack_id order, with gaps where a slice has none
		CallstackID:     r.ID,
		ThreadTS:        rows.IOpt(r.ThreadTS, r.HasThreadTS),
		ThreadDur:       rows.IOpt(r.ThreadDur, r.HasThreadDur),
		AsyncTrackID:    rows.IOpt(int64(r.Cookie), async),
		AsyncParentID:   rows.IOpt(r.ParentID, async && r.ParentID >= 0),
		EndItid:         rows.IOpt(int64(r.EndItid), async && r.HasEndItid),
		StackFrameID:    rows.IOpt(int64(r.SF)-1, r.SF != 0),
		EndStackFrameID: rows.IOpt(int64(r.ESF)-1, r.ESF != 0),
		Cname:           rows.SOpt(r.CName, r.CName != ""),
		Overlap:         rows.IOpt(1, r.Overlap),
	})
}

// drain asks the trackers other than slices for the rows they made for the
// latest event, which are final when made, and writes them.
func (im *Importer) drain() {
	im.writeInstants()
	im.writeFlows()
	im.writeMetadata()
	im.writeSamples()
	im.writeTracks()
	im.writeDumps()
	im.writeMarkers()
	for i := len(im.snapArgs); i < len(im.objects.Snapshots); i++ {
		s := &im.objects.Snapshots[i]
		im.snapArgs = append(im.snapArgs, im.args.add(s.Args))
		s.Args = nil
	}
}

// writeInstants writes the process and global instants made so far.
func (im *Importer) writeInstants() {
	for _, in := range im.instants.Take() {
		if im.halted() {
			return
		}
		ref, ok := in.Ref()
		im.app.instant.Append(&tables.Instant{
			TS:         in.TS,
			Name:       rows.SOpt(in.Name, in.HasName),
			Ref:        rows.IOpt(int64(ref), ok),
			WakeupFrom: rows.Int{},
			RefType:    in.RefType(),
			Value:      0,
		})
		set := im.args.add(in.Args)
		sf := im.frameRef(in.SF)
		im.app.instantExtra.Append(&tables.InstantExtra{
			InstantRowid: int64(in.RowID),
			Scope:        string(in.Scope),
			Cat:          rows.SOpt(in.Cat, in.HasCat),
			Itid:         int64(in.Itid),
			Argsetid:     rows.IOpt(set, set != none),
			StackFrameID: rows.IOpt(int64(sf)-1, sf != 0),
		})
	}
}

// writeFlows writes the flow arrows and flow events made so far.
func (im *Importer) writeFlows() {
	if !im.flows.Pending() {
		return
	}
	made := im.flows.Take()
	for _, f := range made.Arrows {
		if im.halted() {
			return
		}
		set := int64(none)
		if f.Version == 1 {
			if list := im.args.mergedFlat(f.SrcArgs, f.DstArgs); len(list) > 0 {
				set = im.args.set(list)
			}
		}
		im.app.flow.Append(&tables.Flow{
			ID:       int64(f.ID),
			Version:  int64(f.Version),
			SliceOut: f.Out,
			SliceIn:  f.In,
			Cat:      rows.SOpt(f.Cat, f.Version == 1 && f.HasCat),
			Name:     rows.SOpt(f.Name, f.Version == 1 && f.HasName),
			FlowKey:  f.Key,
			Argsetid: rows.IOpt(set, set != none),
		})
	}
	for _, e := range made.Events {
		if im.halted() {
			return
		}
		set := im.args.add(e.Args)
		im.app.flowEvent.Append(&tables.FlowEvent{
			ID:       int64(e.ID),
			TS:       e.TS,
			Itid:     int64(e.Itid),
			Phase:    string(e.Phase),
			Cat:      rows.SOpt(e.Cat, e.HasCat),
			Name:     rows.SOpt(e.Name, e.HasName),
			FlowKey:  rows.SOpt(e.Key, e.HasKey),
			Bp:       rows.SOpt(e.BP, e.BP != ""),
			SliceID:  rows.IOpt(e.Slice, e.Slice >= 0),
			FlowID:   rows.IOpt(int64(e.Arrow), e.Arrow >= 0),
			Argsetid: rows.IOpt(set, set != none),
		})
	}
}

// writeMetadata writes the metadata_event rows made so far.
func (im *Importer) writeMetadata() {
	for _, m := range im.meta.Take() {
		if im.halted() {
			return
		}
		set := im.args.add(m.Args)
		im.app.meta.Append(&tables.MetadataEvent{
			ID:       int64(m.ID),
			TS:       rows.IOpt(m.TS, m.HasTS),
			Ipid:     int64(m.Ipid),
			Itid:     int64(m.Itid),
			Name:     rows.SOpt(m.Name, m.HasName),
			Argsetid: rows.IOpt(set, set != none),
		})
	}
}

// writeDumps writes the memory dumps made so far.
func (im *Importer) writeDumps() {
	if !im.dumps.Pending() {
		return
	}
	d := im.dumps.Take()
	for _, m := range d.Dumps {
		if im.halted() {
			return
		}
		set := im.args.add(m.Args)
		im.app.dump.Append(&tables.MemoryDump{
			ID:            int64(m.ID),
			DumpID:        rows.SOpt(m.DumpID, m.DumpID != ""),
			Kind:          m.Kind,
			TS:            m.TS,
			Ipid:          int64(m.Ipid),
			Itid:          int64(m.Itid),
			LevelOfDetail: rows.SOpt(m.LevelOfDetail, m.LevelOfDetail != ""),
			ExtraJSON:     rows.SOpt(string(m.ExtraJSON), m.ExtraJSON != nil),
			Argsetid:      rows.IOpt(set, set != none),
		})
	}
	for _, v := range d.Values {
		if im.halted() {
			return
		}
		im.app.value.Append(&tables.MemoryDumpValue{
			ID:           int64(v.ID),
			MemoryDumpID: int64(v.DumpID),
			Source:       v.Source,
			Path:         rows.SOpt(v.Path, v.HasPath),
			GUID:         rows.SOpt(v.GUID, v.GUID != ""),
			Attr:         v.Attr,
			Type:         rows.SOpt(v.Type, v.Type != ""),
			Units:        rows.SOpt(v.Units, v.Units != ""),
			IntValue:     rows.IOpt(v.Int, v.HasInt),
			StrValue:     rows.SOpt(v.Str, v.HasStr),
		})
	}
	for _, e := range d.Edges {
		if im.halted() {
			return
		}
		im.app.edge.Append(&tables.MemoryDumpEdge{
			ID:           int64(e.ID),
			MemoryDumpID: int64(e.DumpID),
			SourceGUID:   e.Source,
			TargetGUID:   e.Target,
			Importance:   e.Importance,
			Type:         rows.SOpt(e.Type, e.Type != ""),
		})
	}
}

// writeMarkers writes the clock sync markers, context events and linked ids
// made so far.
func (im *Importer) writeMarkers() {
	if !im.markers.Pending() {
		return
	}
	mk := im.markers.Take()
	for _, c := range mk.ClockSyncs {
		im.app.clock.Append(&tables.ClockSyncMarker{
			ID:      int64(c.ID),
			SyncID:  c.SyncID,
			TS:      c.TS,
			IssueTS: rows.IOpt(c.IssueTS, c.HasIssue),
			Itid:    int64(c.Itid),
			Source:  c.Source,
		})
	}
	for _, c := range mk.Contexts {
		im.app.context.Append(&tables.ContextEvent{
			ID:     int64(c.ID),
			TS:     c.TS,
			Itid:   int64(c.Itid),
			Phase:  c.Phase,
			Cat:    rows.SOpt(c.Cat, c.Cat != ""),
			Name:   rows.SOpt(c.Name, c.Name != ""),
			Scope:  rows.SOpt(c.Scope, c.Scope != ""),
			IDKind: c.IDKind,
			RawID:  c.RawID,
		})
	}
	for _, l := range mk.Linked {
		im.app.link.Append(&tables.LinkedID{
			ID:          int64(l.ID),
			TS:          l.TS,
			Itid:        int64(l.Itid),
			Cat:         rows.SOpt(l.Cat, l.Cat != ""),
			Name:        rows.SOpt(l.Name, l.Name != ""),
			Scope:       rows.SOpt(l.Scope, l.Scope != ""),
			IDKind:      l.IDKind,
			RawID:       l.RawID,
			LinkedRawID: l.LinkedRawID,
		})
	}
}

// writeSamples writes the stack samples made so far.
func (im *Importer) writeSamples() {
	for _, s := range im.samples.Take() {
		im.env.Range.Add(s.TS)
		weight := rows.I(s.Weight)
		if s.HasWeightReal {
			weight = rows.R(s.WeightReal)
		}
		set := im.args.add(s.Args)
		im.app.sample.Append(&tables.StackSample{
			ID:           int64(s.ID),
			Source:       s.Source,
			CPUProfileID: rows.IOpt(int64(s.CPUProfileID), s.CPUProfileID >= 0),
			TS:           s.TS,
			Itid:         int64(s.Itid),
			CPU:          rows.IOpt(s.CPU, s.HasCPU),
			Name:         rows.SOpt(s.Name, s.HasName),
			FrameID:      rows.IOpt(int64(s.FrameID), s.FrameID >= 0),
			Weight:       weight,
			Argsetid:     rows.IOpt(set, set != none),
		})
	}
}

// topLevelFirst handles the top-level members needed before the events: the
// stackFrames object (docs/format/traceevent.md#samples-and-stack-frames, docs/format/traceevent.md#containers) and a traceEvents that is not an array.
func (im *Importer) topLevelFirst(rd *tokenizer.Reader) {
	if raw, ok := rd.Other["stackFrames"]; ok {
		off := rd.OtherOffset["stackFrames"]
		n, _ := im.frames.AddStackFrames(raw, "stackFrames", -1, &im.stats, off, tracker.AtFrameValue)
		im.stats.Add(stat.JSONStackFrames, stat.Received, int64(n), off)
	}
	if _, ok := rd.Other["traceEvents"]; ok {
		im.stats.Add(stat.JSONFile, stat.NotSupported, 1, 0)
	}
}

// topLevelLast handles the other top-level members after the events: the
// samples array and the trace_config rows (docs/format/traceevent.md#top-level-keys).
func (im *Importer) topLevelLast(rd *tokenizer.Reader, in Input, size int64) {
	if raw, ok := rd.Other["samples"]; ok {
		off := rd.OtherOffset["samples"]
		n, _ := im.samples.TopLevel(raw, off, func(tid event.Ident) int {
			itid, ok := im.sampleTIDs[tid]
			if !ok {
				itid = im.threads.ByTid(tid)
				im.sampleTIDs[tid] = itid
			}
			return itid
		})
		im.stats.Add(stat.JSONSamples, stat.Received, int64(n), off)
		im.writeSamples()
	}
	container := "array"
	if rd.Form() == tokenizer.ObjectForm {
		container = "object"
	}
	compression := in.Compression
	if compression == "" {
		compression = "none"
	}
	im.configRow("container", container, -1)
	im.configRow("compression", compression, -1)
	im.configRow("uncompressed_size", strconv.FormatInt(size, 10), -1)
	for _, key := range rd.OtherKeys {
		raw := rd.Other[key]
		off, ok := rd.OtherOffset[key] // problems are counted where the value starts
		if !ok {
			off = -1 // a systemTraceEvents string, streamed
		}
		switch key {
		case "traceEvents", "stackFrames", "samples":
		case "displayTimeUnit":
			im.stats.Add(stat.JSONDisplayTimeUnit, stat.Received, 1, off)
			text, ok := im.topLevelText(raw, off)
			if !ok || (text != "ms" && text != "ns") {
				im.stats.Add(stat.JSONDisplayTimeUnit, stat.NotSupported, 1, off)
			}
			im.configRow(key, text, off)
		case "controllerTraceDataKey":
			text, _ := im.topLevelText(raw, off)
			im.configRow(key, text, off)
		case "otherData", "metadata":
			configLeaves(raw, key, false, 0, func(k, v string, kBad, vBad bool) {
				im.configRowReplaced(k, v, kBad, vBad, off)
			})
		case "systemTraceEvents":
			im.stats.Add(stat.JSONSystemTraceEvents, stat.Received, 1, off)
			if raw != nil { // else streamed as it was read
				im.systemTraceEvents(raw)
			}
		default:
			im.stats.Add(stat.JSONTopLevel, stat.Received, 1, off)
			// The value is its raw JSON text (a string keeps its quotes and
			// escapes), only invalid UTF-8 replaced; the name is decoded
			// (by the tokenizer, but for the few it keeps as written).
			name, nameBad := tokenizer.MemberText(key)
			im.configRowReplaced(name, string(raw), nameBad, false, off)
		}
	}
}

// topLevelText is the text of a top-level string member for its
// trace_config row, decoded as an element's strings are (invalid UTF-8 and
// lone surrogate escapes replaced by U+FFFD and counted), or its JSON text
// as written when it is not a string (ok false; configRow replaces and
// counts invalid UTF-8 in it). Problems are counted at byte offset off.
func (im *Importer) topLevelText(raw []byte, off int64) (text string, ok bool) {
	if text, ok = event.StringValue(raw); !ok && string(raw) != `""` {
		return string(raw), false
	}
	if !utf8.Valid(raw) || strings.Contains(text, "\uFFFD") && event.LoneSurrogateString(raw) {
		im.stats.Add(stat.JSONString, stat.InvalidData, 1, off)
	}
	return text, true
}

// configRow writes one trace_config row of this importer; invalid UTF-8 in
// its key or value is replaced by U+FFFD and counted, once per text, at byte
// offset off (that of the top-level member it comes from, -1 for none).
func (im *Importer) configRow(key, value string, off int64) {
	im.configRowReplaced(key, value, false, false, off)
}

// configRowReplaced is configRow for a key or value in which decoding
// replaced a lone surrogate escape (keyBad, valueBad), counted as invalid
// UTF-8 is, once per text.
func (im *Importer) configRowReplaced(key, value string, keyBad, valueBad bool, off int64) {
	for _, t := range []struct {
		s   *string
		bad bool
	}{{&key, keyBad}, {&value, valueBad}} {
		if !utf8.ValidString(*t.s) {
			*t.s = strings.ToValidUTF8(*t.s, "\uFFFD")
			t.bad = true
		}
		if t.bad {
			im.stats.Add(stat.JSONString, stat.InvalidData, 1, off)
		}
	}
	im.app.config.Append(&tables.TraceConfig{ID: im.configID, TraceSource: "trace_event_json", Key: key, Value: value})
	im.configID++
}

// configLeaves flattens a JSON value into key/value text pairs with the
// argument key rules (docs/format/traceevent.md#top-level-keys): numbers in their JSON spelling,
// strings decoded, booleans and null as their literals. keyBad and emit's
// keyBad, valueBad tell a key or value in which decoding replaced a lone
// surrogate escape (a member name's replaced one is in every key below it).
func configLeaves(raw []byte, key string, keyBad bool, depth int, emit func(key, value string, keyBad, valueBad bool)) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	js := jsonscan.NewBytes(raw)
	switch raw[0] {
	case '{', '[':
		if depth >= event.MaxArgDepth || isEmptyContainer(raw) {
			emit(key, string(raw), keyBad, false)
			return
		}
		var seen int64 // js.LoneSurrogates before the member's name
		visit := func(sub string) error {
			bad := keyBad || js.LoneSurrogates != seen
			start := js.Offset()
			if err := js.SkipValue(); err != nil {
				return err
			}
			seen = js.LoneSurrogates
			configLeaves(raw[start:js.Offset()], sub, bad, depth+1, emit)
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
			emit(key, string(raw), keyBad, false)
			return
		}
		emit(key, string(b), keyBad, js.LoneSurrogates > 0)
	default:
		emit(key, string(raw), keyBad, false)
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
		im.app.system.Append(&tables.SystemTraceEvents{ID: st.id, Kind: kind, Seq: st.seq, Data: string(data[:n])})
		im.app.system.Flush() // a row of up to 64 MiB: do not hold thousands of them in a batch
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
func (im *Importer) Finish() { im.FinishContext(context.Background()) }

// FinishContext is Finish, given up soon after ctx is done (a run with
// millions of threads, open slices or counter series writes them here for
// seconds): it then returns ctx's error, and the rows written are incomplete,
// for a database that is thrown away.
func (im *Importer) FinishContext(ctx context.Context) error {
	im.ctx = ctx
	defer func() { im.ctx = nil }()
	im.finish()
	return ctx.Err()
}

// halted reports whether the context of Read or FinishContext is done; it
// looks at the context every haltEvery calls, so that the loops writing rows
// can ask for every row. Once it reports true, the import is given up.
func (im *Importer) halted() bool {
	if im.halt || im.ctx == nil {
		return im.halt
	}
	im.haltTick++
	if im.haltTick%haltEvery == 0 && im.ctx.Err() != nil {
		im.halt = true
	}
	return im.halt
}

const haltEvery = 1024

// haltedNow is halted looking at the context now, between long steps.
func (im *Importer) haltedNow() bool {
	if !im.halt && im.ctx != nil && im.ctx.Err() != nil {
		im.halt = true
	}
	return im.halt
}

func (im *Importer) finish() {
	if im.haltedNow() {
		return
	}
	st := &im.stats
	im.offset = -1 // what is found now is found at the end
	im.slices.Finish()
	var nestableOpen int64
	im.slices.EachOpen(func(r *tracker.Slice) { // no order needed to count
		if r.Cookie >= 0 && !r.HasDur && im.tracks.Nestable(r.Cookie) {
			nestableOpen++
		}
	})
	st.Add(stat.JSONNestableBegin, stat.NotMatch, nestableOpen, -1)
	im.legacy.Finish()
	im.flows.Finish()
	if im.haltedNow() {
		return
	}
	im.slices.TakeAll(im.closeSlice)
	im.order.flush(im.writeSlice)
	unknown, first := im.frames.Resolve() // the frames' offsets, in the file read last
	st.Add(stat.JSONStackFrames, stat.NotMatch, unknown, first)
	im.drain()
	if im.halted() {
		return // no warnings about an import given up
	}
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
	for _, w := range []interface{ Flush() }{ap.callstack, ap.extra, ap.instant, ap.instantExtra, ap.flow, ap.flowEvent, ap.sample,
		ap.meta, ap.dump, ap.value, ap.edge, ap.clock, ap.context, ap.link, ap.config, ap.system, ap.track} {
		w.Flush()
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
	w := tables.NewStackFrame(im.env.Sink, im.t)
	for _, f := range im.frames.Rows {
		if im.halted() {
			return
		}
		w.Append(&tables.StackFrame{
			ID:           int64(f.ID),
			Source:       f.Source,
			Ipid:         rows.IOpt(int64(f.Ipid), f.Ipid >= 0),
			CPUProfileID: rows.IOpt(int64(f.CPUProfileID), f.CPUProfileID >= 0),
			FrameKey:     f.Key,
			ParentID:     rows.IOpt(int64(f.ParentID), f.ParentID >= 0),
			Name:         rows.SOpt(f.Name, f.Name != ""),
			Category:     rows.SOpt(f.Category, f.Category != ""),
			URL:          rows.SOpt(f.URL, f.URL != ""),
			ScriptID:     rows.SOpt(f.ScriptID, f.ScriptID != ""),
			Line:         rows.IOpt(f.Line, f.HasLine),
			Column:       rows.IOpt(f.Column, f.HasLine),
		})
	}
	w.Flush()
}

// writeTracks writes the async tracks made so far (final when made).
func (im *Importer) writeTracks() {
	for _, t := range im.tracks.Take() {
		if im.halted() {
			return
		}
		im.app.track.Append(&tables.AsyncTrack{
			ID:     int64(t.ID),
			Kind:   t.Kind,
			Cat:    rows.SOpt(t.Cat, t.HasCat),
			Name:   rows.SOpt(t.Name, t.Kind == "legacy" && t.Name != ""),
			Scope:  rows.SOpt(t.Scope, t.Scope != ""),
			IDKind: t.IDKind,
			RawID:  t.RawID,
			Ipid:   rows.IOpt(int64(t.Ipid), t.Ipid >= 0),
		})
	}
}

// writeCounters writes the counter series: measure_filter and
// process_measure_filter rows (one id per series), then the samples.
func (im *Importer) writeCounters() {
	mf := tables.NewMeasureFilter(im.env.Sink, im.t)
	pmf := tables.NewProcessMeasureFilter(im.env.Sink, im.t)
	for id, f := range im.counters.Filters {
		if im.halted() {
			return
		}
		mf.Append(&tables.MeasureFilter{ID: int64(id), Type: "process_measure_filter", Name: f.Name,
			SourceArgSetID: int64(f.Ipid)})
		pmf.Append(&tables.ProcessMeasureFilter{ID: int64(id), Name: f.Name, Ipid: int64(f.Ipid)})
	}
	mf.Flush()
	pmf.Flush()
	pm := tables.NewProcessMeasure(im.env.Sink, im.t)
	for _, s := range im.counters.Samples {
		if im.halted() {
			return
		}
		var value rows.Int // NULL unless a number
		if v, err := strconv.ParseInt(string(s.Value), 10, 64); err == nil {
			value = rows.I(v)
		} else if f, err := strconv.ParseFloat(string(s.Value), 64); err == nil && !math.IsInf(f, 0) {
			value = rows.R(f)
		}
		pm.Append(&tables.ProcessMeasure{Type: "measure", TS: s.TS, Dur: rows.IOpt(s.Dur, s.HasDur), Value: value,
			FilterID: int64(s.Filter)})
	}
	pm.Flush()
}

func (im *Importer) writeObjects() {
	w := tables.NewObjectInstance(im.env.Sink, im.t)
	for _, o := range im.objects.Instances {
		if im.halted() {
			return
		}
		explicit := int64(0)
		if o.ExplicitCreate {
			explicit = 1
		}
		w.Append(&tables.ObjectInstance{
			ID:             int64(o.ID),
			Ipid:           int64(o.Ipid),
			Scope:          rows.SOpt(o.Scope, o.Scope != ""),
			IDKind:         o.IDKind,
			RawID:          o.RawID,
			Cat:            rows.SOpt(o.Cat, o.Cat != ""),
			Name:           rows.SOpt(o.Name, o.Name != ""),
			CreateTS:       o.CreateTS,
			CreateItid:     int64(o.CreateItid),
			DeleteTS:       rows.IOpt(o.DeleteTS, o.Deleted),
			DeleteItid:     rows.IOpt(int64(o.DeleteItid), o.Deleted),
			ExplicitCreate: explicit,
		})
	}
	w.Flush()
	s := tables.NewObjectSnapshot(im.env.Sink, im.t)
	for i, o := range im.objects.Snapshots {
		if im.halted() {
			return
		}
		s.Append(&tables.ObjectSnapshot{
			ID:       int64(o.ID),
			ObjectID: int64(o.ObjectID),
			TS:       o.TS,
			Itid:     int64(o.Itid),
			Cat:      rows.SOpt(o.Cat, o.Cat != ""),
			Name:     rows.SOpt(o.Name, o.Name != ""),
			BaseType: rows.SOpt(o.BaseType, o.BaseType != ""),
			Argsetid: rows.IOpt(im.snapArgs[i], im.snapArgs[i] != none),
		})
	}
	s.Flush()
}

func (im *Importer) writeProfiles() {
	w := tables.NewCPUProfile(im.env.Sink, im.t)
	for _, p := range im.samples.Profiles {
		if im.halted() {
			return
		}
		w.Append(&tables.CPUProfile{ID: int64(p.ID), Ipid: int64(p.Ipid), Itid: int64(p.Itid), ProfileKey: p.Key,
			StartTS: p.StartTS})
	}
	w.Flush()
}

// writeThreads writes the process and thread tables with their names (spec
// docs/format/traceevent.md#names) and the counts the UI uses to show a process.
func (im *Importer) writeThreads() {
	writeThreadTables(im.env.Sink, im.t, im.threads, im.sliceThreads, im.counters.Filters, im.halted)
}

// WritePlaceholderThreads writes the process and thread tables of a run
// without Trace Event input: only row 0 of each, the reference's "swapper"
// placeholder. This package is the one writer of both tables.
func WritePlaceholderThreads(sink rows.Sink, t *schema.Tables) {
	writeThreadTables(sink, t, tracker.NewThreads(nil, 0), nil, nil, func() bool { return false })
}

// writeThreadTables writes one process row per process of th and one thread
// row per thread, with the counts of threads, threads with slices
// (sliceThreads) and counter series (filters) per process. It gives up when
// halted reports true.
func writeThreadTables(sink rows.Sink, ts *schema.Tables, th *tracker.Threads, sliceThreads []bool,
	filters []tracker.CounterFilter, halted func() bool) {
	threadCount := make([]int64, len(th.Processes))
	sliceCount := make([]int64, len(th.Processes))
	for itid, t := range th.Threads {
		if itid == 0 {
			continue
		}
		threadCount[t.Ipid]++
		if itid < len(sliceThreads) && sliceThreads[itid] {
			sliceCount[t.Ipid]++
		}
	}
	memCount := make([]int64, len(th.Processes))
	for _, f := range filters {
		memCount[f.Ipid] = 1
	}
	p := tables.NewProcess(sink, ts)
	for ipid, pr := range th.Processes {
		if halted() {
			return
		}
		name, ok := th.ProcessName(ipid)
		p.Append(&tables.Process{
			ID:          int64(ipid),
			Ipid:        int64(ipid),
			Pid:         pr.Pid,
			Name:        rows.SOpt(name, ok),
			StartTS:     rows.Int{},
			SwitchCount: 0,
			ThreadCount: threadCount[ipid],
			SliceCount:  sliceCount[ipid],
			MemCount:    memCount[ipid],
		})
	}
	p.Flush()
	t := tables.NewThread(sink, ts)
	for itid, tr := range th.Threads {
		if halted() {
			return
		}
		name, ok := th.ThreadName(itid)
		main := int64(0)
		if itid > 0 && tr.Tid == th.Processes[tr.Ipid].Pid {
			main = 1
		}
		t.Append(&tables.Thread{
			ID:           int64(itid),
			Itid:         int64(itid),
			Tid:          tr.Tid,
			Name:         rows.SOpt(name, ok),
			StartTS:      rows.Int{},
			EndTS:        rows.Int{},
			Ipid:         int64(tr.Ipid),
			IsMainThread: main,
			SwitchCount:  0,
		})
	}
	t.Flush()
}
