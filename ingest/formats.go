package ingest

import (
	"bytes"
	"context"
	"io"

	"tracestreamer/parser/arkts"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/heapsnapshot"
	"tracestreamer/parser/htrace"
	"tracestreamer/parser/rawheap"
	"tracestreamer/parser/traceevent"
	"tracestreamer/stat"
)

// format is an input format recognised by content: its name in table
// source and for Options.BeforeInput.
type format string

const (
	formatUnknown      format = ""
	formatHTrace       format = "htrace"
	formatHeapSnapshot format = "heapsnapshot" // also .heaptimeline
	formatCPUProfile   format = "cpuprofile"
	formatTraceEvent   format = "traceevent" // Chrome JSON trace
	formatRawheap      format = "rawheap"    // ArkTS heap dump
)

// inputFormat is one input format: how an input of it is recognised, what
// reads it, where an internal error while reading it is counted, and what it
// yields that makes a run usable. Recognition, conversion, the panic guard
// and the "nothing usable" check of a run, and info's description of an input
// (Sniffed.Describe), all walk inputFormats; a new format is one more entry
// (docs/architecture.md#adding-things).
type inputFormat struct {
	name format
	// detect reports whether the (decompressed) first bytes of an input,
	// up to sniffSize, are of this format. Entries are tried in order; the
	// first that matches wins.
	detect func(head []byte) bool
	// read converts one input.
	read func(r *run, ctx context.Context, in inputFile) error
	// event is the stat event a panic while reading an input of the format
	// is counted under (its parser counts its own problems where it finds
	// them).
	event stat.Event
	// usable reports whether what the run holds includes something this
	// format yields; a run in which no format's usable holds fails with
	// ErrNothingUsable.
	usable func(r *run) bool
	// describe says what an input of the format holds, for `tracestreamer
	// info`, without converting it: the format parser's own counting, one
	// line at a time to add. It returns the decompressed content's size. Nil:
	// info gives the format and size only.
	describe describer
}

// inputFile is an input being converted.
type inputFile struct {
	path   string
	o      *opened
	source int64 // its id in table source
}

// inputFormats returns the formats tracestreamer reads, in the order they
// are tried on an input's first bytes. (A function, not a variable: the
// readers it names open inputs, which recognises them through it.)
func inputFormats() []inputFormat {
	return []inputFormat{
		{name: formatHTrace, detect: htrace.IsHTrace, event: stat.HTraceRecord,
			read: func(r *run, ctx context.Context, in inputFile) error {
				return r.htrace(ctx, in.o.r, in.path, in.source)
			},
			usable: func(r *run) bool { return r.db.Count(r.tables.JSConfig) > 0 || heapFiles(r) || cpuProfiles(r) },
			describe: streamed(func(_ context.Context, r io.Reader, path string, add addLinef) error {
				return arkts.DescribeHTrace(r, path, add)
			})},
		{name: formatRawheap, detect: func(head []byte) bool { return rawheap.Sniff(head) != rawheap.NotRawheap },
			event: stat.JSMemory, usable: heapFiles, describe: describeRawheap,
			read: func(r *run, ctx context.Context, in inputFile) error { return r.rawheapFile(ctx, in.o, in.path) }},
		{name: formatTraceEvent, detect: isJSON(formatTraceEvent), event: stat.JSONFile,
			read: func(r *run, ctx context.Context, in inputFile) error {
				return r.traceFile(ctx, in.o.r, in.path, in.o.compression)
			},
			usable:   func(r *run) bool { return r.trace != nil },
			describe: streamed(func(_ context.Context, r io.Reader, _ string, add addLinef) error { return traceevent.Describe(r, add) })},
		{name: formatHeapSnapshot, detect: isJSON(formatHeapSnapshot), event: stat.JSMemory, usable: heapFiles,
			read: func(r *run, ctx context.Context, in inputFile) error { return r.heapFile(ctx, in.o.r, in.path) },
			describe: streamed(func(_ context.Context, r io.Reader, _ string, add addLinef) error {
				return heapsnapshot.Describe(r, add)
			})},
		{name: formatCPUProfile, detect: isJSON(formatCPUProfile), event: stat.JSCPUProfiler, usable: cpuProfiles,
			read: func(r *run, ctx context.Context, in inputFile) error {
				return r.cpuFile(ctx, in.o.r, in.path, in.source)
			},
			describe: streamed(func(ctx context.Context, r io.Reader, _ string, add addLinef) error {
				return cpuprofile.Describe(ctx, r, add)
			})},
	}
}

// heapFiles reports whether the run kept a heap file.
func heapFiles(r *run) bool { return r.heap.NextID() > 0 }

// cpuProfiles reports whether the run kept a CPU profile.
func cpuProfiles(r *run) bool { return r.cpu.NextID() > 0 }

// isJSON returns the detection of one of the JSON formats, which one scan of
// the head tells apart (detectJSON).
func isJSON(f format) func(head []byte) bool {
	return func(head []byte) bool { return detectJSON(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))) == f }
}

// detect recognises an input from its first bytes.
func detect(head []byte) format {
	for _, f := range inputFormats() {
		if f.detect(head) {
			return f.name
		}
	}
	return formatUnknown
}

// formatNamed returns the entry of a recognised format.
func formatNamed(name format) inputFormat {
	for _, f := range inputFormats() {
		if f.name == name {
			return f
		}
	}
	panic("ingest: no input format " + string(name))
}

// usable reports whether the run read anything usable from any input.
func (r *run) usable() bool {
	for _, f := range inputFormats() {
		if f.usable(r) {
			return true
		}
	}
	return false
}
