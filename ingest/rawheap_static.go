package ingest

import (
	"context"
	"io"
	"os"

	"tracestreamer/heapfile"
	"tracestreamer/internal/scratch"
	"tracestreamer/parser/rawheap"
	"tracestreamer/stat"
)

// A hybrid pair is a dynamic dump named on the command line just before the
// static dump of the same process, as rawheap_translator takes them
// (docs/format/rawheap.md#hybrid-pairs): the two make one heap file. A static
// dump marked hybrid that does not follow a dynamic one is read alone.

// findPairs marks the hybrid pairs among the inputs, from their first bytes.
// The static half must be a regular file: it is read while the dynamic half
// is converted.
func (r *run) findPairs(inputs []string, heads [][]byte) {
	for i := 0; i+1 < len(inputs); i++ {
		k := rawheap.Sniff(heads[i])
		dynamic := k == rawheap.DynamicV1 || k == rawheap.DynamicV1NoVersion || k == rawheap.DynamicV2
		if !dynamic || !rawheap.IsHybridStatic(heads[i+1]) {
			continue
		}
		if !reopenable(inputs[i+1]) {
			r.log.Warn(stat.JSMemory, stat.NotSupported, inputs[i+1],
				"the static half of a hybrid pair must be a regular file to be joined with %s; it is read alone", inputs[i])
			continue
		}
		if r.pairs == nil {
			r.pairs = map[string]string{}
			r.paired = map[string]bool{}
		}
		r.pairs[inputs[i]] = inputs[i+1]
		r.paired[inputs[i+1]] = true
		i++
	}
}

// problemTypes is the stat type that counts each kind of problem of a
// static dump or a pair (docs/format/stat.md#rawheap).
var problemTypes = map[rawheap.ProblemKind]stat.Type{
	rawheap.ProblemTruncated:  stat.DataLost,
	rawheap.ProblemBadRecord:  stat.InvalidData,
	rawheap.ProblemUnknownTag: stat.NotSupported,
	rawheap.ProblemDangling:   stat.NotMatch,
	rawheap.ProblemXRef:       stat.NotMatch,
	rawheap.ProblemDynamic:    stat.InvalidData,
	rawheap.ProblemOutside:    stat.DataLost,
}

// problems reports a static dump's problems under stat's rawheap event.
func (r *run) problems(path string) func(rawheap.Problem) {
	return func(p rawheap.Problem) {
		r.log.Warn(stat.Rawheap, problemTypes[p.Kind], path, "offset %d: %s", p.Offset, p.Msg)
	}
}

// rawheapStatic reads a static dump alone. Its decoder keeps the object
// records in a scratch file beside the output while it makes the graph in
// passes over them (removed at once: it is gone when the run ends, however
// it ends).
func (r *run) rawheapStatic(ctx context.Context, o *opened, path string) error {
	warnf := func(format string, args ...any) { r.log.Warn(stat.Rawheap, stat.InvalidData, path, format, args...) }
	r.log.Add(stat.Rawheap, stat.Received, 1)
	var records *os.File
	defer func() {
		if records != nil {
			records.Close()
		}
	}()
	scratchFile := func() (rawheap.ScratchFile, error) {
		f, err := scratch.File(r.scratchDir, "rawheap-records")
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name())
		records = f
		return ctxScratch{ctxReaderAt{ctx, f}, f}, nil
	}
	return r.rawheapGraph(ctx, path, warnf, func(g rawheap.Graph, _ rawheap.Warner) (uint64, error) {
		info, _, err := rawheap.DecodeStaticScratch(o.r, g, r.problems(path), scratchFile)
		return info.Timestamp, err
	})
}

// rawheapPair reads a hybrid pair: f, the dynamic half opened at path, and
// the static half at staPath, read through ctx as the dynamic one is.
func (r *run) rawheapPair(ctx context.Context, f *rawheap.File, path, staPath string) error {
	warnf := func(format string, args ...any) { r.log.Warn(stat.Rawheap, stat.InvalidData, path, format, args...) }
	r.log.Add(stat.Rawheap, stat.Received, 2)
	so, err := open(ctx, staPath, nil, func(f io.Reader) io.Reader { return ctxReader{ctx, f} })
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		warnf("hybrid pair: its static half %s: %v; the dynamic dump is read alone", staPath, err)
		so = &opened{r: eofReader{}, close: func() {}}
	}
	defer so.close()
	return r.rawheapGraph(ctx, path, warnf, func(g rawheap.Graph, _ rawheap.Warner) (uint64, error) {
		info, _, err := rawheap.DecodeHybrid(f, so.r, g, r.problems(path+" (with "+staPath+")"))
		ts := f.Timestamp
		if ts == 0 {
			ts = info.Timestamp
		}
		return ts, err
	})
}

// ctxScratch is a scratch file whose reads stop once ctx is cancelled: a
// decoder reading it back in passes ends at once.
type ctxScratch struct {
	ctxReaderAt
	io.WriterAt
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// rawheapGraph writes the heap file a .rawheap decoder hands its graph to
// (decode returns the dump's timestamp; without one the file at path gives
// its modification time), or drops it when the decoder gives nothing usable.
// A cancelled run returns ctx's error, with no warning: the run ends there.
func (r *run) rawheapGraph(ctx context.Context, path string, warnf func(string, ...any), decode func(rawheap.Graph, rawheap.Warner) (uint64, error)) error {
	var end int64
	_, err := r.heap.Read(path, func(w *heapfile.Writer) error {
		w.Meta(rawheapMeta)
		ts, err := decode(graphOf{w}, func(off int64, format string, args ...any) {
			warnf("offset %d: "+format, append([]any{off}, args...)...)
		})
		if end = rawheapTime(ts); end == 0 {
			end = modTime(path)
		}
		return err
	}, warnf, func(id int64, _ heapfile.Summary) (string, int64, int64) {
		return heapfile.SnapshotName(id), end - 1, end
	})
	// Also when the decoder took the cancelled reads for a cut dump and
	// returned no error: the dump is not counted as read. No test can see
	// this check: Run looks at ctx once the inputs are read and ends an
	// interrupted run with ctx.Err() either way, printing nothing (ctxWriter).
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		warnf("rawheap dropped: %v", err)
		return nil
	}
	r.rng.Add(end - 1)
	r.rng.Add(end)
	r.standalone.snapshots++
	return nil
}
