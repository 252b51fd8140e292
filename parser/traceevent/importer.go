package traceevent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/extsort"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/parser/traceevent/tracker"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// Env is where an Importer writes: the sink and tables of the run, the shared
// data_dict and trace range, and the stat log.
type Env struct {
	Sink   rows.Sink
	Tables *schema.Tables
	Dict   *tables.Dict
	Range  *rows.Range
	Log    *stat.Log
}

// Options configure an Importer.
type Options struct {
	// SortBudget is the number of bytes of events sorted in memory before
	// sorted runs are spilled to temporary files (docs/format/traceevent.md#sorting-large-inputs); 0 means
	// DefaultSortBudget.
	SortBudget int64
	// MaxEvent is the largest element kept, in bytes: a larger one is
	// skipped and counted (json_event data_lost), and strings are cut at
	// half of it (json_string data_lost). 0 means the tokenizer's defaults.
	MaxEvent int
	// MaxThreads bounds the processes' threads kept (0:
	// DefaultMaxThreads); events of further threads are dropped and counted
	// (json_pid_tid data_lost).
	MaxThreads int
	// MaxPending bounds the B and b slices waiting for their end (0:
	// DefaultMaxPending); further ones are dropped and counted
	// (json_max_depth data_lost).
	MaxPending int
	// MaxCounters bounds the counter series (0: DefaultMaxCounters); samples
	// of further series are dropped and counted (json_counter data_lost).
	MaxCounters int
}

// Default limits of the state kept per thread and per open slice: each costs
// a few hundred bytes until the end of the run (or of the slice), and these
// keep that under about half a GB; real traces stay far below them.
const (
	DefaultMaxThreads = 2_000_000
	DefaultMaxPending = 500_000
	// DefaultMaxCounters bounds the counter series: each keeps its name,
	// key and last sample until the end of the run.
	DefaultMaxCounters = 1_000_000
)

// DefaultSortBudget is the in-memory sort budget when Options leave it 0.
const DefaultSortBudget = 64 << 20

// Importer maps Trace Event files to tables (docs/format/traceevent.md). One
// Importer serves a whole run: files read with Read share processes,
// threads and every id space; Finish writes what is kept until the end.
type Importer struct {
	env  Env
	opts Options
	t    *schema.Tables

	threads  *tracker.Threads
	slices   *tracker.Slices
	flows    *tracker.Flows
	tracks   *tracker.Tracks
	legacy   *tracker.Legacy
	counters *tracker.Counters
	instants tracker.Instants
	meta     *tracker.Metadata
	objects  *tracker.Objects
	dumps    *tracker.MemoryDumps
	markers  *tracker.Markers
	frames   *tracker.Frames
	samples  *tracker.Samples
	args     argSets

	stats problems
	order sliceOrder // closed slices waiting for their turn to be written
	// legacyStart remembers the ts of open legacy S events named
	// ClockSyncEvent.<id>, by track.
	legacyStart map[int]int64
	// sliceThreads marks the threads that are the callid of a closed slice.
	sliceThreads []bool  // by itid
	lastPath     string  // the file read last, named by problems found at the end
	snapArgs     []int64 // arg set of each object snapshot
	configID     int64
	offset       int64 // of the event processed now (-1: at the end)
	system       systemText
	sampleTIDs   map[event.Ident]int
	// ctx is Read's or FinishContext's while they run; halt is set once it
	// is done (halted), haltTick counts the calls of halted.
	ctx      context.Context
	halt     bool
	haltTick int
	// decodeBatch decodes a batch of the pipeline ((*batch).decode; tests
	// replace it).
	decodeBatch func(*batch, *worker, stage)

	app struct {
		callstack    tables.CallstackWriter
		extra        tables.CallstackExtraWriter
		instant      tables.InstantWriter
		instantExtra tables.InstantExtraWriter
		flow         tables.FlowWriter
		flowEvent    tables.FlowEventWriter
		sample       tables.StackSampleWriter
		meta         tables.MetadataEventWriter
		dump         tables.MemoryDumpWriter
		value        tables.MemoryDumpValueWriter
		edge         tables.MemoryDumpEdgeWriter
		clock        tables.ClockSyncMarkerWriter
		context      tables.ContextEventWriter
		link         tables.LinkedIDWriter
		config       tables.TraceConfigWriter
		system       tables.SystemTraceEventsWriter
		track        tables.AsyncTrackWriter
	}
}

// New returns an Importer writing to env.
func New(env Env, opts Options) *Importer {
	if opts.SortBudget <= 0 {
		opts.SortBudget = DefaultSortBudget
	}
	opts.MaxThreads = cmp.Or(opts.MaxThreads, DefaultMaxThreads)
	opts.MaxPending = cmp.Or(opts.MaxPending, DefaultMaxPending)
	opts.MaxCounters = cmp.Or(opts.MaxCounters, DefaultMaxCounters)
	t := env.Tables
	im := &Importer{env: env, opts: opts, t: t, tracks: tracker.NewTracks(), frames: tracker.NewFrames(),
		legacyStart: map[int]int64{}}
	im.stats.init()
	st := &im.stats // the trackers count into the current input's problems
	im.threads = tracker.NewThreads(st, opts.MaxThreads)
	im.slices = tracker.NewSlices(st, opts.MaxPending)
	im.counters = tracker.NewCounters(st, opts.MaxCounters)
	im.objects = tracker.NewObjects(st)
	im.dumps = tracker.NewMemoryDumps(st)
	im.markers = tracker.NewMarkers(st)
	im.meta = tracker.NewMetadata(st)
	im.flows = tracker.NewFlows(im.slices, st)
	im.legacy = tracker.NewLegacy(im.slices, st)
	im.samples = tracker.NewSamples(im.frames, st)
	env.Log.UseJSON()
	im.args = argSets{app: tables.NewArgs(env.Sink, t), dict: env.Dict, count: im.argProblems}
	a, sink := &im.app, env.Sink
	a.callstack, a.extra = tables.NewCallstack(sink, t), tables.NewCallstackExtra(sink, t)
	a.instant, a.instantExtra = tables.NewInstant(sink, t), tables.NewInstantExtra(sink, t)
	a.flow, a.sample, a.meta = tables.NewFlow(sink, t), tables.NewStackSample(sink, t), tables.NewMetadataEvent(sink, t)
	a.dump, a.value = tables.NewMemoryDump(sink, t), tables.NewMemoryDumpValue(sink, t)
	a.edge, a.clock = tables.NewMemoryDumpEdge(sink, t), tables.NewClockSyncMarker(sink, t)
	a.context, a.link = tables.NewContextEvent(sink, t), tables.NewLinkedID(sink, t)
	a.config, a.system = tables.NewTraceConfig(sink, t), tables.NewSystemTraceEvents(sink, t)
	a.track, a.flowEvent = tables.NewAsyncTrack(sink, t), tables.NewFlowEvent(sink, t)
	im.sampleTIDs = map[event.Ident]int{}
	im.decodeBatch = (*batch).decode
	im.system.chunk = systemChunk
	return im
}

// Input describes a file given to Read.
type Input struct {
	Path        string // for messages
	Compression string // "gzip" or "none" (trace_config)
}

// Read imports one Trace Event file: it tokenizes and sorts the events, then
// processes them in order. Problems with the content are counted in stat;
// the error is for input that could not be read at all (not a trace, I/O
// errors).
func (im *Importer) Read(ctx context.Context, r io.Reader, in Input) error {
	// Slices held for their turn may all be written at once when the one
	// before them closes (up to --max-pending): that loop looks at ctx too.
	im.ctx = ctx
	defer func() { im.ctx = nil }()
	counted := &countReader{r: r}
	rd, err := tokenizer.NewReaderText(counted, im.systemPart)
	if err == nil && im.opts.MaxEvent > 0 {
		rd.MaxElement, rd.MaxString = im.opts.MaxEvent, im.opts.MaxEvent/2
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	im.lastPath = in.Path
	im.frames.NextFile()
	im.stats.Add(stat.JSONFile, stat.Received, 1, 0)
	if in.Compression == "gzip" {
		im.stats.Add(stat.JSONGzip, stat.Received, 1, 0)
	}
	sorter := extsort.NewSorter(im.opts.SortBudget)
	defer sorter.Close()
	sorter.StopOn(ctx.Done()) // an Add waiting for a run being written returns
	order := event.NewOrderer()
	workers := decodeWorkers()
	p := newPipe(workers, nil)
	go readElements(rd, p)
	err = p.decoded(workers, elements, im.args.byRaw.seed(), im.decodeBatch).consume(ctx, func(b *batch) error {
		for i := range b.items {
			it := &b.items[i]
			if it.text != 0 {
				im.systemPart(b.buf[it.pos:it.pos+it.n], it.text == textEnd)
				continue
			}
			if !im.tokenize(&it.ev, it.invalid) {
				continue
			}
			if err := sorter.Add(order.Key(&it.ev), it.ev.Offset, b.record(i)); err != nil {
				return cmp.Or(ctx.Err(), err)
			}
		}
		return nil
	})
	// A bug in reading or decoding ended the first pass early: the events
	// read before it are still processed, then the error is returned.
	var internal error
	if errors.Is(err, ErrInternal) {
		internal, err = err, nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	if err := counted.err; err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		// A damaged compressed stream or a read error: keep what was read.
		name := stat.JSONFile
		if in.Compression == "gzip" {
			name = stat.JSONGzip
		}
		im.stats.Add(name, stat.DataLost, 1, rd.Offset())
		im.stats.note(name, stat.DataLost, err.Error())
	}
	im.readerProblems(rd)
	im.topLevelFirst(rd)
	p = newPipe(workers, p)
	go readSorted(sorter, p)
	err = p.decoded(workers, records, im.args.byRaw.seed(), im.decodeBatch).consume(ctx, func(b *batch) error {
		for i := range b.items {
			it := &b.items[i]
			if it.invalid {
				return fmt.Errorf("event at offset %d: %w", it.ev.Offset, event.ErrRecord)
			}
			im.process(&it.ev)
		}
		return nil
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	im.topLevelLast(rd, in, counted.n)
	im.stats.note(stat.JSONPidTid, stat.DataLost, fmt.Sprintf("events of threads beyond the first %d dropped (--max-threads)",
		im.opts.MaxThreads))
	im.stats.note(stat.JSONMaxDepth, stat.DataLost, fmt.Sprintf("slices dropped on a %d-deep stack, or B/b beyond %d "+
		"waiting for their end (--max-pending)", tracker.MaxDepth, im.opts.MaxPending))
	im.stats.note(stat.JSONCounter, stat.DataLost, fmt.Sprintf("samples of counter series beyond the first %d dropped "+
		"(--max-counters)", im.opts.MaxCounters))
	im.stats.flush(im.env.Log, in.Path)
	if internal != nil {
		return fmt.Errorf("%s: %w", in.Path, internal)
	}
	return nil
}

// countReader counts the bytes read and keeps the first error other than
// io.EOF (the container reader takes any error as the end of input).
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) && c.err == nil {
		c.err = err
	}
	return n, err
}

// phaseStat gives the stat event of a phase (docs/format/stat.md#json-rows);
// ok is false for phases that are not supported.
func phaseStat(ph byte) (e stat.Event, ok bool) {
	switch ph {
	case 'B':
		return stat.JSONBegin, true
	case 'E':
		return stat.JSONEnd, true
	case 'X':
		return stat.JSONComplete, true
	case 'i', 'I':
		return stat.JSONInstant, true
	case 'R':
		return stat.JSONMark, true
	case 'C':
		return stat.JSONCounter, true
	case 'b':
		return stat.JSONNestableBegin, true
	case 'n':
		return stat.JSONNestableInstant, true
	case 'e':
		return stat.JSONNestableEnd, true
	case 'S':
		return stat.JSONAsyncStart, true
	case 'T':
		return stat.JSONAsyncStepInto, true
	case 'p':
		return stat.JSONAsyncStepPast, true
	case 'F':
		return stat.JSONAsyncFinish, true
	case 's':
		return stat.JSONFlowStart, true
	case 't':
		return stat.JSONFlowStep, true
	case 'f':
		return stat.JSONFlowEnd, true
	case 'P':
		return stat.JSONSample, true
	case 'N':
		return stat.JSONObjectNew, true
	case 'O':
		return stat.JSONObjectSnapshot, true
	case 'D':
		return stat.JSONObjectDelete, true
	case 'M':
		return stat.JSONMetadata, true
	case 'V':
		return stat.JSONMemoryDumpGlobal, true
	case 'v':
		return stat.JSONMemoryDumpProcess, true
	case 'c':
		return stat.JSONClockSync, true
	case '(':
		return stat.JSONContextEnter, true
	case ')':
		return stat.JSONContextLeave, true
	case '=':
		return stat.JSONLinkedID, true
	}
	return 0, false
}

// tokenize counts what the element-level rules count for a decoded element
// (docs/format/traceevent.md#element-fields, docs/format/traceevent.md#tolerant-reading), in file order, and tells whether the event is kept for
// processing. invalid tells that the element did not decode.
func (im *Importer) tokenize(ev *event.Event, invalid bool) bool {
	st := &im.stats
	off := ev.Offset
	st.Add(stat.JSONEvent, stat.Received, 1, off)
	if invalid {
		st.Add(stat.JSONEvent, stat.InvalidData, 1, off)
		return false
	}
	st.Add(stat.JSONTrailingComma, stat.Received, int64(ev.TrailingCommas), off)
	st.Add(stat.JSONDuplicateKey, stat.Received, int64(ev.DupKeys), off)
	st.Add(stat.JSONNumericString, stat.Received, int64(ev.NumericStrs), off)
	st.Add(stat.JSONString, stat.InvalidData, int64(ev.BadStrings), off)
	if ev.Ph == 0 {
		st.Add(stat.JSONEvent, stat.InvalidData, 1, off)
		return false
	}
	if ev.PhLong {
		st.Add(stat.JSONEvent, stat.NotMatch, 1, off)
	}
	name, ok := phaseStat(ev.Ph)
	if !ok {
		st.Add(stat.JSONEvent, stat.NotSupported, 1, off)
		return false
	}
	if ev.ArgsInvalid {
		st.Add(stat.JSONArgs, stat.InvalidData, 1, off)
	}
	if ev.BadThreadTime {
		st.Add(stat.JSONThreadTime, stat.InvalidData, 1, off)
	}
	if ev.HasStack {
		st.Add(stat.JSONStackFrames, stat.NotSupported, 1, off)
	}
	if !ev.TS.Valid && ev.Ph != 'M' {
		st.Add(name, stat.InvalidData, 1, off)
		return false
	}
	if ev.Ph == 'X' && !ev.Dur.Valid {
		st.Add(name, stat.InvalidData, 1, off)
		return false
	}
	return true
}

// readerProblems counts what the container reader tolerated.
func (im *Importer) readerProblems(rd *tokenizer.Reader) {
	p := rd.Problems
	st := &im.stats
	st.Add(stat.JSONTrailingComma, stat.Received, p.TrailingCommas, p.First.TrailingComma)
	st.Add(stat.JSONEmptyEvent, stat.Received, p.EmptyEvents, p.First.EmptyEvent)
	if p.Unclosed {
		st.Add(stat.JSONFile, stat.NotMatch, 1, rd.Offset())
	}
	if p.CutElement {
		st.Add(stat.JSONFile, stat.DataLost, 1, rd.Offset())
	}
	if p.Garbage || p.Stopped {
		st.Add(stat.JSONFile, stat.InvalidData, 1, rd.Offset())
	}
	st.Add(stat.JSONEvent, stat.Received, p.Broken, p.First.Broken)
	st.Add(stat.JSONEvent, stat.InvalidData, p.Broken, p.First.Broken)
	st.Add(stat.JSONEvent, stat.Received, p.TooLarge, p.First.TooLarge)
	st.Add(stat.JSONEvent, stat.DataLost, p.TooLarge, p.First.TooLarge)
	st.Add(stat.JSONFile, stat.DataLost, p.MembersTooLarge, p.First.MemberTooLarge)
	st.Add(stat.JSONString, stat.DataLost, p.CutStrings, p.First.CutString)
	if p.BadText {
		st.Add(stat.JSONSystemTraceEvents, stat.InvalidData, 1, rd.Offset())
	}
}

// sliceMade fills the importer's data of the slice row an event made:
// arguments, thread time, frames, colour, and v2 flows. pending tells that
// an end event may still bring arguments.
func (im *Importer) sliceMade(row *tracker.Slice, ev *event.Event, pending bool) {
	if pending {
		if list := ev.FlatArgs(); len(list) > 0 {
			row.HasArgSet = true
			row.PendArgs = slices.Clone(list) // list lives in a reused batch; the set is found at the end
		}
	} else if set := im.args.of(ev); set != none {
		row.ArgSet, row.HasArgSet = set, true
	}
	if row.Cookie < 0 {
		// tts is not defined for async slices.
		if ev.TTS.Valid {
			row.ThreadTS, row.HasThreadTS = ev.TTS.NS, true
		}
		if ev.TDur.Valid && ev.Ph == 'X' {
			row.ThreadDur, row.HasThreadDur = ev.TDur.NS, true
		}
	}
	row.SF = im.frameRef(ev.SF)
	row.ESF = im.frameRef(ev.ESF)
	row.CName = ev.CName
	if ev.BindID != nil {
		im.stats.Add(stat.JSONFlowV2, stat.Received, 1, ev.Offset)
		im.flows.V2(row.ID, ev)
	}
}

// frameRef resolves an sf/esf value to a stack_frame id + 1 (0: none).
func (im *Importer) frameRef(raw []byte) int32 {
	if raw == nil {
		return 0
	}
	id, _, found := im.frames.Ref(raw)
	if !found {
		return 0
	}
	return int32(id + 1)
}

// ended completes the slice row an E, e or F closed: its arguments merge
// with the end event's, thread duration and end frame.
func (im *Importer) ended(row *tracker.Slice, ev *event.Event) {
	if list := ev.FlatArgs(); len(list) > 0 {
		row.PendArgs = mergeArgs(row.PendArgs, list)
		row.HasArgSet = true
	}
	if row.PendArgs != nil {
		row.ArgSet = im.args.set(row.PendArgs)
		row.PendArgs = nil
	}
	if row.Cookie < 0 && ev.TTS.Valid && row.HasThreadTS {
		row.ThreadDur, row.HasThreadDur = ev.TTS.NS-row.ThreadTS, true
	}
	if sf := im.frameRef(ev.SF); sf != 0 {
		row.ESF = sf
	}
}

// legacyEvent handles S, T, p and F on a legacy async track.
func (im *Importer) legacyEvent(track, ipid, itid int, ev *event.Event) bool {
	row, finished, accepted := im.legacy.Add(track, im.threads.MainThread(ipid), itid, ev)
	if row != nil {
		// S and p/T rows: the event's own arguments (an S may still get F's).
		if ev.Ph != 'S' {
			if set := im.args.of(ev); set != none {
				row.ArgSet, row.HasArgSet = set, true
			}
		} else if list := ev.FlatArgs(); len(list) > 0 {
			row.HasArgSet = true
			row.PendArgs = slices.Clone(list) // list lives in a reused batch; the set is found at the end
		}
	}
	const clockPrefix = "ClockSyncEvent."
	switch {
	case ev.Ph == 'S' && row != nil && len(ev.Name) > len(clockPrefix) && ev.Name[:len(clockPrefix)] == clockPrefix:
		im.legacyStart[track] = ev.TS.NS
	case finished != nil:
		im.ended(finished, ev)
		if start, ok := im.legacyStart[track]; ok {
			delete(im.legacyStart, track)
			im.markers.LegacyClockSync(ev.Name[len(clockPrefix):], start, ev.TS.NS, itid)
		}
	}
	return accepted
}
