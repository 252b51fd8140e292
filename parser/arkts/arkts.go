// Package arkts turns the records of OpenHarmony's ArkTS profiler plugin into the
// js_* tables: "arkts-plugin_config" records (ArkTSConfig) and "arkts-plugin"
// records, each one DevTools-protocol message (ArkTSResult). Heap snapshot and
// timeline chunks are streamed into a heap snapshot decoder as they arrive; CPU
// profiles are decoded when their message arrives (shared/spec/arkts.md).
package arkts

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/heapsnapshot"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
)

// Heap capture modes (ArkTSConfig.type).
const (
	ModeSnapshot = 0
	ModeTimeline = 1
	ModeInvalid  = -1
)

// Options change how values are computed.
type Options struct {
	// CompatTiming places CPU samples as the reference does (timeDeltas[0]
	// ignored, the last run ending at the last sample) instead of V8's timing.
	CompatTiming bool
}

// Env is what the parser shares with the rest of the run.
type Env struct {
	Name   string // input name, for messages
	Sink   rows.Sink
	Tables *schema.Tables
	Dict   *rows.Dict
	Range  *rows.Range
	Log    *stat.Log
}

// Parser is the ArkTS plugin state machine of one run. Feed it records in file
// order with Config and Result, then call Finish.
type Parser struct {
	env  Env
	opts Options

	out        heapsnapshot.Output
	heapTables []*schema.Table
	files      *rows.Appender
	config     *rows.Appender
	cpuNodes   *rows.Appender
	cpuSamples *rows.Appender

	mode          int32
	configSeen    bool
	timelineStart int64 // BOOTTIME ns of the timeline start marker
	haveStart     bool
	cpuStartSeen  bool
	fileID        int64
	heap          *heapStream
	mark          rows.Mark
	sampleID      int64
	seen          bool // any ArkTS record
}

// New returns a parser writing through env.
func New(env Env, opts Options) *Parser {
	t := env.Tables
	a := func(tab *schema.Table) *rows.Appender { return rows.NewAppender(env.Sink, tab) }
	p := &Parser{env: env, opts: opts,
		out: heapsnapshot.Output{Nodes: a(t.JSHeapNodes), Edges: a(t.JSHeapEdges), Info: a(t.JSHeapInfo),
			Location: a(t.JSHeapLocation), Sample: a(t.JSHeapSample), String: a(t.JSHeapString),
			TraceFunctionInfo: a(t.JSHeapTraceFunctionInfo), TraceNode: a(t.JSHeapTraceNode)},
		heapTables: []*schema.Table{t.JSHeapNodes, t.JSHeapEdges, t.JSHeapInfo, t.JSHeapLocation,
			t.JSHeapSample, t.JSHeapString, t.JSHeapTraceFunctionInfo, t.JSHeapTraceNode},
		files: a(t.JSHeapFiles), config: a(t.JSConfig), cpuNodes: a(t.JSCPUProfilerNode),
		cpuSamples: a(t.JSCPUProfilerSample),
	}
	return p
}

// Seen reports whether any ArkTS record was handled.
func (p *Parser) Seen() bool { return p.seen }

// Files returns the number of heap files (snapshots and timelines) written.
func (p *Parser) Files() int64 { return p.fileID }

func (p *Parser) warn(typ, where, format string, args ...any) {
	p.env.Log.Warn(stat.JSMemory, typ, where, format, args...)
}

// Config handles an "arkts-plugin_config" record: a js_config row, and the mode.
func (p *Parser) Config(data []byte, where string) {
	p.seen = true
	var c hiprofpb.ArkTSConfig
	if err := proto.Unmarshal(data, &c); err != nil {
		p.warn(stat.InvalidData, where, "ArkTSConfig: %v", err)
		return
	}
	b := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	p.config.Ints(int64(c.Pid), int64(c.Type), int64(c.Interval), b(c.CaptureNumericValue),
		b(c.TrackAllocations), b(c.EnableCpuProfiler), int64(c.CpuProfilerInterval))
	p.mode = int32(c.Type)
	p.configSeen = true
}

// resultBytes returns field 1 of an ArkTSResult without copying it.
func resultBytes(data []byte) ([]byte, error) {
	var out []byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		data = data[n:]
		if num == 1 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			out, data = v, data[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, data)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		data = data[n:]
	}
	return out, nil
}

// Result handles an "arkts-plugin" record. ts is the record time already
// converted to BOOTTIME ns; clock converts the CPU profiler's MONOTONIC times.
func (p *Parser) Result(data []byte, ts int64, clock htrace.Clock, where string) {
	p.seen = true
	msg, err := resultBytes(data)
	if err != nil {
		p.warn(stat.InvalidData, where, "ArkTSResult: %v", err)
		return
	}
	// The plugin cuts frames at the first NUL; so do we.
	if i := strings.IndexByte(string(msg), 0); i >= 0 {
		msg = msg[:i]
	}
	var buf []byte
	if p.heap != nil {
		buf = p.heap.buffer()
	}
	m := route(msg, buf)
	switch m.kind {
	case kindInvalid:
		p.warn(stat.InvalidData, where, "message is not valid JSON (%v); ignored", m.err)
		if p.heap != nil {
			// It may have been a chunk: the snapshot text now has a hole.
			p.heap.broken = true
		}
	case kindChunk:
		p.chunk(m.chunk, ts, where)
	case kindMarker:
		p.marker(m.id, ts, where)
	case kindProfile:
		p.env.Range.Add(ts)
		p.profile(m.profile, clock, where)
	}
}

func (p *Parser) chunk(text []byte, ts int64, where string) {
	if p.heap == nil {
		p.mark = p.env.Sink.Mark(p.heapTables)
		fileID := p.fileID
		p.heap = startHeapStream(fileID, &p.out, func(format string, args ...any) {
			p.warn(stat.InvalidData, fmt.Sprintf("%s: heap file %d", p.env.Name, fileID), format, args...)
		})
		p.heap.firstChunk = ts
		p.heap.afterStart = p.haveStart
		if p.mode == ModeSnapshot {
			p.env.Range.Add(ts)
		}
	}
	p.heap.lastChunk = ts
	p.heap.send(text)
}

func (p *Parser) marker(id int64, ts int64, where string) {
	switch id {
	case 3:
		if !p.cpuStartSeen {
			p.cpuStartSeen = true
			p.env.Range.Add(ts)
		}
		return
	case 1, 2:
	default:
		return
	}
	mode := p.mode
	if !p.configSeen && id == 1 && p.heap == nil {
		// No config record: {"id":1} before any chunk starts a timeline.
		mode = ModeTimeline
		p.mode = ModeTimeline
	}
	if mode == ModeTimeline && id == 1 {
		p.timelineStart, p.haveStart = ts, true
		p.env.Range.Add(ts)
		return
	}
	p.env.Range.Add(ts)
	if p.heap == nil {
		p.warn(stat.InvalidData, where, "end marker {\"id\":%d} without heap snapshot chunks; no heap file", id)
		return
	}
	var name string
	start := p.heap.firstChunk
	switch {
	case mode == ModeTimeline || (mode != ModeSnapshot && p.heap.afterStart && id == 2):
		name = "Timeline"
		if p.haveStart {
			start = p.timelineStart
		} else {
			p.warn(stat.NotMatch, where, "timeline end without a start marker; start time taken from the first chunk")
		}
	default:
		name = "Snapshot" + strconv.FormatInt(p.fileID, 10)
	}
	p.haveStart = false
	if err := p.endHeap(name, start, ts); err != nil {
		p.warn(stat.InvalidData, where, "%s dropped: %v", name, err)
	}
}

// endHeap completes the open heap stream and writes its js_heap_files row, or
// drops its rows when it could not be decoded. A dropped snapshot does not use
// up a file id.
func (p *Parser) endHeap(name string, start, end int64) error {
	s := p.heap
	p.heap = nil
	r := s.finish()
	if r.err == nil && s.broken {
		r.err = fmt.Errorf("a message between its chunks was not valid JSON")
	}
	if r.err != nil {
		p.env.Sink.Rollback(p.mark)
		return fmt.Errorf("snapshot text: %w", r.err)
	}
	p.files.Row([]int64{p.fileID, start, end, r.res.SelfSize}, name)
	p.env.Log.Add(stat.JSMemory, stat.Received, 1)
	p.fileID++
	return nil
}

func (p *Parser) profile(raw []byte, clock htrace.Clock, where string) {
	prof, err := cpuprofile.Parse(raw)
	if err != nil {
		p.env.Log.Warn(stat.JSCPUProfiler, stat.InvalidData, where, "CPU profile dropped: %v", err)
		return
	}
	for _, pr := range prof.Problems {
		p.env.Log.Warn(stat.JSCPUProfiler, stat.NotMatch, where, "CPU profile: %s", pr)
	}
	p.env.Log.Add(stat.JSCPUProfiler, stat.Received, 1)
	WriteProfile(prof, p.env, p.cpuNodes, p.cpuSamples, &p.sampleID, p.opts, func(t int64) int64 {
		return int64(clock.ToBoot(htrace.ClockMonotonic, uint64(t)))
	})
}

// WriteProfile writes the js_cpu_profiler_node rows and the sample runs of a
// profile. conv converts profile times (ns) to the database's clock; sampleID is
// the table-wide run counter.
func WriteProfile(prof *cpuprofile.Profile, env Env, nodes, samples *rows.Appender, sampleID *int64,
	opts Options, conv func(int64) int64) {
	var children []string
	for _, n := range prof.Nodes {
		children = children[:0]
		for _, c := range n.Children {
			children = append(children, strconv.FormatInt(c, 10))
		}
		nodes.Row([]int64{n.ID, env.Dict.ID(n.FunctionName), env.Dict.ID(n.URL), n.LineNumber,
			n.ColumnNumber, n.HitCount, n.Parent}, n.ScriptID, strings.Join(children, ","))
	}
	runs := prof.Runs()
	if opts.CompatTiming {
		runs = prof.CompatRuns()
	}
	for _, r := range runs {
		start, end := conv(r.Start), conv(r.End)
		samples.Ints(*sampleID, r.NodeID, start, end, r.End-r.Start)
		*sampleID++
		env.Range.Add(start)
		env.Range.Add(end)
	}
}

// Finish ends the input: a heap snapshot still open is completed if its text is
// whole (its end time is the last chunk's), else dropped; pending rows are
// handed to the sink.
func (p *Parser) Finish() {
	if s := p.heap; s != nil {
		where := fmt.Sprintf("%s: end of input", p.env.Name)
		name := "Snapshot" + strconv.FormatInt(p.fileID, 10)
		start := s.firstChunk
		if p.mode == ModeTimeline {
			name = "Timeline"
			if p.haveStart {
				start = p.timelineStart
			}
		}
		if err := p.endHeap(name, start, s.lastChunk); err != nil {
			p.warn(stat.DataLost, where, "%s has no end marker and is incomplete; dropped (%v)", name, err)
		} else {
			p.warn(stat.NotMatch, where, "%s has no end marker; kept, with its last chunk's time as end", name)
		}
	}
	for _, a := range []*rows.Appender{p.files, p.config, p.cpuNodes, p.cpuSamples} {
		a.Flush()
	}
}
