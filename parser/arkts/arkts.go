// Package arkts turns the records of OpenHarmony's ArkTS profiler plugin into the
// js_* tables: "arkts-plugin_config" records (ArkTSConfig) and "arkts-plugin"
// records, each one DevTools-protocol message (ArkTSResult). Heap snapshot and
// timeline chunks are streamed into a heap snapshot decoder as they arrive; CPU
// profiles are decoded when their message arrives (docs/format/arkts.md).
//
// # Decoder
//
// Message heads are routed with jsonscan (message.go), which unescapes a
// chunk's text straight into a reused buffer: 381–549 MB/s on 64 KiB snapshot
// chunks with 7 allocated bytes a message (sonic_bench_test.go; why not sonic:
// docs/performance.md).
package arkts

import (
	"bytes"
	"context"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"tracestreamer/heapfile"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/heapsnapshot"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
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
	Sink   rows.Sink
	Tables *schema.Tables
	Range  *rows.Range
	Log    *stat.Log
	Heap   *heapfile.Files    // heap file numbering, shared by all inputs
	CPU    *cpuprofile.Writer // CPU profile rows, shared by all inputs
}

// Parser is the ArkTS plugin state machine of one run. Feed it records in file
// order with Config and Result, then call Finish.
type Parser struct {
	env  Env
	opts Options

	config tables.JSConfigWriter // this package is the one writer of js_config
	name   string                // current input, for messages
	source int64                 // current input's source id

	mode          int32
	configSeen    bool
	timelineStart int64 // BOOTTIME ns of the timeline start marker
	haveStart     bool
	cpuStartSeen  bool
	heap          *heapStream
	heapBufs      heapsnapshot.Buffers // the heap streams' read buffers, one stream's for the next
	seen          bool                 // any ArkTS record
}

// New returns a parser writing through env.
func New(env Env, opts Options) *Parser {
	return &Parser{env: env, opts: opts, config: tables.NewJSConfig(env.Sink, env.Tables)}
}

// StandaloneConfig writes the js_config row of a run whose heap files or CPU
// profiles all come from standalone files (no config record), given how many
// snapshots, timelines and CPU profiles were read. SmartPerf-Host reads the
// first js_config row before it draws any ArkTS row (and stops loading
// without one), taking type to choose between the snapshot and the timeline
// row and enable_cpu_profiler to show the profile. The row says what the
// files hold: pid 0 (unknown), type 1 if a timeline was read, else 0 with heap
// files, else -1; trace_allocation 1 with a timeline; the intervals and
// capture_numeric_value, which no file records, are NULL.
func (p *Parser) StandaloneConfig(snapshots, timelines, profiles int) {
	if p.configSeen || snapshots+timelines+profiles == 0 {
		return
	}
	typ := int64(-1)
	switch {
	case timelines > 0:
		typ = 1
	case snapshots > 0:
		typ = 0
	}
	flag := func(n int) int64 { return int64(min(n, 1)) }
	p.config.Append(&tables.JSConfig{Pid: 0, Type: typ, Interval: rows.Int{}, CaptureNumericValue: rows.Int{},
		TraceAllocation: flag(timelines), EnableCPUProfiler: flag(profiles), CPUProfilerInterval: rows.Int{}})
	p.config.Flush()
}

// SetInput names the input whose records follow, and its source id. The heap
// mode and markers carry over from one input to the next (a capture split into
// several files repeats its config record in each).
func (p *Parser) SetInput(name string, source int64) { p.name, p.source = name, source }

// Seen reports whether any ArkTS record was handled.
func (p *Parser) Seen() bool { return p.seen }

func (p *Parser) warn(typ stat.Type, where, format string, args ...any) {
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
	p.config.Append(&tables.JSConfig{Pid: int64(c.Pid), Type: int64(c.Type), Interval: rows.I(int64(c.Interval)),
		CaptureNumericValue: rows.I(b(c.CaptureNumericValue)), TraceAllocation: b(c.TrackAllocations),
		EnableCPUProfiler: b(c.EnableCpuProfiler), CPUProfilerInterval: rows.I(int64(c.CpuProfilerInterval))})
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
// A CPU profile being decoded is given up when ctx is cancelled.
func (p *Parser) Result(ctx context.Context, data []byte, ts int64, clock htrace.Clock, where string) {
	p.seen = true
	msg, err := resultBytes(data)
	if err != nil {
		p.warn(stat.InvalidData, where, "ArkTSResult: %v", err)
		return
	}
	// The plugin cuts frames at the first NUL; so do we.
	if i := bytes.IndexByte(msg, 0); i >= 0 {
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
		p.profile(ctx, m.profile, clock, where)
	}
}

func (p *Parser) chunk(text []byte, ts int64, where string) {
	if p.heap == nil {
		prefix := fmt.Sprintf("%s: heap file %d", p.name, p.env.Heap.NextID())
		p.heap = startHeapStream(p.env.Heap.Begin(prefix, func(format string, args ...any) {
			p.warn(stat.InvalidData, prefix, format, args...)
		}), &p.heapBufs)
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
		name = heapfile.TimelineName
		if p.haveStart {
			start = p.timelineStart
		} else {
			p.warn(stat.NotMatch, where, "timeline end without a start marker; start time taken from the first chunk")
		}
	default:
		name = heapfile.SnapshotName(p.env.Heap.NextID())
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
		s.file.Drop()
		return fmt.Errorf("snapshot text: %w", r.err)
	}
	s.file.Keep(name, start, end)
	return nil
}

func (p *Parser) profile(ctx context.Context, raw []byte, clock htrace.Clock, where string) {
	prof, repaired, err := cpuprofile.ParseRepairing(ctx, raw)
	if ctx.Err() != nil {
		return // the run is being abandoned
	}
	if !cpuprofile.Report(p.env.Log, where, prof, repaired, err) {
		return
	}
	p.env.CPU.Write(prof, p.source, p.opts.CompatTiming, func(t int64) int64 {
		return int64(clock.ToBoot(htrace.ClockMonotonic, uint64(t)))
	})
}

// Finish ends the input: a heap snapshot still open is completed if its text is
// whole (its end time is the last chunk's), else dropped; pending js_config rows
// are handed to the sink (heap and CPU rows are flushed by their writers).
func (p *Parser) Finish() {
	if s := p.heap; s != nil {
		where := fmt.Sprintf("%s: end of input", p.name)
		name := heapfile.SnapshotName(p.env.Heap.NextID())
		start := s.firstChunk
		if p.mode == ModeTimeline {
			name = heapfile.TimelineName
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
	p.config.Flush()
}
