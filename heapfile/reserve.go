package heapfile

import (
	"runtime/debug"
	"slices"
)

// Reserve sizes the arrays for the nodes and edges to come, for a decoder
// that learns its counts as it goes (a .rawheap): call it before the first
// node with a guess of the nodes, and before the first edge with the count
// of edges.
func (w *Writer) Reserve(nodes, edges int64) {
	g := w.graph
	switch {
	case len(w.ids) == 0 && g == nil:
		w.nodeCap = nodes
		n := max(0, min(nodes, 1<<23))
		w.ids, w.ecs = make([]int64, 0, n), make([]uint32, 0, n)
	case g == nil:
	case len(g.ID) == 0:
		w.nodeCap = nodes
		g.Reserve(nodes, 0)
	case len(g.To) == 0 && edges > 0:
		w.idSet.drop() // the nodes are given (Edge)
		e := int(min(edges, 1<<32-2))
		if e >= 1<<22 {
			// The decoder has let go of what only its node pass needed (a
			// .rawheap's address index, …). The edge arrays are larger than
			// any hole that leaves, so they would be mapped beside it, and it
			// would stay resident until the runtime returns it in its own
			// time: it is returned now, at the cost of one collection (5
			// M-object V2 dump: peak 0.43-0.46 → 0.42-0.43 GB).
			debug.FreeOSMemory()
		}
		g.EdgeType, g.EdgeName, g.To = slices.Grow(g.EdgeType, e), slices.Grow(g.EdgeName, e), slices.Grow(g.To, e)
	}
}

// NodeArrays returns the graph's names and self sizes of the nodes written so
// far, when there is a graph (the analysis is on), for a decoder that needs
// them again (a .rawheap's second pass) instead of keeping copies: read
// only, and only until the decoder returns.
func (w *Writer) NodeArrays() (name, self []uint32, ok bool) {
	if w.graph == nil {
		return nil, nil, false
	}
	return w.graph.Name, w.graph.Self, true
}
