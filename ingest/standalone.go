package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"tracestreamer/heapfile"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/heapsnapshot"
	"tracestreamer/parser/traceevent"
	"tracestreamer/stat"
)

// modTime returns a file's modification time in ns since the Unix epoch
// (CLOCK_REALTIME), or 0 if it has none.
func modTime(path string) int64 {
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		return info.ModTime().UnixNano()
	}
	return 0
}

// heapFile reads a standalone .heapsnapshot or .heaptimeline. Such a file
// records no capture time, so it is placed on the wall clock (CLOCK_REALTIME, ns
// since the Unix epoch) ending at the file's modification time: a timeline
// lasts as long as its samples say, a snapshot 1 ns, the least that
// SmartPerf-Host draws (it skips heap files whose start and end are equal).
func (r *run) heapFile(ctx context.Context, in io.Reader, path string) error {
	end := modTime(path)
	var start int64
	_, err := r.heap.Read(path, heapsnapshot.Decoder(in), func(format string, args ...any) {
		r.log.Warn(stat.JSMemory, stat.InvalidData, path, format, args...)
	}, func(id int64, s heapfile.Summary) (string, int64, int64) {
		if s.IsTimeline() {
			r.standalone.timelines++
			start = end - max(1, s.LastSampleUs*1000)
			return heapfile.TimelineName, start, end
		}
		r.standalone.snapshots++
		start = end - 1
		return heapfile.SnapshotName(id), start, end
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // interrupted, not damaged
		}
		r.log.Warn(stat.JSMemory, stat.InvalidData, path, "heap snapshot dropped: %v", err)
		return nil
	}
	r.rng.Add(start)
	r.rng.Add(end)
	return nil
}

// cpuFile reads a standalone .cpuprofile. Its times (V8: a monotonic clock of
// the capturing machine, µs) have no clock snapshot to convert them with; like
// a standalone heap file it is placed on the wall clock, shifted so that it
// ends at the file's modification time (its own clock when the file has none),
// so that the heap files and profiles of a run share one timeline.
//
// It is decoded as it is read, in memory proportional to what it holds, not
// to its text (a small .gz can hold gigabytes of white space). A repair needs
// the text again: a regular file is opened again for it, as recognition does
// (neither hashed nor counted again); the text of a pipe is kept deflated.
func (r *run) cpuFile(ctx context.Context, in io.Reader, path string, source int64) error {
	var reopen func() (io.ReadCloser, error)
	if reopenable(path) {
		reopen = func() (io.ReadCloser, error) {
			o, err := open(ctx, path, nil, func(f io.Reader) io.Reader { return ctxReader{ctx, f} })
			if err != nil {
				return nil, err
			}
			return readCloser{o.r, o.close}, nil
		}
	}
	p, repaired, err := cpuprofile.ParseRepairingReader(ctx, in, reopen)
	var re *cpuprofile.ReadError
	if errors.As(err, &re) {
		return fmt.Errorf("%s: %w", path, re.Err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !cpuprofile.Report(r.log, path, p, repaired, err) {
		return nil
	}
	var shift int64
	if mtime := modTime(path); mtime != 0 {
		shift = mtime - p.End()
	}
	r.cpu.Write(p, source, r.opts.CompatTiming, func(t int64) int64 { return t + shift })
	r.standalone.profiles++
	return nil
}

// readCloser is a reader and the function that closes what it reads.
type readCloser struct {
	io.Reader
	close func()
}

func (c readCloser) Close() error {
	c.close()
	return nil
}

// traceFile reads a Chrome Trace Event Format file (JSON array or object
// form). All such files of a run share one importer: processes, threads and
// ids continue from one file to the next.
func (r *run) traceFile(ctx context.Context, in io.Reader, path, compression string) error {
	if r.trace == nil {
		r.trace = traceevent.New(traceevent.Env{Sink: r.sink, Tables: r.tables, Dict: r.dict, Range: &r.rng, Log: r.log},
			traceevent.Options{SortBudget: r.opts.SortBudget, MaxEvent: r.opts.MaxEvent,
				MaxThreads: r.opts.MaxThreads, MaxPending: r.opts.MaxPending, MaxCounters: r.opts.MaxCounters})
	}
	return r.trace.Read(ctx, in, traceevent.Input{Path: path, Compression: compression})
}
