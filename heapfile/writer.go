package heapfile

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/rows"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// Decoder reads one heap file, handing its content to w in the order the
// package documentation gives, and returns nil when the file was read whole.
type Decoder func(w *Writer) error

// Warner receives problems that do not stop decoding (bad edge targets, invalid
// UTF-8, …); each call is one problem.
type Warner func(format string, args ...any)

// Meta is what a heap file says about itself, before its nodes.
type Meta struct {
	// NodeTypes and EdgeTypes are the file's type lists as a .heapsnapshot's
	// meta has them: the first lists the names of the "type" field's values,
	// each other one the type of another field (one string).
	NodeTypes, EdgeTypes [][]string
	// NodeCount, EdgeCount and TraceFunctionCount are the counts the file
	// states; Missing says which of the three it does not state (written as
	// 0, with a warning).
	NodeCount, EdgeCount, TraceFunctionCount int64
	Missing                                  [3]bool
	// Invalid holds, for each of the three, the text of a count that is not
	// a count (not an integer from 0 to 2^63-1): js_heap_info gets the
	// count of what the file holds instead, and a warning.
	Invalid [3]string
	// CountsAfter says that the file states no counts before its nodes (a
	// .rawheap): the js_heap_info counts are then those of the nodes and
	// edges given, written when the decoder returns; NodeCount and
	// EdgeCount, if set, only size the arrays.
	CountsAfter bool
	// Root is the root node's index.
	Root int64
	// NodeStride is the number of values of a node tuple: edges' ToNode
	// offsets are node index × NodeStride.
	NodeStride int
	// Detachedness says whether the nodes carry a detachedness value.
	Detachedness bool
}

// Node is a node as the file has it. NativeSize is ArkTS's native_size
// (the eighth node field of ArkTS snapshots and .rawheap dumps; 0 where the
// file has none): a js_heap_native_size row when it is not 0.
type Node struct {
	Type, Name, ID, SelfSize, EdgeCount, TraceNodeID, Detachedness, NativeSize int64
}

// Edge is an edge as the file has it. ToNode is the target's offset in the
// flat node array (node index × Meta.NodeStride).
type Edge struct {
	Type, NameOrIndex, ToNode int64
}

// Summary summarises a decoded heap file.
type Summary struct {
	Nodes, Edges, Strings int64 // rows written
	// Samples, FunctionInfos and TraceNodes are the rows of the allocation
	// tracking sections; a file with any is a heap timeline.
	Samples, FunctionInfos, TraceNodes int64
	// LastSampleUs is the largest sample timestamp (µs since tracking began).
	LastSampleUs int64
	SelfSize     int64 // sum of node self sizes
}

// IsTimeline reports whether the file carried allocation tracking data (a
// .heaptimeline rather than a plain snapshot).
func (s Summary) IsTimeline() bool { return s.Samples+s.FunctionInfos+s.TraceNodes > 0 }

// Writer receives the content of one heap file from its decoder and writes
// its rows. Its methods are called on one goroutine.
type Writer struct {
	fileID int64
	out    *Output
	warn   Warner
	sum    Summary

	meta    *Meta
	stride  int64
	nodeCap int64    // the node count stated, for sizing the arrays
	ids     []int64  // node ids by node index
	ecs     []uint32 // edge counts by node index, without the graph (which has them)
	objects *heapgraph.Objects

	graph *heapgraph.Graph // the object graph, when analysing
	// With the graph, the node and edge rows are written from it (graphRows):
	// what it does not hold as given is kept here.
	rows       *graphRows
	traceNodes []uint32 // trace node ids, once one is not 0
	nodeExc    []rawNode
	edgeExc    []rawEdge
	extraEdges []rawEdge
	unpub      int // tuples given since the last publication

	// The source node of the next edge, and how many of its edges are to come.
	edgeNode   int
	edgeLeft   uint32
	edgeWarned bool

	checks checks
	idSet  idSet // the ids of the nodes so far (ids.go)
	report Reporter
	offset func() int64 // the decoder's position, if it gives it
}

// Warn reports a problem that does not stop decoding.
func (w *Writer) Warn(format string, args ...any) { w.warn(format, args...) }

// Meta writes the js_heap_info rows: the type names, then the three counts.
func (w *Writer) Meta(m Meta) {
	w.meta = &m
	w.checks.namedEdges = nil // a later meta without edge types has none
	if len(m.EdgeTypes) > 0 {
		w.checks.namedEdges = namedEdges(m.EdgeTypes[0])
	}
	w.stride = int64(max(1, m.NodeStride))
	w.nodeCap = m.NodeCount
	for _, kt := range []struct {
		key   string
		types [][]string
	}{{"node_types", m.NodeTypes}, {"edge_types", m.EdgeTypes}} {
		for i, names := range kt.types {
			if i == 0 {
				for _, n := range names {
					w.out.info.Append(&tables.JSHeapInfo{FileID: w.fileID, Key: kt.key, Type: 0, IntValue: -1, StrValue: n})
				}
			} else if len(names) > 0 {
				w.out.info.Append(&tables.JSHeapInfo{FileID: w.fileID, Key: kt.key, Type: 1, IntValue: -1, StrValue: names[0]})
			}
		}
	}
	if !m.CountsAfter && m.Invalid == [3]string{} {
		w.countRows(m.NodeCount, m.EdgeCount)
	}
	// Size the arrays from the stated node count (up to 8 M nodes), so
	// that they are not copied as they grow. Room a wrong count asks for
	// here is address space only: pages that are never written are never
	// touched. Past it they grow by heapgraph.Headroom, whose room is
	// zeroed: a count that overstates costs up to 3 times what is read.
	if w.graph != nil {
		if len(w.graph.Type) == 0 {
			w.graph.Reserve(m.NodeCount, m.EdgeCount)
		}
	} else if len(w.ids) == 0 {
		n := max(0, min(m.NodeCount, 1<<23))
		w.ids = make([]int64, 0, n)
		w.ecs = make([]uint32, 0, n)
	}
}

// countRows writes the three counts of js_heap_info.
func (w *Writer) countRows(nodes, edges int64) {
	m := w.meta
	counts := []int64{nodes, edges, m.TraceFunctionCount}
	have := []int64{w.sum.Nodes, w.sum.Edges, w.sum.FunctionInfos}
	for i, k := range countNames {
		if m.Missing[i] {
			w.warn("snapshot.%s is missing; written as 0", k)
		}
		if m.Invalid[i] != "" {
			counts[i] = have[i]
			w.report(stat.JSHeapCounts, stat.InvalidData, 1,
				fmt.Sprintf("snapshot.%s is %s, not a count; the %d the file holds is written", k, m.Invalid[i], have[i]))
		}
		w.out.info.Append(&tables.JSHeapInfo{FileID: w.fileID, Key: k, Type: 0, IntValue: counts[i], StrValue: ""})
	}
}

// ended is told that the decoder has returned without an error.
func (w *Writer) ended() {
	if m := w.meta; m != nil && m.CountsAfter {
		w.countRows(w.sum.Nodes, w.sum.Edges)
	} else if m != nil && m.Invalid != [3]string{} {
		w.countRows(m.NodeCount, m.EdgeCount)
	}
	w.finishChecks()
}

// Node writes the next node.
func (w *Writer) Node(nd Node) {
	idx := int64(len(w.ids))
	typ, name, id, self := nd.Type, nd.Name, nd.ID, nd.SelfSize
	ec, trace, det := nd.EdgeCount, nd.TraceNodeID, nd.Detachedness
	w.idSet.restore(w.ids)
	if uid, synthetic := w.idSet.unique(w.fileID, idx, id); synthetic {
		t := &w.checks.repeatedID
		if id == 0 {
			t = &w.checks.zeroID
		}
		w.note(t, "node %d has id %d, given %d", idx, id, uid)
		id = uid
	}
	if w.graph == nil {
		w.out.nodes.Append(&tables.JSHeapNodes{FileID: w.fileID, NodeIndex: idx, Type: typ, Name: name, ID: id,
			SelfSize: self, EdgeCount: ec, TraceNodeID: trace, Detachedness: det})
	}
	w.checkNode(idx, nd)
	if nd.NativeSize != 0 {
		w.out.native.Append(&tables.JSHeapNativeSize{FileID: w.fileID, NodeIndex: idx, NativeSize: nd.NativeSize})
	}
	rawEC := ec
	if ec < 0 || ec > 1<<32-1 {
		w.note(&w.checks.edgeCount, "node %d has edge count %d", idx, ec)
		ec = 0
	}
	if w.graph != nil {
		g := w.graph
		g.AddNode(typ, name, id, self, ec, det)
		w.ids = g.ID // one array of ids, not two
		if trace != 0 && w.traceNodes == nil {
			w.traceNodes = make([]uint32, idx, cap(g.ID))
		}
		if w.traceNodes != nil {
			w.traceNodes = append(w.traceNodes, uint32(trace))
		}
		// The graph's types: uint8 type and detachedness, uint32 name, self
		// size, edge count and trace node id.
		i := len(g.ID) - 1
		if int64(g.Type[i]) != typ || int64(g.Name[i]) != name || int64(g.Self[i]) != self ||
			int64(g.FirstEdge[i+1]-g.FirstEdge[i]) != rawEC || int64(uint32(trace)) != trace ||
			int64(g.Detachedness[i]) != det {
			w.nodeExc = append(w.nodeExc, rawNode{idx: i, typ: typ, name: name, self: self, ec: rawEC,
				trace: trace, detached: det})
		}
		w.published()
	} else {
		if n := len(w.ids); n == cap(w.ids) {
			if more := heapgraph.Headroom(n, w.nodeCap); more > 0 {
				w.ids, w.ecs = slices.Grow(w.ids, more), slices.Grow(w.ecs, more)
			}
		}
		w.ids = append(w.ids, id)
		w.ecs = append(w.ecs, uint32(ec))
	}
	w.sum.SelfSize += self
	w.sum.Nodes++
}

// edgeCount is the number of edges of node i: from the graph's edge offsets
// when there is one (a count that took them past 2^32-2 is cut there, as the
// graph cannot address more edges), else from the edge counts kept for this.
func (w *Writer) edgeCount(i int) uint32 {
	if g := w.graph; g != nil {
		return g.FirstEdge[i+1] - g.FirstEdge[i]
	}
	return w.ecs[i]
}

// Edge writes the next edge, assigning it to its source node: the first
// edge_count edges belong to node 0, the next to node 1, and so on.
func (w *Writer) Edge(e Edge) {
	for w.edgeLeft == 0 && w.edgeNode < len(w.ids) {
		w.edgeNode++
		if w.edgeNode < len(w.ids) {
			w.edgeLeft = w.edgeCount(w.edgeNode)
		}
	}
	idx := w.sum.Edges
	if idx == 0 {
		// The nodes are given: the id set is not needed while the edges
		// come and the graph is analysed (on 5 M scattered ids, 20-25 MB).
		w.idSet.drop()
	}
	w.checkEdge(idx, e)
	var from int64
	hasFrom := w.edgeNode < len(w.ids)
	if hasFrom {
		from = w.ids[w.edgeNode]
		w.edgeLeft--
	} else if !w.edgeWarned {
		w.edgeWarned = true
		w.warn("edge %d and later have no source node: the nodes' edge counts cover only %d edges", idx, idx)
	}
	to := e.ToNode
	k, ok := nodeIndex(to, w.stride, len(w.ids))
	if !ok {
		w.warn("edge %d points to node offset %d, not a node of the %d-node array", idx, to, len(w.ids))
	}
	typ, name := e.Type, e.NameOrIndex
	switch {
	case w.graph == nil:
		var toID int64
		if ok {
			toID = w.ids[k]
		}
		w.out.edges.Append(&tables.JSHeapEdges{FileID: w.fileID, EdgeIndex: idx, Type: typ,
			NameOrIndex: name, ToNode: to, FromNodeID: rows.IOpt(from, hasFrom), ToNodeID: rows.IOpt(toID, ok)})
	case !hasFrom:
		// No source node: not part of the graph.
		w.extraEdges = append(w.extraEdges, rawEdge{idx: int(idx), typ: typ, name: name, to: to})
	default:
		target := heapgraph.NoNode
		if ok {
			target = uint32(k)
		}
		w.graph.AddEdge(typ, name, target)
		if target == heapgraph.NoNode || int64(uint8(typ)) != typ || int64(uint32(name)) != name {
			w.edgeExc = append(w.edgeExc, rawEdge{idx: len(w.graph.To) - 1, typ: typ, name: name, to: to})
		}
		w.published()
	}
	w.sum.Edges++
}

// published publishes the graph to the row writer every publishEvery
// tuples.
func (w *Writer) published() {
	if w.unpub++; w.unpub == publishEvery {
		w.unpub = 0
		w.rows.publish(w, false)
	}
}

// String writes the next string; invalid UTF-8 is replaced by U+FFFD.
func (w *Writer) String(s string) {
	i := w.sum.Strings
	if !utf8.ValidString(s) {
		w.warn("string %d is not valid UTF-8; invalid bytes replaced by U+FFFD", i)
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	w.out.str.Append(&tables.JSHeapString{FileID: w.fileID, FileIndex: i, String: s})
	if w.graph != nil {
		w.graph.Strings.Append(s)
	}
	w.sum.Strings++
}

// FunctionInfo writes the next trace function info.
func (w *Writer) FunctionInfo(functionID, name, scriptName, scriptID, line, column int64) {
	w.out.functionInfo.Append(&tables.JSHeapTraceFunctionInfo{FileID: w.fileID, FunctionIndex: w.sum.FunctionInfos,
		FunctionID: functionID, Name: name, ScriptName: scriptName, ScriptID: scriptID, Line: line, Column: column})
	w.sum.FunctionInfos++
}

// TraceNode writes a node of the allocation trace tree; parentID is -1 at
// the top level.
func (w *Writer) TraceNode(id, functionInfoIndex, count, size, parentID int64) {
	w.out.traceNode.Append(&tables.JSHeapTraceNode{FileID: w.fileID, ID: id, FunctionInfoIndex: functionInfoIndex,
		Count: count, Size: size, ParentID: parentID})
	w.sum.TraceNodes++
}

// Sample writes an allocation sample.
func (w *Writer) Sample(timestampUs, lastAssignedID int64) {
	w.out.sample.Append(&tables.JSHeapSample{FileID: w.fileID, TimestampUS: timestampUs, LastAssignedID: lastAssignedID})
	w.sum.LastSampleUs = max(w.sum.LastSampleUs, timestampUs)
	w.sum.Samples++
}

// Location writes an object's source location.
func (w *Writer) Location(objectIndex, scriptID, line, column int64) {
	w.out.location.Append(&tables.JSHeapLocation{FileID: w.fileID, ObjectIndex: objectIndex, ScriptID: scriptID,
		Line: line, Column: column})
}
