package heapfile

import (
	"errors"
	"fmt"
	"os"
	"tracestreamer/stat"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/internal/scratch"
	"tracestreamer/internal/task"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/tables"
)

// Options say what is made of each heap file besides its own rows.
type Options struct {
	// Analyse makes the analysis run on every file's object graph
	// (js_heap_node_stats, js_heap_class) and consecutive files of the run
	// be compared (js_heap_class_diff).
	Analyse bool
	// ScratchDir, when set, is where the analysis keeps the per-node arrays
	// it does not need for a while, in a file removed as soon as it is made
	// (heapgraph.ShelfFile); without it they stay in memory.
	ScratchDir string
	// Stop, when closed, makes the analysis of the file being read give up
	// between its steps, and the file's decode fail (the run is being
	// interrupted).
	Stop <-chan struct{}
}

// Output holds the appenders of the tables a heap file fills, and decodes
// files into them.
type Output struct {
	nodes        tables.JSHeapNodesWriter
	edges        tables.JSHeapEdgesWriter
	info         tables.JSHeapInfoWriter
	location     tables.JSHeapLocationWriter
	sample       tables.JSHeapSampleWriter
	str          tables.JSHeapStringWriter
	functionInfo tables.JSHeapTraceFunctionInfoWriter
	traceNode    tables.JSHeapTraceNodeWriter
	native       tables.JSHeapNativeSizeWriter
	// stats and classes are set when the graph is to be analysed.
	stats      *tables.JSHeapNodeStatsWriter
	classes    *tables.JSHeapClassWriter
	scratchDir string
	stop       <-chan struct{}
	// leaks, when set (Files.CompareLeaks), compares heap files for leaks.
	leaks *leakState
}

// NewOutput returns the writers of a heap file's tables; with opts.Analyse
// set, those of the analysis too.
func NewOutput(sink rows.Sink, t *schema.Tables, opts Options) *Output {
	o := &Output{nodes: tables.NewJSHeapNodes(sink, t), edges: tables.NewJSHeapEdges(sink, t),
		info: tables.NewJSHeapInfo(sink, t), location: tables.NewJSHeapLocation(sink, t),
		sample: tables.NewJSHeapSample(sink, t), str: tables.NewJSHeapString(sink, t),
		functionInfo: tables.NewJSHeapTraceFunctionInfo(sink, t), traceNode: tables.NewJSHeapTraceNode(sink, t),
		native: tables.NewJSHeapNativeSize(sink, t), scratchDir: opts.ScratchDir, stop: opts.Stop}
	if opts.Analyse {
		s, c := tables.NewJSHeapNodeStats(sink, t), tables.NewJSHeapClass(sink, t)
		o.stats, o.classes = &s, &c
	}
	return o
}

// Flush hands every pending row to the sink.
func (o *Output) Flush() {
	for _, a := range o.all() {
		a.Flush()
	}
}

// discard drops the pending rows.
func (o *Output) discard() {
	for _, a := range o.all() {
		a.Discard()
	}
}

func (o *Output) all() []*rows.Appender {
	all := []*rows.Appender{o.nodes.Appender(), o.edges.Appender(), o.info.Appender(), o.location.Appender(),
		o.sample.Appender(), o.str.Appender(), o.functionInfo.Appender(), o.traceNode.Appender(), o.native.Appender()}
	if o.stats != nil {
		all = append(all, o.stats.Appender(), o.classes.Appender())
	}
	if o.leaks != nil {
		all = append(all, o.leaks.appenders()...)
	}
	return all
}

// Decode runs dec and writes the heap file's rows with the given file id,
// then, with the analysis, analyses its graph. Its rows are handed to the
// sink when it succeeds and discarded when it fails; rows the sink already
// has are the caller's to remove (rows.Sink.Rollback). Files.Read does all
// that and numbers the file.
//
// A panic while decoding or analysing (a bug, whatever the input) is returned
// as an error, so that the caller drops this file and goes on.
//
// The inconsistencies the Writer counts go to warn, one message for each kind.
func (o *Output) Decode(fileID int64, dec Decoder, warn Warner) (Summary, error) {
	w, err := o.decodeFile(fileID, dec, warn, nil)
	return w.sum, err
}

// decodeFile is Decode, returning the Writer.
func (o *Output) decodeFile(fileID int64, dec Decoder, warn Warner, report Reporter) (*Writer, error) {
	w, err := o.decode(fileID, dec, warn, report)
	if err != nil {
		o.discard()
	} else {
		o.Flush()
	}
	return w, err
}

func (o *Output) decode(fileID int64, dec Decoder, warn Warner, report Reporter) (w *Writer, err error) {
	if warn == nil {
		warn = func(string, ...any) {}
	}
	if report == nil {
		report = func(_ stat.Event, _ stat.Type, _ int64, msg string) {
			if msg != "" {
				warn("%s", msg)
			}
		}
	}
	w = &Writer{fileID: fileID, out: o, warn: warn, report: report, stride: 1, edgeNode: -1}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (please report it): %v", p)
		}
	}()
	if o.stats != nil {
		w.graph = &heapgraph.Graph{}
		w.rows = startGraphRows(fileID, o)
		// Runs before the recover above: the row writer is stopped (or, after
		// a success, found done) before the caller drops or keeps the rows.
		defer w.rows.stop()
	}
	if err := dec(w); err != nil {
		return w, err
	}
	w.ended()
	if w.graph != nil {
		w.rows.publish(w, true)
		if err := w.analyse(); err != nil {
			return w, err
		}
	}
	return w, nil
}

// analyse runs the graph analysis and writes js_heap_node_stats and
// js_heap_class. Its first steps run while the row writer still writes the
// graph's rows; it waits for the writer before it drops any of the graph's
// arrays (heapgraph.Graph.ReadersDone), and returns only once the writer is
// done. The rows go to the sink like any others: its lanes pack them on
// other cores while the analysis goes on.
func (w *Writer) analyse() error {
	g := w.graph
	if m := w.meta; m != nil {
		if len(m.NodeTypes) > 0 {
			g.NodeTypes = m.NodeTypes[0]
		}
		if len(m.EdgeTypes) > 0 {
			g.EdgeTypes = m.EdgeTypes[0]
		}
		g.Root = uint32(m.Root)
		g.HasDetachedness = m.Detachedness
	}
	if err := g.Check(); err != nil {
		w.warn("heap analysis skipped: %v", err)
		w.graph = nil
		return w.rows.wait()
	}
	stats := w.out.stats
	lk := w.out.leaks
	g.KeepLabels = lk != nil && lk.isFinal(w.fileID)
	if dir := w.out.scratchDir; dir != "" {
		f, err := scratch.File(dir, "heap-shelf")
		if err != nil {
			w.warn("heap analysis holds all its arrays in memory: %v", err)
		} else {
			// Unlinked at once where the system allows it, so that nothing
			// is left behind even if the process is killed.
			os.Remove(f.Name())
			defer func() {
				f.Close()
				os.Remove(f.Name())
			}()
			g.Shelf = f
		}
	}
	w.ids = nil // g.ID, which AnalyzeNodes takes off to the shelf
	g.Stop = w.out.stop
	// Once the row writer lets the graph's arrays go, the arrays Analyze
	// drops are freed before it makes its own.
	g.ReadersDone = w.rows.wait
	r, err := g.AnalyzeNodes()
	if errors.Is(err, heapgraph.ErrStopped) {
		return err
	}
	if err := w.rows.wait(); err != nil {
		return err // the writer's panic, whether or not Analyze got that far
	}
	if err != nil {
		w.warn("heap analysis skipped: %v", err)
		w.graph = nil
		return nil
	}
	// The class summary is made on another core while the per-node rows
	// are handed to the writer, which then has the most work (5 M nodes:
	// 0.27 s of summary under 0.42 s of rows). A panic there is raised
	// again here, where Decode turns it into an error.
	summary := task.Go(func() { g.Summarize(r) })
	defer summary.Join()
	for v := range g.NodeCount() {
		var retainer, edge, etype, ename rows.Int
		if e := r.Retainer[v]; e != heapgraph.NoNode {
			retainer, edge = rows.I(g.ID[r.RetainerNode[v]]), rows.I(int64(e))
			etype, ename = rows.I(int64(r.RetainerType[v])), rows.I(int64(r.RetainerName[v]))
		}
		stats.Append(&tables.JSHeapNodeStats{FileID: w.fileID, NodeIndex: int64(v), ID: g.ID[v],
			DominatorID: g.ID[r.Dominator[v]], RetainedSize: int64(r.Retained[v]), Distance: int64(r.Distance[v]),
			ShallowSize: int64(r.Shallow[v]), ClassID: int64(r.Class[v]), RetainerID: retainer, RetainerEdge: edge,
			RetainerEdgeType: etype, RetainerEdgeName: ename})
	}
	summary.Wait()
	for i, c := range r.Classes {
		w.out.classes.Append(&tables.JSHeapClass{FileID: w.fileID, ClassID: int64(i), Name: c.Name, Count: c.Count,
			ShallowSize: c.Shallow, RetainedSize: int64(c.Retained), MinDistance: int64(c.MinDistance)})
	}
	if lk != nil {
		lk.analysed(w.fileID, g, r, w.warn)
	}
	// Only ids, shallow sizes and classes are kept from here on, for a
	// comparison with a later file (made only if one comes).
	w.objects = g.Objects(r)
	w.graph = nil
	stats.Flush()
	return nil
}
