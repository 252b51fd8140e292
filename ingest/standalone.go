package ingest

import (
	"fmt"
	"io"
	"os"

	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/heapsnapshot"
	"tracestreamer/parser/traceevent"
	"tracestreamer/stat"
)

// heapFile reads a standalone .heapsnapshot or .heaptimeline. Such a file has
// no capture time: its js_heap_files start_time and end_time are the file's
// modification time (ns since the Unix epoch, CLOCK_REALTIME).
func (r *run) heapFile(in io.Reader, path string) error {
	var when int64
	if info, err := os.Stat(path); err == nil {
		when = info.ModTime().UnixNano()
	}
	id := r.heap.NextID()
	mark := r.heap.Begin()
	res, err := heapsnapshot.Decode(in, id, &r.heap.Out, func(format string, args ...any) {
		r.log.Warn(stat.JSMemory, stat.InvalidData, path, format, args...)
	})
	if err != nil {
		r.heap.Out.Discard()
		r.heap.Drop(mark)
		r.log.Warn(stat.JSMemory, stat.InvalidData, path, "heap snapshot dropped: %v", err)
		return nil
	}
	r.heap.Out.Flush()
	name := heapsnapshot.SnapshotName(id)
	if res.IsTimeline() {
		name = heapsnapshot.TimelineName
	}
	r.heap.Add(name, when, when, res)
	r.rng.Add(when)
	r.log.Add(stat.JSMemory, stat.Received, 1)
	return nil
}

// cpuFile reads a standalone .cpuprofile. Its times are stored on the
// profile's own clock (V8: a monotonic clock, µs converted to ns), as there is
// no clock snapshot to convert them with.
func (r *run) cpuFile(in io.Reader, path string, source int64) error {
	b, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	p, repaired, err := cpuprofile.ParseRepairing(b)
	if err != nil {
		r.log.Warn(stat.JSCPUProfiler, stat.InvalidData, path, "CPU profile dropped: %v", err)
		return nil
	}
	if repaired > 0 {
		r.log.Warn(stat.JSCPUProfiler, stat.InvalidData, path,
			"CPU profile repaired: %d function or module names were written without JSON escaping", repaired)
	}
	for _, pr := range p.Problems {
		r.log.Warn(stat.JSCPUProfiler, stat.NotMatch, path, "%s", pr)
	}
	r.log.Add(stat.JSCPUProfiler, stat.Received, 1)
	r.cpu.Write(p, source, r.opts.CompatTiming, func(t int64) int64 { return t })
	return nil
}

// traceFile reads a Chrome Trace Event Format file (JSON array or object
// form). All such files of a run share one importer: processes, threads and
// ids continue from one file to the next.
func (r *run) traceFile(in io.Reader, path, compression string) error {
	if r.trace == nil {
		r.trace = traceevent.New(traceevent.Env{Sink: r.sink, Tables: r.tables, Dict: r.dict, Range: &r.rng, Log: r.log},
			traceevent.Options{SortBudget: r.opts.SortBudget})
	}
	return r.trace.Read(in, traceevent.Input{Path: path, Compression: compression})
}
