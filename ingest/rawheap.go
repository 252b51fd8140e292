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

// rawheapFile reads an ArkTS .rawheap (docs/format/rawheap.md). Its decoder
// reads the file in passes at known offsets, so it needs random access: a
// regular uncompressed file is read where it is; a compressed one, an
// archive member or a pipe is first copied to a scratch file beside the
// output (removed at once, so nothing is left behind), the one copy of the
// dump a conversion makes. Every read of the dump checks ctx: a cancelled
// run stops reading it.
func (r *run) rawheapFile(ctx context.Context, o *opened, path string) error {
	if r.paired[path] {
		return nil // read with the dynamic half of its pair
	}
	if rawheap.Sniff(o.head) == rawheap.Static {
		return r.rawheapStatic(ctx, o, path)
	}
	warnf := func(format string, args ...any) { r.log.Warn(stat.JSMemory, stat.InvalidData, path, format, args...) }
	var ra io.ReaderAt
	var size int64
	if o.compression == "none" && reopenable(path) {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		ra, size = f, info.Size()
	} else {
		f, err := scratch.File(r.scratchDir, "rawheap")
		if err != nil {
			return err
		}
		os.Remove(f.Name())
		defer f.Close()
		n, err := io.Copy(f, o.r)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			warnf("rawheap dropped: copying it to a scratch file: %v", err)
			return nil
		}
		ra, size = f, n
	}
	f, err := rawheap.Open(ctxReaderAt{ctx, ra}, size)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.log.Warn(stat.Rawheap, stat.InvalidData, path, "rawheap dropped: %v", err)
		return nil
	}
	// A V2 dump's decoder logs its references in a scratch file rather than
	// keep its address index while the edges are made; removed at once, as
	// the copy above.
	var refs *os.File
	defer func() {
		if refs != nil {
			refs.Close()
		}
	}()
	f.Scratch = func() (rawheap.ScratchFile, error) {
		sf, err := scratch.File(r.scratchDir, "rawheap-refs")
		if err != nil {
			return nil, err
		}
		os.Remove(sf.Name())
		refs = sf
		return sf, nil
	}
	if sta, ok := r.pairs[path]; ok {
		return r.rawheapPair(ctx, f, path, sta)
	}
	r.log.Add(stat.Rawheap, stat.Received, 1)
	return r.rawheapGraph(ctx, path, warnf, func(g rawheap.Graph, _ rawheap.Warner) (uint64, error) {
		_, err := rawheap.DecodeProblems(f, g, r.problems(path))
		return f.Timestamp, err
	})
}

// rawheapTime converts a .rawheap header's timestamp (the runtime's
// system_clock: µs since the Unix epoch with OpenHarmony's libc++, ns with
// libstdc++) to ns since the epoch, telling the units apart by size.
func rawheapTime(ts uint64) int64 {
	switch {
	case ts == 0:
		return 0
	case ts >= 1e17: // ns: after 1973
		return int64(ts)
	case ts >= 1e14: // µs
		return int64(ts) * 1e3
	case ts >= 1e11: // ms
		return int64(ts) * 1e6
	}
	return int64(ts) * 1e9
}

// rawheapMeta is the meta of the translator's snapshot of a .rawheap.
var rawheapMeta = heapfile.Meta{
	NodeTypes:   [][]string{rawheap.NodeTypes, {"string"}, {"number"}, {"number"}, {"number"}, {"number"}, {"number"}, {"number"}},
	EdgeTypes:   [][]string{rawheap.EdgeTypes, {"string_or_number"}, {"node"}},
	CountsAfter: true, NodeStride: len(rawheap.NodeFields), Detachedness: true,
}

// graphOf hands a decoded .rawheap to the heap file writer as the
// translator's snapshot lays it out (rawheap.NodeFields, native_size the
// eighth value, as the JSON decoder hands over an ArkTS snapshot's).
type graphOf struct{ w *heapfile.Writer }

func (g graphOf) Node(typ, name, id, self, ec, native int64) {
	g.w.Node(heapfile.Node{Type: typ, Name: name, ID: id, SelfSize: self, EdgeCount: ec, NativeSize: native})
}
func (g graphOf) Edge(typ, name, to int64) {
	g.w.Edge(heapfile.Edge{Type: typ, NameOrIndex: name, ToNode: to * int64(len(rawheap.NodeFields))})
}
func (g graphOf) String(s string)                            { g.w.String(s) }
func (g graphOf) NodeArrays() (name, self []uint32, ok bool) { return g.w.NodeArrays() }
func (g graphOf) Reserve(nodes, edges int64)                 { g.w.Reserve(nodes, edges) }
