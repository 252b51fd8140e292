package heapsnapshot

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/tables"
)

// Builder takes a heap graph from a decoder of another format (a .rawheap)
// and writes it as this package writes a snapshot's document: the same rows,
// the same analysis. Its calls follow a snapshot document: Node for every
// node (a tuple laid out as Meta.NodeFields says), then Edge for every edge,
// with String at any time; then Finish.
type Builder struct {
	d    *decoder
	edge *edgeWalker
	err  error
}

// Meta is what a snapshot's "snapshot.meta" would say of the graph.
type Meta struct {
	NodeFields, EdgeFields []string
	NodeTypes, EdgeTypes   []string
	// ExtraNodeTypes, ExtraEdgeTypes follow the type lists (the field
	// kinds: "string", "number", …), as in a snapshot's meta.
	ExtraNodeTypes, ExtraEdgeTypes []string
	// NodeCount is a guess of the node count, to size arrays (0: none).
	NodeCount int64
}

// NewBuilder starts a heap file of id fileID written to out.
func NewBuilder(fileID int64, out *Output, warn Warner, m Meta) *Builder {
	if warn == nil {
		warn = func(string, ...any) {}
	}
	d := &decoder{fileID: fileID, out: out, warn: warn}
	mt := &meta{fields: map[string][]string{"node_fields": m.NodeFields, "edge_fields": m.EdgeFields}}
	mt.nodeTypes = append([][]string{m.NodeTypes}, oneEach(m.ExtraNodeTypes)...)
	mt.edgeTypes = append([][]string{m.EdgeTypes}, oneEach(m.ExtraEdgeTypes)...)
	mt.haveCounts = [3]bool{true, true, true}
	d.meta = mt
	d.nodes = makeLayout(m.NodeFields, nodeNames)
	d.res.MetaNodeCount = m.NodeCount
	b := &Builder{d: d}
	if out.Stats != nil {
		d.graph = &heapgraph.Graph{}
		d.graph.Reserve(m.NodeCount, 0)
		d.rows = startGraphRows(fileID, out)
	} else {
		n := max(0, min(m.NodeCount, 1<<23))
		d.ids, d.ecs = make([]int64, 0, n), make([]uint32, 0, n)
	}
	return b
}

func oneEach(list []string) [][]string {
	out := make([][]string, len(list))
	for i, s := range list {
		out[i] = []string{s}
	}
	return out
}

// guard turns a panic of the decoder's code into the builder's error.
func (b *Builder) guard() {
	if p := recover(); p != nil && b.err == nil {
		b.err = fmt.Errorf("internal error at node %d, edge %d (please report it): %v", b.d.res.Nodes, b.d.res.Edges, p)
	}
}

// Node adds the next node.
func (b *Builder) Node(t []int64) {
	if b.err != nil {
		return
	}
	defer b.guard()
	b.d.node(b.d.nodes, t)
}

// Edge adds the next edge; every node must have been added.
func (b *Builder) Edge(t []int64) {
	if b.err != nil {
		return
	}
	defer b.guard()
	if b.edge == nil {
		b.d.gotNode = true
		b.edge = b.d.newEdgeWalker()
	}
	b.edge.edge(b.edge.l, t)
}

// String adds the next string.
func (b *Builder) String(s string) {
	if b.err != nil {
		return
	}
	d := b.d
	i := d.res.Strings
	if !utf8.ValidString(s) {
		d.warn("string %d is not valid UTF-8; invalid bytes replaced by U+FFFD", i)
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	d.out.String.Append(&tables.JSHeapString{FileID: d.fileID, FileIndex: i, String: s})
	if d.graph != nil {
		d.graph.Strings = append(d.graph.Strings, s)
	}
	d.res.Strings++
}

// Finish writes the snapshot's info rows with the counts of what was added,
// runs the analysis, and returns what a document's decoding returns. After
// an error, the caller drops the rows written (rows.Sink.Rollback).
func (b *Builder) Finish() (_ Result, err error) {
	d := b.d
	if d.rows != nil {
		defer d.rows.stop()
	}
	if b.err != nil {
		return d.res, b.err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error in the heap analysis (please report it): %v", p)
		}
	}()
	d.meta.nodeCount, d.meta.edgeCount = d.res.Nodes, d.res.Edges
	d.res.MetaNodeCount, d.res.MetaEdgeCount = d.res.Nodes, d.res.Edges
	d.infoRows()
	if d.graph != nil {
		d.rows.publish(d, true)
		if err := d.analyse(); err != nil {
			return d.res, err
		}
	}
	return d.res, nil
}
