// Package heapgraph analyses the object graph of one heap snapshot the way
// Chrome DevTools' heap snapshot worker does: distances from the root, shallow
// sizes with owned internal arrays folded into their owner, the dominator tree
// (Lengauer–Tarjan, iterative) over DevTools' "essential" edges, retained sizes,
// class names and the per-class summary.
//
// The graph is held in compact parallel arrays (about 9 bytes per edge and 22
// per node besides the strings), filled by the snapshot decoder as it streams.
// Analyze never writes into the arrays it was given (it replaces them with
// changed copies, or drops them), so that other goroutines may read them
// while it runs. Given a shelf (Graph.Shelf, a scratch file the caller made),
// it keeps there the per-node arrays it is not using, so that its memory
// stays near the graph's own; nothing is left there for after it returns.
// It opens and names no files itself.
package heapgraph

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Graph is one snapshot's object graph. Nodes are numbered by ordinal (their
// position in the snapshot's nodes array), edges by their position.
type Graph struct {
	Type []uint8  // node type (index into NodeTypes)
	Name []uint32 // node name (index into Strings)
	ID   []int64  // node id
	Self []uint32 // node self size, as DevTools keeps it (uint32)
	// Detachedness is the DOM link state of each node (0 unknown, 1 attached,
	// 2 detached) when the snapshot has that field (HasDetachedness).
	Detachedness    []uint8
	HasDetachedness bool
	FirstEdge       []uint32 // edges of node i are FirstEdge[i] .. FirstEdge[i+1]-1

	EdgeType []uint8  // edge type (index into EdgeTypes)
	EdgeName []uint32 // name_or_index
	To       []uint32 // target ordinal, or NoNode when the edge points nowhere valid

	Strings   Strings
	NodeTypes []string
	EdgeTypes []string
	Root      uint32 // root ordinal (0 unless snapshot.root_index says otherwise)

	// KeepLabels makes Analyze keep the node names, types and detachedness,
	// the edges (types, names, targets) and the strings, which it otherwise releases
	// before the dominators to lower the peak, and the self sizes, which it
	// otherwise does not read back from the shelf: for an analysis that needs
	// them afterwards (package leaks).
	KeepLabels bool
	// Shelf, when set, holds per-node arrays, and the edges' types and
	// names, while Analyze does not need them (see ShelfFile).
	Shelf ShelfFile
	// Stop, when closed, makes Analyze give up between its steps with
	// ErrStopped (the run is being interrupted).
	Stop <-chan struct{}
	// ReadersDone, when set, returns once the caller's other readers of
	// the graph's arrays (which Analyze never writes) are done with them,
	// or with their error, which Analyze returns. Analyze calls it before
	// it drops the first array (the ids, which go to the shelf), so that
	// what it drops is freed and the peak stays where it was without other
	// readers; its first steps (the DOM state, the page ownership and
	// essential edges, the inferred interfaces) only read the arrays and
	// run beside those readers.
	ReadersDone func() error

	// tooManyEdges is set when the nodes' edge counts add up past what the
	// uint32 edge positions can address (FirstEdge then stops growing).
	tooManyEdges bool
	// The header's node and edge counts (Reserve).
	nodesHint, edgesHint int64
}

// maxEdges is the most edges a graph can address (NoNode is reserved).
const maxEdges = 1<<32 - 2

// NoNode marks an edge whose target is not a node of the snapshot.
const NoNode = ^uint32(0)

// NodeCount returns the number of nodes (from FirstEdge, which Analyze keeps
// in memory throughout).
func (g *Graph) NodeCount() int { return max(0, len(g.FirstEdge)-1) }

// Reserve makes room for the given numbers of nodes and edges (from the
// snapshot header), so that the arrays are not copied as they grow. Pages of
// room that is never used are not touched, so a wrong header costs address
// space, not memory; but the runtime counts room as memory in use, so the
// header is believed up to 8 M nodes and 32 M edges at first, and past that
// once the arrays are full, by steps of at most four times what they hold
// (one copy for a snapshot of 20 M nodes and 67 M edges, where Go's growth
// by a quarter made five, each with the old array alive beside the new).
func (g *Graph) Reserve(nodes, edges int64) {
	g.nodesHint, g.edgesHint = nodes, edges
	nodes = max(0, min(nodes, 1<<23))
	edges = max(0, min(edges, 1<<25))
	g.Type = make([]uint8, 0, nodes)
	g.Name = make([]uint32, 0, nodes)
	g.ID = make([]int64, 0, nodes)
	g.Self = make([]uint32, 0, nodes)
	g.Detachedness = make([]uint8, 0, nodes)
	g.FirstEdge = make([]uint32, 1, nodes+1)
	g.EdgeType = make([]uint8, 0, edges)
	g.EdgeName = make([]uint32, 0, edges)
	g.To = make([]uint32, 0, edges)
}

// Headroom returns the room to add to an array of n values that is full, if
// the header's count (hint) says more are coming: up to the count, at most
// 3n. Growing by it instead of by append's factor copies a large array once
// or twice rather than at every 25 %, each old copy left to the collector;
// the room is zeroed as it is added, so a count that overstates costs the
// memory it asks for (3n at most each time).
func Headroom(n int, hint int64) int {
	if hint <= int64(n) || n == 0 {
		return 0
	}
	return int(min(hint-int64(n), 3*int64(n)))
}

// AddNode appends a node; its edges are the next edgeCount edges added.
func (g *Graph) AddNode(typ, name int64, id int64, self int64, edgeCount int64, detachedness int64) {
	if len(g.FirstEdge) == 0 {
		g.FirstEdge = append(g.FirstEdge, 0)
	}
	if n := len(g.ID); n == cap(g.ID) {
		if more := Headroom(n, g.nodesHint); more > 0 {
			g.Type, g.Name = slices.Grow(g.Type, more), slices.Grow(g.Name, more)
			g.ID, g.Self = slices.Grow(g.ID, more), slices.Grow(g.Self, more)
			g.Detachedness, g.FirstEdge = slices.Grow(g.Detachedness, more), slices.Grow(g.FirstEdge, more)
		}
	}
	g.Type = append(g.Type, uint8(typ))
	g.Name = append(g.Name, uint32(name))
	g.ID = append(g.ID, id)
	g.Self = append(g.Self, uint32(self))
	g.Detachedness = append(g.Detachedness, uint8(detachedness))
	next := uint64(g.FirstEdge[len(g.FirstEdge)-1]) + uint64(max(0, edgeCount))
	if next > maxEdges {
		g.tooManyEdges, next = true, maxEdges
	}
	g.FirstEdge = append(g.FirstEdge, uint32(next))
}

// EdgeSource returns the ordinal of the node edge e leaves (FirstEdge is kept
// after Analyze, so this works on an analysed graph too).
func (g *Graph) EdgeSource(e uint32) uint32 {
	// The last node whose first edge is at or before e and that has edges.
	i, _ := slices.BinarySearch(g.FirstEdge, e+1)
	return uint32(i - 1)
}

// Check reports a graph the analysis cannot work on: edge counts that add up
// past 2^32-2, more edges than that, or more nodes than an ordinal holds. The
// caller skips the analysis of such a snapshot (its tables are still written).
func (g *Graph) Check() error {
	switch {
	case g.tooManyEdges:
		return fmt.Errorf("the nodes' edge counts add up to more than %d", uint64(maxEdges))
	case len(g.To) > maxEdges:
		return fmt.Errorf("%d edges, more than %d", len(g.To), uint64(maxEdges))
	case len(g.ID) > maxEdges:
		return fmt.Errorf("%d nodes, more than %d", len(g.ID), uint64(maxEdges))
	}
	return nil
}

// AddEdge appends an edge; to is the target ordinal or NoNode.
func (g *Graph) AddEdge(typ, nameOrIndex int64, to uint32) {
	if n := len(g.To); n == cap(g.To) {
		if more := Headroom(n, g.edgesHint); more > 0 {
			g.EdgeType, g.EdgeName, g.To = slices.Grow(g.EdgeType, more), slices.Grow(g.EdgeName, more), slices.Grow(g.To, more)
		}
	}
	g.EdgeType = append(g.EdgeType, uint8(typ))
	g.EdgeName = append(g.EdgeName, uint32(nameOrIndex))
	g.To = append(g.To, to)
}

// fixEdgeRanges makes FirstEdge consistent with the edges actually present
// (a snapshot whose edge counts and edges disagree).
// It changes a copy, never the decoded array, which another goroutine may be
// reading (the rows of js_heap_nodes are written from it).
func (g *Graph) fixEdgeRanges() {
	if len(g.FirstEdge) == 0 {
		g.FirstEdge = []uint32{0}
	}
	n := uint32(len(g.To))
	if g.FirstEdge[len(g.FirstEdge)-1] <= n {
		return // offsets never decrease: all are in range
	}
	first := slices.Clone(g.FirstEdge)
	for i := range first {
		first[i] = min(first[i], n)
	}
	g.FirstEdge = first
}

// types resolves the type codes DevTools' rules refer to by name.
type types struct {
	hidden, array, object, code, closure, regexp, native, synthetic, consString, slicedString int
	eContext, eElement, eProperty, eInternal, eHidden, eShortcut, eWeak, eInvisible           int
}

func index(names []string, want ...string) int {
	for i, n := range names {
		for _, w := range want {
			if n == w {
				return i
			}
		}
	}
	return -1
}

func (g *Graph) types() types {
	n, e := g.NodeTypes, g.EdgeTypes
	return types{
		hidden: index(n, "hidden"), array: index(n, "array"), object: index(n, "object"),
		code: index(n, "code"), closure: index(n, "closure"), regexp: index(n, "regexp"),
		native: index(n, "native"), synthetic: index(n, "synthetic"),
		consString: index(n, "concatenated string"), slicedString: index(n, "sliced string", "slicedstring"),
		eContext: index(e, "context"), eElement: index(e, "element"), eProperty: index(e, "property"),
		eInternal: index(e, "internal"), eHidden: index(e, "hidden"), eShortcut: index(e, "shortcut"),
		eWeak: index(e, "weak"), eInvisible: index(e, "invisible"),
	}
}

func (g *Graph) str(i uint32) string { return g.Strings.At(i) }

// edgeName is the edge's name as DevTools shows it: the string for named edges,
// the number for element and hidden edges.
func (g *Graph) edgeName(t *types, e int) string {
	if et := int(g.EdgeType[e]); et == t.eElement || et == t.eHidden {
		return strconv.FormatUint(uint64(g.EdgeName[e]), 10)
	}
	return g.str(g.EdgeName[e])
}

// weakMapEdge matches the name V8 gives the internal edge from a WeakMap's table
// (and from its key) to a value.
var weakMapEdge = regexp.MustCompile(`^\d+( / part of key \(.*? @\d+\) -> value \(.*? @\d+\) pair in WeakMap \(table @(\d+)\))$`)

// weakMapInfo caches, per edge name string, whether it is a WeakMap ephemeron
// edge, its duplicated part and its table id.
type weakMapInfo struct {
	state []uint8 // per string: 0 not looked at yet, else one of the below
	names map[uint32]weakMapName
}

// weakMapName is what an ephemeron edge's name says: its duplicated part
// and its table id.
type weakMapName struct {
	dup   string
	table int64
}

const (
	notWeakMapEdge  = 1
	weakMapEdgeName = 2
)

func (w *weakMapInfo) lookup(g *Graph, name uint32) (dup string, table int64, ok bool) {
	if int(name) >= g.Strings.Len() {
		return "", 0, false
	}
	if w.state == nil {
		w.state = make([]uint8, g.Strings.Len())
		w.names = map[uint32]weakMapName{}
	}
	switch w.state[name] {
	case notWeakMapEdge: // most names: no map lookups
		return "", 0, false
	case 0:
		w.state[name] = notWeakMapEdge
		m := weakMapEdge.FindStringSubmatch(g.Strings.At(name))
		if m == nil {
			return "", 0, false
		}
		w.state[name] = weakMapEdgeName
		table, _ := strconv.ParseInt(m[2], 10, 64)
		w.names[name] = weakMapName{strings.Clone(m[1]), table}
	}
	wn := w.names[name]
	return wn.dup, wn.table, true
}
