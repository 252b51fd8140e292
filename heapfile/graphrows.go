package heapfile

import (
	"fmt"
	"sync"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/rows"
	"tracestreamer/tables"
)

// When a heap file is analysed, its js_heap_nodes and js_heap_edges rows are
// written from the object graph, not as the decoder hands the nodes and
// edges over: the Writer only fills the graph's compact arrays (22 bytes a
// node, 9 an edge, against 72 and 56 for a row waiting in a batch), so the
// decoder is not held back by the database writer and reaches the end of the
// file long before the writer has written the rows. The analysis then runs on the other core while the rows
// are still being written (graphRows), instead of after them.
//
// A value the graph does not hold as it was read (a type over 255, a name or
// self size over 2^32-1, a bad edge count, an edge to no node, a trace node
// id) is kept as it was read in a list of exceptions, in index order, so the
// rows are the decoder's whatever the input. Edges after those the nodes'
// edge counts cover have no source node and are not in the graph: they are
// kept whole (extra).

// rawNode is a node's values as read, for a node the graph does not
// reproduce.
type rawNode struct {
	idx                                  int
	typ, name, self, ec, trace, detached int64
}

// rawEdge is an edge's values as read.
type rawEdge struct {
	idx           int
	typ, name, to int64
}

// graphView is what the decoder has published of the graph: slice headers
// taken under the lock, whose first nodes and edges elements are final.
type graphView struct {
	typ, detached []uint8
	name, self    []uint32
	id            []int64
	first         []uint32
	trace         []uint32 // trace node ids; nil while all are 0
	etype         []uint8
	ename, to     []uint32
	nodeExc       []rawNode
	edgeExc       []rawEdge
	extra         []rawEdge
	nodes, edges  int
	stride        int64
}

// graphRows writes the rows of the nodes and edges the decoder has put into
// the graph, on a goroutine of its own, following the decoder.
type graphRows struct {
	mu      sync.Mutex
	cond    *sync.Cond
	view    graphView
	final   bool // the decoder will publish nothing more
	stopped bool // stop at once: the file is dropped
	done    chan struct{}
	err     error // a panic of the writer (a bug), set before done is closed
}

// publishEvery is the number of tuples the decoder reads between two
// publications.
const publishEvery = 1 << 16

func startGraphRows(fileID int64, out *Output) *graphRows {
	gr := &graphRows{done: make(chan struct{})}
	gr.cond = sync.NewCond(&gr.mu)
	go gr.run(fileID, out)
	return gr
}

// publish makes the graph's current contents available to the writer.
func (gr *graphRows) publish(w *Writer, final bool) {
	g := w.graph
	gr.mu.Lock()
	gr.view = graphView{typ: g.Type, detached: g.Detachedness, name: g.Name, self: g.Self, id: g.ID,
		first: g.FirstEdge, trace: w.traceNodes, etype: g.EdgeType, ename: g.EdgeName, to: g.To,
		nodeExc: w.nodeExc, edgeExc: w.edgeExc, extra: w.extraEdges, nodes: g.NodeCount(), edges: len(g.To),
		stride: w.stride}
	gr.final = gr.final || final
	gr.mu.Unlock()
	gr.cond.Signal()
}

// stop makes the writer give up and waits for it.
func (gr *graphRows) stop() {
	gr.mu.Lock()
	gr.stopped = true
	gr.mu.Unlock()
	gr.cond.Signal()
	<-gr.done
}

// wait waits until the writer has handed every published row to the sink,
// and returns the error of a writer that panicked.
func (gr *graphRows) wait() error {
	<-gr.done
	return gr.err
}

func (gr *graphRows) run(fileID int64, out *Output) {
	defer close(gr.done)
	defer func() {
		// Let the graph's arrays go: the analysis drops those it is done with.
		gr.mu.Lock()
		gr.view = graphView{}
		gr.mu.Unlock()
	}()
	defer func() {
		if p := recover(); p != nil {
			gr.err = fmt.Errorf("internal error writing the rows of nodes and edges (please report it): %v", p)
		}
	}()
	var nodes, edges, extra int // rows written
	var src int                 // source node of the next edge
	var ni, ei int              // next node and edge exception
	for {
		gr.mu.Lock()
		for !gr.stopped && !gr.final && gr.view.nodes == nodes && gr.view.edges == edges {
			gr.cond.Wait()
		}
		v, final, stopped := gr.view, gr.final, gr.stopped
		gr.mu.Unlock()
		if stopped {
			return
		}
		for ; nodes < v.nodes; nodes++ {
			i := nodes
			ec := int64(v.first[i+1] - v.first[i])
			var trace int64
			if i < len(v.trace) {
				trace = int64(v.trace[i])
			}
			r := tables.JSHeapNodes{FileID: fileID, NodeIndex: int64(i), Type: int64(v.typ[i]),
				Name: int64(v.name[i]), ID: v.id[i], SelfSize: int64(v.self[i]), EdgeCount: ec,
				TraceNodeID: trace, Detachedness: int64(v.detached[i])}
			if ni < len(v.nodeExc) && v.nodeExc[ni].idx == i {
				x := v.nodeExc[ni]
				r.Type, r.Name, r.SelfSize, r.EdgeCount, r.TraceNodeID, r.Detachedness =
					x.typ, x.name, x.self, x.ec, x.trace, x.detached
				ni++
			}
			out.nodes.Append(&r)
		}
		for ; edges < v.edges; edges++ {
			e := edges
			for src+1 < v.nodes && v.first[src+1] <= uint32(e) {
				src++
			}
			to, toID := int64(v.to[e])*v.stride, rows.Int{}
			if v.to[e] != heapgraph.NoNode {
				toID = rows.I(v.id[v.to[e]])
			}
			r := tables.JSHeapEdges{FileID: fileID, EdgeIndex: int64(e), Type: int64(v.etype[e]),
				NameOrIndex: int64(v.ename[e]), ToNode: to, FromNodeID: rows.I(v.id[src]), ToNodeID: toID}
			if ei < len(v.edgeExc) && v.edgeExc[ei].idx == e {
				x := v.edgeExc[ei]
				r.Type, r.NameOrIndex, r.ToNode = x.typ, x.name, x.to
				ei++
			}
			out.edges.Append(&r)
		}
		if final {
			// Edges with no source node follow all the others.
			for ; extra < len(v.extra); extra++ {
				x := v.extra[extra]
				out.edges.Append(&tables.JSHeapEdges{FileID: fileID, EdgeIndex: int64(x.idx), Type: x.typ,
					NameOrIndex: x.name, ToNode: x.to, FromNodeID: rows.Int{}, ToNodeID: rows.IOpt(nodeAt(x.to, v.stride, v.id))})
			}
			return
		}
	}
}

// nodeAt returns the id of the node an edge's to_node offset points to, and
// whether it points to one.
func nodeAt(to, stride int64, ids []int64) (int64, bool) {
	if k, ok := nodeIndex(to, stride, len(ids)); ok {
		return ids[k], true
	}
	return 0, false
}

// nodeIndex returns the ordinal of the node an edge's to_node offset points
// to among n nodes of stride fields, and whether it points to one.
func nodeIndex(to, stride int64, n int) (int64, bool) {
	k := to / stride
	return k, to >= 0 && to%stride == 0 && k < int64(n)
}
