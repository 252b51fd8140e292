package rawheap

import (
	"hash/maphash"
)

// transGraph is a heap graph in the form rawheap_translator serializes it:
// nodes in output order, each owning the next edgeCount edges, and a string
// table whose ids start at 3 (0 "<dummy>", 1 "", 2 "GC roots" are fixed).
type transGraph struct {
	nodes []transNode
	edges []transEdge
	// head and later, when set, come before and after edges: a static
	// dump's graph keeps the edges of its first nodes (roots and classes,
	// whose edges are made in two steps) and those of the nodes it made
	// while making edges apart, so that the three lists are grouped by
	// source without copying the large one (groupEdges).
	head, later []transEdge
	strs        strTable
	// natives holds the native sizes of the nodes that have one (few, and
	// none in a static dump), by node index: kept apart, a node is 24
	// bytes rather than 32.
	natives map[uint32]uint32
}

type transNode struct {
	id        uint64
	name      uint32 // string id
	size      uint32
	edgeCount uint32
	typ       uint8
}

// setNative sets node i's native size.
func (g *transGraph) setNative(i, native uint32) {
	if native == 0 {
		delete(g.natives, i)
		return
	}
	if g.natives == nil {
		g.natives = map[uint32]uint32{}
	}
	g.natives[i] = native
}

type transEdge struct {
	from        uint32 // source node index, used while the edges are being grouped
	to          uint32 // target node index
	nameOrIndex uint32 // string id, or the element index of an "element" edge
	typ         uint8
}

// strTable deduplicates strings by content and numbers them in insertion
// order from 3, as the translator's string table does.
type strTable struct {
	ids  map[string]uint32
	list []string
}

// firstStrID is the id of the first string a dump adds.
const firstStrID = 3

func (t *strTable) id(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	id := uint32(len(t.list) + firstStrID)
	t.ids[s] = id
	t.list = append(t.list, s)
	return id
}

// get returns the string of id; ids the table never gave out read as "".
func (t *strTable) get(id uint32) (string, bool) {
	if id < firstStrID || int(id-firstStrID) >= len(t.list) {
		return "", false
	}
	return t.list[id-firstStrID], true
}

// strings returns the snapshot's strings array as the translator writes it:
// the three fixed entries, then the table. The translator writes a string up
// to its first NUL byte; the text is otherwise unchanged.
func (t *strTable) strings() []string {
	out := make([]string, 0, len(t.list)+firstStrID)
	out = append(out, fixedStrings[:]...)
	for _, s := range t.list {
		out = append(out, untilNUL(s))
	}
	return out
}

// fixedStrings are the first entries of every strings array the translator
// writes; a dump's own strings are numbered from firstStrID after them.
var fixedStrings = [firstStrID]string{"<dummy>", "", "GC roots"}

// untilNUL is s up to its first NUL byte, as the translator writes a string.
func untilNUL[T string | []byte](s T) T {
	for i := range len(s) {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

// Strings returns the graph's strings array (strTable.strings).
func (g *transGraph) Strings() []string { return g.strs.strings() }

// groupEdges orders the edges (head, edges, then later) by source node,
// keeping the order in which each node's edges were made, and sets every
// node's edge count. head is small and sorted; edges and later are as a rule
// already in source order (the objects' edges are made object by object, and
// the nodes made meanwhile come after them) and are then kept as they are;
// otherwise (an id given to two objects) all are sorted into one list.
func (g *transGraph) groupEdges() {
	for i := range g.nodes {
		g.nodes[i].edgeCount = 0
	}
	g.head = sortEdges(g.head, len(g.nodes))
	inOrder := true
	prev := uint32(0)
	for _, list := range [][]transEdge{g.head, g.edges, g.later} {
		for _, e := range list {
			g.nodes[e.from].edgeCount++
			if e.from < prev {
				inOrder = false
			}
			prev = e.from
		}
	}
	if inOrder {
		return
	}
	all := make([]transEdge, 0, len(g.head)+len(g.edges)+len(g.later))
	for _, list := range [][]transEdge{g.head, g.edges, g.later} {
		all = append(all, list...)
	}
	g.head, g.edges, g.later = nil, sortEdges(all, len(g.nodes)), nil
}

// sortEdges orders edges by source node, stably.
func sortEdges(edges []transEdge, nodes int) []transEdge {
	if len(edges) == 0 {
		return edges
	}
	counts := make([]uint32, nodes+1)
	for _, e := range edges {
		counts[e.from+1]++
	}
	for i := range nodes {
		counts[i+1] += counts[i]
	}
	sorted := make([]transEdge, len(edges))
	for _, e := range edges {
		sorted[counts[e.from]] = e
		counts[e.from]++
	}
	return sorted
}

// flatEdges puts head, edges and later in one list, edges.
func (g *transGraph) flatEdges() {
	if g.head != nil || g.later != nil {
		g.edges = append(append(g.head, g.edges...), g.later...)
		g.head, g.later = nil, nil
	}
}

// interner numbers strings as strTable does.
type interner interface {
	id(s string) uint32
}

// strArena is a strTable in a few flat arrays rather than a Go map and a
// string each: the strings' bytes end to end, where each ends, and an open
// addressing table of their indexes, each with the top of its hash, so that
// a probe rarely reads a string (on a static dump's 892 k strings: 30 MB
// rather than 55, 0.25 s of the first pass rather than 0.4).
type strArena struct {
	data  []byte
	ends  []int
	table []uint64 // string index + 1 in the low half, its hash's top half above; 0 for an empty slot
	seed  maphash.Seed
}

// bytes is string i's bytes in the arena (not to be kept or changed).
func (a *strArena) bytes(i int) []byte {
	start := 0
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.data[start:a.ends[i]]
}

func (a *strArena) id(s string) uint32 {
	if a.table == nil {
		a.table, a.seed = make([]uint64, 1<<10), maphash.MakeSeed()
	}
	mask := uint64(len(a.table) - 1)
	h := maphash.String(a.seed, s)
	tag := h &^ (1<<32 - 1)
	p := h & mask
	for ; a.table[p] != 0; p = (p + 1) & mask {
		if e := a.table[p]; e&^(1<<32-1) == tag {
			if i := int(uint32(e) - 1); string(a.bytes(i)) == s { // compared, not copied
				return uint32(i) + firstStrID
			}
		}
	}
	a.data = append(a.data, s...)
	a.ends = append(a.ends, len(a.data))
	n := len(a.ends)
	a.table[p] = tag | uint64(n)
	if 2*n > len(a.table) {
		a.grow()
	}
	return uint32(n-1) + firstStrID
}

// grow doubles the table.
func (a *strArena) grow() {
	t := make([]uint64, 2*len(a.table))
	mask := uint64(len(t) - 1)
	for _, e := range a.table {
		if e == 0 {
			continue
		}
		h := maphash.Bytes(a.seed, a.bytes(int(uint32(e)-1))) // as maphash.String of the text
		p := h & mask
		for t[p] != 0 {
			p = (p + 1) & mask
		}
		t[p] = e
	}
	a.table = t
}

// each hands f the snapshot's strings array as strTable.strings gives it,
// each string a copy of its own (what the receiver keeps of them, class
// names, then keeps nothing else).
func (a *strArena) each(f func(s string)) {
	for _, s := range fixedStrings {
		f(s)
	}
	start := 0
	for _, end := range a.ends {
		f(string(untilNUL(a.data[start:end])))
		start = end
	}
}
