// Package heapsnapshot decodes V8 and ArkTS heap snapshot JSON (.heapsnapshot,
// and .heaptimeline with allocation traces) into the js_heap_* tables, streaming:
// the document is read once through a fixed buffer and rows are emitted as the
// arrays are read. Without the analysis only the node ids and edge counts are
// kept in memory, to derive each edge's from_node_id and to_node_id
// (docs/format/heapsnapshot.md#edges). With it, the object graph is kept in
// compact arrays (heapgraph) and the node and edge rows are written from them
// on a goroutine of their own while the graph is analysed (graphrows.go).
//
// It must not know SQL or where rows go: it appends them to the sink it is
// given.
package heapsnapshot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/internal/scratch"
	"tracestreamer/internal/task"
	"tracestreamer/parser/jsonscan"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/tables"
)

// Output holds the appenders of the tables a snapshot fills. With Stats and
// Classes set, the snapshot's object graph is analysed (heapgraph) and its
// results written there.
type Output struct {
	Nodes             tables.JSHeapNodesWriter
	Edges             tables.JSHeapEdgesWriter
	Info              tables.JSHeapInfoWriter
	Location          tables.JSHeapLocationWriter
	Sample            tables.JSHeapSampleWriter
	String            tables.JSHeapStringWriter
	TraceFunctionInfo tables.JSHeapTraceFunctionInfoWriter
	TraceNode         tables.JSHeapTraceNodeWriter
	// Stats and Classes are set when the graph is to be analysed.
	Stats   *tables.JSHeapNodeStatsWriter
	Classes *tables.JSHeapClassWriter
	// ScratchDir, when set, is where the analysis keeps the per-node arrays
	// it does not need for a while, in a file removed as soon as it is made
	// (heapgraph.ShelfFile); without it they stay in memory.
	ScratchDir string
	// leaks, when set (Files.CompareLeaks), compares heap files for leaks.
	leaks *leakState
	sink  rows.Sink
	defs  *schema.Tables
}

// NewOutput returns the writers of a snapshot's tables; with analyse set,
// those of the analysis too.
func NewOutput(sink rows.Sink, t *schema.Tables, analyse bool) Output {
	o := Output{Nodes: tables.NewJSHeapNodes(sink, t), Edges: tables.NewJSHeapEdges(sink, t),
		Info: tables.NewJSHeapInfo(sink, t), Location: tables.NewJSHeapLocation(sink, t),
		Sample: tables.NewJSHeapSample(sink, t), String: tables.NewJSHeapString(sink, t),
		TraceFunctionInfo: tables.NewJSHeapTraceFunctionInfo(sink, t), TraceNode: tables.NewJSHeapTraceNode(sink, t),
		sink: sink, defs: t}
	if analyse {
		s, c := tables.NewJSHeapNodeStats(sink, t), tables.NewJSHeapClass(sink, t)
		o.Stats, o.Classes = &s, &c
	}
	return o
}

// Flush hands every pending row to the sink.
func (o *Output) Flush() {
	for _, a := range o.all() {
		a.Flush()
	}
}

// Discard drops the pending rows.
func (o *Output) Discard() {
	for _, a := range o.all() {
		a.Discard()
	}
}

func (o *Output) all() []*rows.Appender {
	all := []*rows.Appender{o.Nodes.Appender(), o.Edges.Appender(), o.Info.Appender(), o.Location.Appender(),
		o.Sample.Appender(), o.String.Appender(), o.TraceFunctionInfo.Appender(), o.TraceNode.Appender()}
	if o.Stats != nil {
		all = append(all, o.Stats.Appender(), o.Classes.Appender())
	}
	if o.leaks != nil {
		all = append(all, o.leaks.appenders()...)
	}
	return all
}

// Result summarises a decoded snapshot.
type Result struct {
	Nodes, Edges, Strings int64 // rows written
	// Samples, FunctionInfos and TraceNodes are the rows of the allocation
	// tracking sections; a document with any is a heap timeline.
	Samples, FunctionInfos, TraceNodes int64
	// LastSampleUs is the largest sample timestamp (µs since tracking began).
	LastSampleUs int64
	SelfSize     int64 // sum of node self sizes
	// Objects lists the objects by id and class, for comparisons (analysis only).
	Objects *heapgraph.Objects
	// MetaNodeCount and MetaEdgeCount are the counts the snapshot header states.
	MetaNodeCount, MetaEdgeCount int64
}

// Warner receives problems that do not stop decoding (bad edge targets, invalid
// UTF-8, …); each call is one problem.
type Warner func(format string, args ...any)

// decoder holds the state of one snapshot.
type decoder struct {
	js     *jsonscan.Decoder
	fileID int64
	out    *Output
	warn   Warner
	res    Result

	meta    *meta
	nodes   layout
	ids     []int64  // node ids by node index
	ecs     []uint32 // edge counts by node index, without the graph (which has them)
	gotNode bool     // the nodes array has been processed

	graph *heapgraph.Graph // the object graph, when analysing
	// With the graph, the node and edge rows are written from it (graphRows):
	// what it does not hold as read is kept here.
	rows       *graphRows
	traceNodes []uint32 // trace node ids, once one is not 0
	nodeExc    []rawNode
	edgeExc    []rawEdge
	extraEdges []rawEdge
	unpub      int // tuples read since the last publication
	seen       []string

	pendingNodes []int64 // nodes read before the meta that gives their layout
	pendingEdges []int64 // edges read before the nodes they refer to
	nFunctions   int64   // trace function infos read
	scratch      []byte
	ibuf         []int64
}

// Decode reads one heap snapshot document from r and writes its rows with the
// given file id. On error, rows already handed to out may be incomplete; the
// caller discards them (rows.Sink.Rollback).
//
// A panic while decoding or analysing (a bug, whatever the input) is returned
// as an error, so that the caller drops this snapshot and goes on.
func Decode(r io.Reader, fileID int64, out *Output, warn Warner) (_ Result, err error) {
	if warn == nil {
		warn = func(string, ...any) {}
	}
	d := &decoder{js: jsonscan.NewReader(r, 256<<10), fileID: fileID, out: out, warn: warn,
		ibuf: make([]int64, 3*4096)}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error at offset %d (please report it): %v", d.js.Offset(), p)
		}
	}()
	if out.Stats != nil {
		d.graph = &heapgraph.Graph{}
		d.rows = startGraphRows(fileID, out)
		// Runs before the recover above: the row writer is stopped (or, after
		// a success, found done) before the caller drops or keeps the rows.
		defer d.rows.stop()
	}
	if err := d.decode(); err != nil {
		return d.res, err
	}
	if d.graph != nil {
		d.rows.publish(d, true)
		if err := d.analyse(); err != nil {
			return d.res, err
		}
	}
	return d.res, nil
}

func (d *decoder) decode() error {
	js := d.js
	err := js.Object(func(key []byte) error {
		switch string(key) {
		case "snapshot":
			return d.snapshot()
		case "nodes", "edges":
			// A second array of either would number its rows again from 0.
			if slices.Contains(d.seen, string(key)) {
				d.warn("a second %q array ignored", key)
				return js.SkipValue()
			}
			d.seen = append(d.seen, string(key))
			if key[0] == 'n' {
				return d.nodesArray()
			}
			return d.edgesArray()
		case "strings":
			return d.strings()
		case "trace_function_infos":
			return d.tuples(d.layoutOf("trace_function_info_fields", functionInfoNames), d.functionInfo)
		case "trace_tree":
			return d.traceTree()
		case "samples":
			return d.tuples(d.layoutOf("sample_fields", sampleNames), d.sample)
		case "locations":
			return d.tuples(d.layoutOf("location_fields", locationNames), d.location)
		}
		return js.SkipValue()
	})
	if err != nil {
		return err
	}
	if !js.AtEOF() {
		d.warn("data after the end of the snapshot object ignored")
	}
	if d.meta == nil {
		return errors.New("no snapshot.meta: not a heap snapshot")
	}
	if d.pendingNodes != nil {
		d.processNodes(d.pendingNodes)
	}
	if d.pendingEdges != nil {
		d.processEdges(d.pendingEdges)
	}
	return nil
}

// Field names of each tuple kind in the V8 order, which is also the fallback
// layout when the snapshot's meta does not name the fields.
var (
	nodeNames         = []string{"type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"}
	edgeNames         = []string{"type", "name_or_index", "to_node"}
	functionInfoNames = []string{"function_id", "name", "script_name", "script_id", "line", "column"}
	traceNodeNames    = []string{"id", "function_info_index", "count", "size", "children"}
	sampleNames       = []string{"timestamp_us", "last_assigned_id"}
	locationNames     = []string{"object_index", "script_id", "line", "column"}
)

// layout maps the wanted fields of a tuple to their positions.
type layout struct {
	stride int
	pos    []int // position of each wanted field in the tuple, -1 if absent
}

func (l layout) get(t []int64, field int) int64 {
	if p := l.pos[field]; p >= 0 {
		return t[p]
	}
	return 0
}

// makeLayout resolves names in fields; without fields, the fixed layout applies.
func makeLayout(fields []string, names []string) layout {
	if len(fields) == 0 {
		l := layout{stride: len(names), pos: make([]int, len(names))}
		for i := range names {
			l.pos[i] = i
		}
		return l
	}
	l := layout{stride: len(fields), pos: make([]int, len(names))}
	for i, n := range names {
		l.pos[i] = -1
		for j, f := range fields {
			if f == n {
				l.pos[i] = j
				break
			}
		}
	}
	return l
}

func (d *decoder) layoutOf(metaKey string, names []string) layout {
	if d.meta == nil {
		return makeLayout(nil, names)
	}
	return makeLayout(d.meta.fields[metaKey], names)
}

// tuples streams an integer array as tuples of l.stride values.
func (d *decoder) tuples(l layout, fn func(l layout, t []int64)) error {
	if l.stride <= 0 {
		return errors.New("tuple layout has no fields")
	}
	js := d.js
	if err := js.Expect('['); err != nil {
		return err
	}
	buf := d.ibuf[:len(d.ibuf)/l.stride*l.stride]
	first := true
	var bad jsonscan.NonIntegers
	defer d.warnNonIntegers(&bad)
	for {
		n, done, err := js.ReadIntsLenient(buf, &first, &bad)
		if err != nil {
			return err
		}
		whole := n / l.stride * l.stride
		for i := 0; i < whole; i += l.stride {
			fn(l, buf[i:i+l.stride])
		}
		if done {
			if n != whole {
				d.warn("%d values at the end of an array do not fill a tuple of %d; ignored", n-whole, l.stride)
			}
			return nil
		}
	}
}

// warnNonIntegers reports the values of an array that were not integers: one
// such value must not cost a snapshot of millions of nodes its every row.
func (d *decoder) warnNonIntegers(bad *jsonscan.NonIntegers) {
	if bad.N > 0 {
		d.warn("%d values that are not integers were read as 0 (the first at offset %d)", bad.N, bad.First)
	}
}

// readAll reads a whole integer array into memory (used only when the data it
// depends on comes later in the document).
func (d *decoder) readAll() ([]int64, error) {
	if err := d.js.Expect('['); err != nil {
		return nil, err
	}
	all := []int64{}
	first := true
	var bad jsonscan.NonIntegers
	defer d.warnNonIntegers(&bad)
	for {
		n, done, err := d.js.ReadIntsLenient(d.ibuf, &first, &bad)
		if err != nil {
			return nil, err
		}
		all = append(all, d.ibuf[:n]...)
		if done {
			return all, nil
		}
	}
}

func (d *decoder) nodesArray() error {
	if d.meta == nil {
		all, err := d.readAll()
		d.pendingNodes = all
		return err
	}
	// Size the arrays from the header's node count (up to 8 M nodes), so
	// that they are not copied as they grow. Room a wrong count asks for
	// here is address space only: pages that are never written are never
	// touched. Past it they grow by heapgraph.Headroom, whose room is
	// zeroed: a count that overstates costs up to 3 times what is read.
	n := max(0, min(d.res.MetaNodeCount, 1<<23))
	if d.graph != nil && len(d.graph.Type) == 0 {
		d.graph.Reserve(d.res.MetaNodeCount, d.res.MetaEdgeCount)
	}
	if d.graph == nil {
		d.ids = make([]int64, 0, n)
		d.ecs = make([]uint32, 0, n)
	}
	err := d.tuples(d.nodes, d.node)
	d.gotNode = true
	return err
}

func (d *decoder) processNodes(all []int64) {
	l := d.nodes
	whole := len(all) / l.stride * l.stride
	for i := 0; i < whole; i += l.stride {
		d.node(l, all[i:i+l.stride])
	}
	if whole != len(all) {
		d.warn("%d values at the end of nodes do not fill a node; ignored", len(all)-whole)
	}
	d.pendingNodes = nil
	d.gotNode = true
}

const (
	nType = iota
	nName
	nID
	nSelfSize
	nEdgeCount
	nTraceNodeID
	nDetachedness
)

func (d *decoder) node(l layout, t []int64) {
	idx := int64(len(d.ids))
	typ, name, id, self := l.get(t, nType), l.get(t, nName), l.get(t, nID), l.get(t, nSelfSize)
	ec, trace, det := l.get(t, nEdgeCount), l.get(t, nTraceNodeID), l.get(t, nDetachedness)
	if d.graph == nil {
		d.out.Nodes.Append(&tables.JSHeapNodes{FileID: d.fileID, NodeIndex: idx, Type: typ, Name: name, ID: id,
			SelfSize: self, EdgeCount: ec, TraceNodeID: trace, Detachedness: det})
	}
	rawEC := ec
	if ec < 0 || ec > 1<<32-1 {
		d.warn("node %d has edge count %d", idx, ec)
		ec = 0
	}
	if d.graph != nil {
		g := d.graph
		g.AddNode(typ, name, id, self, ec, det)
		d.ids = g.ID // one array of ids, not two
		if trace != 0 && d.traceNodes == nil {
			d.traceNodes = make([]uint32, idx, cap(g.ID))
		}
		if d.traceNodes != nil {
			d.traceNodes = append(d.traceNodes, uint32(trace))
		}
		// The graph's types: uint8 type and detachedness, uint32 name, self
		// size, edge count and trace node id.
		i := len(g.ID) - 1
		if int64(g.Type[i]) != typ || int64(g.Name[i]) != name || int64(g.Self[i]) != self ||
			int64(g.FirstEdge[i+1]-g.FirstEdge[i]) != rawEC || int64(uint32(trace)) != trace ||
			int64(g.Detachedness[i]) != det {
			d.nodeExc = append(d.nodeExc, rawNode{idx: i, typ: typ, name: name, self: self, ec: rawEC,
				trace: trace, detached: det})
		}
		d.published()
	} else {
		if n := len(d.ids); n == cap(d.ids) {
			if more := heapgraph.Headroom(n, d.res.MetaNodeCount); more > 0 {
				d.ids, d.ecs = slices.Grow(d.ids, more), slices.Grow(d.ecs, more)
			}
		}
		d.ids = append(d.ids, id)
		d.ecs = append(d.ecs, uint32(ec))
	}
	d.res.SelfSize += self
	d.res.Nodes++
}

func (d *decoder) edgesArray() error {
	if !d.gotNode {
		all, err := d.readAll()
		d.pendingEdges = all
		return err
	}
	e := d.newEdgeWalker()
	return d.tuples(e.l, e.edge)
}

func (d *decoder) processEdges(all []int64) {
	e := d.newEdgeWalker()
	whole := len(all) / e.l.stride * e.l.stride
	for i := 0; i < whole; i += e.l.stride {
		e.edge(e.l, all[i:i+e.l.stride])
	}
	d.pendingEdges = nil
}

// edgeWalker assigns edges to their source nodes: the first edge_count edges
// belong to node 0, the next to node 1, and so on.
type edgeWalker struct {
	d      *decoder
	l      layout
	node   int    // source node of the next edge
	left   uint32 // edges of that node not yet seen
	idx    int64
	warned bool
}

func (d *decoder) newEdgeWalker() *edgeWalker {
	e := &edgeWalker{d: d, l: d.layoutOf("edge_fields", edgeNames), node: -1}
	return e
}

const (
	eType = iota
	eNameOrIndex
	eToNode
)

// edgeCount is the number of edges of node i: from the graph's edge offsets
// when there is one (a count that took them past 2^32-2 is cut there, as the
// graph cannot address more edges), else from the edge counts kept for this.
func (d *decoder) edgeCount(i int) uint32 {
	if g := d.graph; g != nil {
		return g.FirstEdge[i+1] - g.FirstEdge[i]
	}
	return d.ecs[i]
}

func (e *edgeWalker) edge(l layout, t []int64) {
	d := e.d
	for e.left == 0 && e.node < len(d.ids) {
		e.node++
		if e.node < len(d.ids) {
			e.left = d.edgeCount(e.node)
		}
	}
	var nulls uint64
	var from int64
	if e.node < len(d.ids) {
		from = d.ids[e.node]
		e.left--
	} else {
		nulls |= 1 << 5
		if !e.warned {
			e.warned = true
			d.warn("edge %d and later have no source node: the nodes' edge counts cover only %d edges", e.idx, e.idx)
		}
	}
	to := l.get(t, eToNode)
	stride := int64(d.nodes.stride)
	toID, ok := nodeAt(to, stride, d.ids)
	if !ok {
		nulls |= 1 << 6
		d.warn("edge %d points to node offset %d, not a node of the %d-node array", e.idx, to, len(d.ids))
	}
	typ, name := l.get(t, eType), l.get(t, eNameOrIndex)
	switch {
	case d.graph == nil:
		d.out.Edges.Append(&tables.JSHeapEdges{FileID: d.fileID, EdgeIndex: e.idx, Type: typ,
			NameOrIndex: name, ToNode: to, FromNodeID: rows.IOpt(from, nulls&(1<<5) == 0),
			ToNodeID: rows.IOpt(toID, nulls&(1<<6) == 0)})
	case nulls&(1<<5) != 0:
		// No source node: not part of the graph.
		d.extraEdges = append(d.extraEdges, rawEdge{idx: int(e.idx), typ: typ, name: name, to: to})
	default:
		target := heapgraph.NoNode
		if nulls&(1<<6) == 0 {
			target = uint32(to / stride)
		}
		d.graph.AddEdge(typ, name, target)
		if target == heapgraph.NoNode || int64(uint8(typ)) != typ || int64(uint32(name)) != name {
			d.edgeExc = append(d.edgeExc, rawEdge{idx: len(d.graph.To) - 1, typ: typ, name: name, to: to})
		}
		d.published()
	}
	e.idx++
	d.res.Edges++
}

// published publishes the graph to the row writer every publishEvery
// tuples.
func (d *decoder) published() {
	if d.unpub++; d.unpub == publishEvery {
		d.unpub = 0
		d.rows.publish(d, false)
	}
}

func (d *decoder) strings() error {
	js := d.js
	return js.Array(func(i int) (err error) {
		if d.scratch, err = js.ReadString(d.scratch[:0]); err != nil {
			return err
		}
		s := string(d.scratch)
		if !utf8.ValidString(s) {
			d.warn("string %d is not valid UTF-8; invalid bytes replaced by U+FFFD", i)
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		d.out.String.Append(&tables.JSHeapString{FileID: d.fileID, FileIndex: int64(i), String: s})
		if d.graph != nil {
			d.graph.Strings = append(d.graph.Strings, s)
		}
		d.res.Strings++
		return nil
	})
}

func (d *decoder) functionInfo(l layout, t []int64) {
	d.out.TraceFunctionInfo.Append(&tables.JSHeapTraceFunctionInfo{FileID: d.fileID, FunctionIndex: d.res.FunctionInfos,
		FunctionID: l.get(t, 0), Name: l.get(t, 1), ScriptName: l.get(t, 2), ScriptID: l.get(t, 3), Line: l.get(t, 4),
		Column: l.get(t, 5)})
	d.res.FunctionInfos++
}

func (d *decoder) sample(l layout, t []int64) {
	ts := l.get(t, 0)
	d.out.Sample.Append(&tables.JSHeapSample{FileID: d.fileID, TimestampUS: ts, LastAssignedID: l.get(t, 1)})
	d.res.LastSampleUs = max(d.res.LastSampleUs, ts)
	d.res.Samples++
}

func (d *decoder) location(l layout, t []int64) {
	d.out.Location.Append(&tables.JSHeapLocation{FileID: d.fileID, ObjectIndex: l.get(t, 0), ScriptID: l.get(t, 1),
		Line: l.get(t, 2), Column: l.get(t, 3)})
}

// IsTimeline reports whether the document carried allocation tracking data (a
// .heaptimeline rather than a plain snapshot).
func (r Result) IsTimeline() bool { return r.Samples+r.FunctionInfos+r.TraceNodes > 0 }

// analyse runs the graph analysis and writes js_heap_node_stats and
// js_heap_class once the graph's rows are written (the row writer is faster
// than the decoder, so it is done or nearly when the document ends). The rows
// go to the sink like any others: its writer encodes them on the other core
// while the analysis goes on.
func (d *decoder) analyse() error {
	g := d.graph
	if d.meta != nil {
		if len(d.meta.nodeTypes) > 0 {
			g.NodeTypes = d.meta.nodeTypes[0]
		}
		if len(d.meta.edgeTypes) > 0 {
			g.EdgeTypes = d.meta.edgeTypes[0]
		}
		g.Root = uint32(d.meta.rootIndex / int64(max(1, d.nodes.stride)))
		g.HasDetachedness = d.nodes.pos[nDetachedness] >= 0
	}
	// Once the row writer lets the graph's arrays go, the labels Analyze
	// drops are freed before its dominator arrays are made.
	if err := d.rows.wait(); err != nil {
		return err
	}
	if err := g.Check(); err != nil {
		d.warn("heap analysis skipped: %v", err)
		d.graph = nil
		return nil
	}
	stats := d.out.Stats
	lk := d.out.leaks
	g.KeepLabels = lk != nil && lk.isFinal(d.fileID)
	if dir := d.out.ScratchDir; dir != "" {
		f, err := scratch.File(dir, "heap-shelf")
		if err != nil {
			d.warn("heap analysis holds all its arrays in memory: %v", err)
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
	d.ids = nil // g.ID, which AnalyzeNodes takes off to the shelf
	r, err := g.AnalyzeNodes()
	if err != nil {
		d.warn("heap analysis skipped: %v", err)
		d.graph = nil
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
		stats.Append(&tables.JSHeapNodeStats{FileID: d.fileID, NodeIndex: int64(v), ID: g.ID[v],
			DominatorID: g.ID[r.Dominator[v]], RetainedSize: int64(r.Retained[v]), Distance: int64(r.Distance[v]),
			ShallowSize: int64(r.Shallow[v]), ClassID: int64(r.Class[v]), RetainerID: retainer, RetainerEdge: edge,
			RetainerEdgeType: etype, RetainerEdgeName: ename})
	}
	summary.Wait()
	for i, c := range r.Classes {
		d.out.Classes.Append(&tables.JSHeapClass{FileID: d.fileID, ClassID: int64(i), Name: c.Name, Count: c.Count,
			ShallowSize: c.Shallow, RetainedSize: int64(c.Retained), MinDistance: int64(c.MinDistance)})
	}
	if lk != nil {
		lk.analysed(d.fileID, g, r)
	}
	// Only ids, shallow sizes and classes are kept from here on, for a
	// comparison with a later snapshot (made only if one comes).
	d.res.Objects = g.Objects(r)
	d.graph = nil
	stats.Flush()
	return nil
}
