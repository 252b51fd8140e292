package heapgraph

import (
	"errors"
	"reflect"
	"testing"
)

var (
	v8NodeTypes = []string{"hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
		"synthetic", "concatenated string", "sliced string", "symbol", "bigint", "object shape"}
	v8EdgeTypes = []string{"context", "element", "property", "internal", "hidden", "shortcut", "weak"}
)

// Node and edge type codes of the V8 lists above.
const (
	tHidden    = 0
	tArray     = 1
	tObject    = 3
	tClosure   = 5
	tSynthetic = 9

	eElement  = 1
	eProperty = 2
	eInternal = 3
	eShortcut = 5
	eWeak     = 6
)

type node struct {
	typ, name int64
	self      int64
	edges     []edge
}

type edge struct {
	typ, name int64
	to        uint32
}

// analyze runs Analyze, failing the test on an error.
func analyze(t testing.TB, g *Graph) *Result {
	t.Helper()
	r, err := g.Analyze()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// build makes a graph; node i gets id 2i+1, strings are the names given.
func build(strings []string, nodes ...node) *Graph {
	g := &Graph{Strings: NewStrings(strings...), NodeTypes: v8NodeTypes, EdgeTypes: v8EdgeTypes}
	for i, n := range nodes {
		g.AddNode(n.typ, n.name, int64(2*i+1), n.self, int64(len(n.edges)), 0)
	}
	for _, n := range nodes {
		for _, e := range n.edges {
			g.AddEdge(e.typ, e.name, e.to)
		}
	}
	return g
}

var names = []string{"", "(GC roots)", "Window", "a", "b", "c", "d", "Object", "arr", "f"}

func TestDominatorShapes(t *testing.T) {
	prop := func(to uint32) edge { return edge{eProperty, 3, to} }
	tests := []struct {
		name     string
		nodes    []node
		dom      []uint32
		retained []float64
		unreach  int
	}{
		{"diamond", []node{
			{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
			{tObject, 2, 10, []edge{prop(2), prop(3)}},
			{tObject, 3, 20, []edge{prop(4)}},
			{tObject, 4, 30, []edge{prop(4)}},
			{tObject, 5, 40, nil},
		}, []uint32{0, 0, 1, 1, 1}, []float64{100, 100, 20, 30, 40}, 0},
		{"cycle", []node{
			{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
			{tObject, 2, 10, []edge{prop(2)}},
			{tObject, 3, 20, []edge{prop(3)}},
			{tObject, 4, 30, []edge{prop(2)}},
		}, []uint32{0, 0, 1, 2}, []float64{60, 60, 50, 30}, 0},
		{"weak-only node is attached to the root", []node{
			{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
			{tObject, 2, 10, []edge{{eWeak, 3, 2}}},
			{tObject, 3, 20, []edge{prop(3)}},
			{tObject, 4, 30, nil},
		}, []uint32{0, 0, 0, 2}, []float64{60, 10, 50, 30}, 2},
		{"orphan and clique", []node{
			{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
			{tObject, 2, 10, nil},
			{tObject, 3, 20, nil},             // orphan: nothing retains it
			{tObject, 4, 30, []edge{prop(4)}}, // clique 3 <-> 4
			{tObject, 5, 40, []edge{prop(3)}},
		}, []uint32{0, 0, 0, 0, 0}, []float64{100, 10, 20, 30, 40}, 3},
		{"self edges and shortcuts below the root do not count", []node{
			{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}, {eShortcut, 2, 2}}},
			{tObject, 2, 10, []edge{prop(1), prop(3)}},
			{tObject, 3, 20, []edge{{eShortcut, 3, 3}}},
			{tObject, 4, 30, nil},
		}, []uint32{0, 0, 0, 1}, []float64{60, 40, 20, 30}, 0},
	}
	for _, tt := range tests {
		g := build(names, tt.nodes...)
		r := analyze(t, g)
		if !reflect.DeepEqual(r.Dominator, tt.dom) || !reflect.DeepEqual(r.Retained, tt.retained) || r.Unreachable != tt.unreach {
			t.Errorf("%s: dominators %v retained %v unreachable %d, want %v %v %d", tt.name,
				r.Dominator, r.Retained, r.Unreachable, tt.dom, tt.retained, tt.unreach)
		}
	}
}

// TestPageOwnership: an edge from a system (non-page-owned) object into the
// page's objects does not dominate them.
func TestPageOwnership(t *testing.T) {
	g := build(names,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}, {eElement, 1, 3}}},
		node{tObject, 2, 10, []edge{{eProperty, 3, 2}}},  // Window (page)
		node{tObject, 3, 20, nil},                        // page object
		node{tSynthetic, 1, 0, []edge{{eElement, 0, 4}}}, // (GC roots)
		node{tHidden, 4, 5, []edge{{eInternal, 4, 2}}},   // system object pointing into the page
	)
	r := analyze(t, g)
	if r.Dominator[2] != 1 {
		t.Errorf("page object dominated by %d, want the Window (1)", r.Dominator[2])
	}
	if r.Distance[1] != 1 || r.Distance[2] != 2 || r.Distance[3] != BaseSystemDistance+1 || r.Distance[0] != BaseSystemDistance {
		t.Errorf("distances %v", r.Distance)
	}
}

// TestShallowSizes: arrays and hidden nodes owned by exactly one object are
// counted in that object's shallow size; a shared array is not moved.
func TestShallowSizes(t *testing.T) {
	g := build(names,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
		node{tObject, 2, 10, []edge{{eProperty, 3, 2}, {eInternal, 8, 3}, {eProperty, 4, 5}}},
		node{tObject, 3, 20, []edge{{eInternal, 8, 4}}},
		node{tArray, 8, 7, []edge{{eInternal, 8, 6}}}, // owned by 1 (and its hidden child)
		node{tArray, 8, 9, nil},                       // owned by 2
		node{tObject, 5, 11, []edge{{eInternal, 8, 6}}},
		node{tHidden, 8, 3, nil}, // reached from 1 (via 3) and from 5: shared
	)
	r := analyze(t, g)
	if want := []uint32{0, 17, 29, 0, 0, 11, 3}; !reflect.DeepEqual(r.Shallow, want) {
		t.Errorf("shallow %v, want %v", r.Shallow, want)
	}
	if r.Retained[0] != 60 {
		t.Errorf("total retained %v, want 60", r.Retained[0])
	}
}

// TestAnalyzeNoNodes: a graph without nodes has an empty analysis, class
// summary included.
func TestAnalyzeNoNodes(t *testing.T) {
	r := analyze(t, build(nil))
	if len(r.Classes) != 0 || len(r.Dominator) != 0 || r.Unreachable != 0 {
		t.Errorf("analysis of no nodes: %+v", r)
	}
}

func TestClassSummary(t *testing.T) {
	strs := []string{"", "Foo", `<div id="x">`, "Detached <span class=y>", "f"}
	g := build(strs,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 0, 1}}},
		node{tObject, 1, 10, []edge{{eProperty, 0, 2}, {eProperty, 0, 3}, {eProperty, 0, 4}}}, // Foo
		node{tObject, 1, 5, []edge{{eProperty, 0, 5}}},                                        // Foo under Foo
		node{tObject, 2, 7, nil},
		node{tClosure, 4, 3, nil},
		node{tObject, 3, 2, nil},
	)
	r := analyze(t, g)
	got := map[string]Class{}
	for _, c := range r.Classes {
		got[c.Name] = c
	}
	foo := got["Foo"]
	// Foo's retained size counts the outer Foo only (27), not the nested one again.
	if foo.Count != 2 || foo.Shallow != 15 || foo.Retained != 27 || foo.MinDistance != 1 {
		t.Errorf("Foo = %+v", foo)
	}
	if got["<div>"].Count != 1 || got["Function"].Shallow != 3 || got["Detached <span>"].Count != 1 || got["(synthetic)"].Count != 0 {
		t.Errorf("classes %+v", r.Classes)
	}
}

func TestWeakMapTableEdge(t *testing.T) {
	// V8 names both edges to a WeakMap value after the key and the table; the
	// table's (node id 5) edge does not count for dominators, the key's does.
	strs := []string{"", "WeakMap", "key", "value",
		"1 / part of key (Object @3) -> value (Object @7) pair in WeakMap (table @5)"}
	g := build(strs,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 0, 1}, {eShortcut, 0, 2}}},
		node{tObject, 2, 10, []edge{{eInternal, 4, 3}}}, // key, id 3
		node{tObject, 1, 20, []edge{{eInternal, 4, 3}}}, // table, id 5
		node{tObject, 3, 30, nil},                       // value, id 7
	)
	r := analyze(t, g)
	if r.Dominator[3] != 1 {
		t.Errorf("value dominated by %d, want the key (1)", r.Dominator[3])
	}
	// The distance search does not follow the first edge of the pair it
	// comes to (the key's), and follows the second (the table's, edge 3).
	if r.Distance[3] != 2 || r.Retainer[3] != 3 || r.RetainerNode[3] != 2 {
		t.Errorf("value at distance %d by edge %d from node %d, want 2 by edge 3 from node 2",
			r.Distance[3], r.Retainer[3], r.RetainerNode[3])
	}
	// The table reached first: its edge is the one not followed, and the
	// key's is; the key still dominates the value.
	strs[4] = "1 / part of key (Object @5) -> value (Object @7) pair in WeakMap (table @3)"
	g = build(strs,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 0, 1}, {eShortcut, 0, 2}}},
		node{tObject, 1, 20, []edge{{eInternal, 4, 3}}}, // table, id 3
		node{tObject, 2, 10, []edge{{eInternal, 4, 3}}}, // key, id 5
		node{tObject, 3, 30, nil},                       // value, id 7
	)
	r = analyze(t, g)
	if r.Distance[3] != 2 || r.Retainer[3] != 3 || r.RetainerNode[3] != 2 || r.Dominator[3] != 2 {
		t.Errorf("table first: value at distance %d by edge %d from node %d, dominated by %d; want 2 by edge 3 from node 2 (the key), dominated by it",
			r.Distance[3], r.Retainer[3], r.RetainerNode[3], r.Dominator[3])
	}
}

// TestDistanceFilters: the distance search does not follow a native
// context's "sloppy_function_map" edge, nor the edges of a map's
// descriptors numbered 4, 7, … (the third of each triple from the second).
func TestDistanceFilters(t *testing.T) {
	strs := []string{"", "system / NativeContext", "sloppy_function_map", "other", "(map descriptors)", "x"}
	nodes := []node{
		{tSynthetic, 0, 0, []edge{{eShortcut, 0, 1}, {eShortcut, 0, 2}}},
		{tHidden, 1, 0, []edge{{eProperty, 2, 3}, {eProperty, 3, 4}}},
		{tArray, 4, 0, nil},
		{tObject, 5, 1, nil}, // only by sloppy_function_map
		{tObject, 5, 1, nil},
	}
	for i := range 8 { // descriptors 0..7 → nodes 5..12
		nodes[2].edges = append(nodes[2].edges, edge{eElement, int64(i), uint32(5 + i)})
		nodes = append(nodes, node{tObject, 5, 1, nil})
	}
	r := analyze(t, build(strs, nodes...))
	want := []int32{BaseSystemDistance, 1, 1, NoDistance, 2, 2, 2, 2, 2, NoDistance, 2, 2, NoDistance}
	if !reflect.DeepEqual(r.Distance, want) {
		t.Errorf("distances %v, want %v", r.Distance, want)
	}
}

func TestDiff(t *testing.T) {
	strs := []string{"", "Foo", "Bar"}
	mk := func(ids ...int64) *Objects {
		g := &Graph{Strings: NewStrings(strs...), NodeTypes: v8NodeTypes, EdgeTypes: v8EdgeTypes}
		g.AddNode(tSynthetic, 0, 0, 0, int64(len(ids)), 0)
		for i, id := range ids {
			name := int64(1 + i%2) // Foo, Bar, Foo, …
			g.AddNode(tObject, name, id, 10*int64(i+1), 0, 0)
		}
		for i := range ids {
			g.AddEdge(eShortcut, 0, uint32(i+1))
		}
		return g.Objects(analyze(t, g))
	}
	base := mk(11, 13, 15) // Foo 11 (10), Bar 13 (20), Foo 15 (30)
	next := mk(13, 17, 19) // Foo 13 (10), Bar 17 (20), Foo 19 (30)
	got := Diff(base, next)
	want := []ClassDiff{
		{Name: "Bar", Added: 1, AddedSize: 20}, // id 13 is in both: neither added nor removed
		{Name: "Foo", Added: 1, Removed: 2, AddedSize: 30, RemovedSize: 40},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %+v, want %+v", got, want)
	}
	// next's list, made by the comparison above, serves again as the base;
	// the ids of the third snapshot are out of order in its nodes.
	third := mk(19, 13, 21) // Foo 19 (10), Bar 13 (20), Foo 21 (30)
	got = Diff(next, third)
	want = []ClassDiff{
		{Name: "Bar", Removed: 1, RemovedSize: 20}, // 17; 13 is in both, whatever its class
		{Name: "Foo", Added: 1, AddedSize: 30},     // 21; 19 is in both
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff(next, third) = %+v, want %+v", got, want)
	}
}

// TestRetainers: each node's retainer is the edge by which the distance search
// first reached it: user roots before system roots, weak edges never, the
// first edge in edge order among equally near retainers, and none for the root
// (even when an object points back at it) or for a node nothing reaches.
func TestRetainers(t *testing.T) {
	g := build(names,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}, {eElement, 1, 3}}},                   // edges 0, 1
		node{tObject, 2, 10, []edge{{eProperty, 3, 2}, {eProperty, 4, 5}, {eProperty, 5, 0}}}, // Window: 2, 3, 4
		node{tObject, 3, 20, []edge{{eProperty, 6, 6}}},                                       // 5
		node{tSynthetic, 1, 0, []edge{{eElement, 0, 4}, {eElement, 1, 6}}},                    // (GC roots): 6, 7
		node{tHidden, 4, 5, nil},
		node{tObject, 5, 7, []edge{{eProperty, 9, 6}, {eWeak, 3, 7}}}, // 8, 9
		node{tObject, 6, 8, nil},
		node{tObject, 7, 9, nil}, // only a weak edge reaches it
	)
	r := analyze(t, g)
	want := []uint32{NoNode, 0, 2, 1, 6, 3, 5, NoNode}
	if !reflect.DeepEqual(r.Retainer, want) {
		t.Errorf("retainer edges %v, want %v", r.Retainer, want)
	}
	for v, e := range r.Retainer {
		if e == NoNode {
			continue
		}
		if from := g.EdgeSource(e); g.FirstEdge[from] > e || e >= g.FirstEdge[from+1] {
			t.Errorf("node %d: EdgeSource(%d) = %d, whose edges are %d..%d", v, e, from, g.FirstEdge[from], g.FirstEdge[from+1])
		}
	}
	if src := []uint32{g.EdgeSource(0), g.EdgeSource(4), g.EdgeSource(5), g.EdgeSource(8)}; !reflect.DeepEqual(src, []uint32{0, 1, 2, 5}) {
		t.Errorf("EdgeSource of edges 0, 4, 5, 8 = %v, want [0 1 2 5] (node 4 has no edges)", src)
	}
}

// TestRetainerOfTwiceLinkedUserRoot: a user root the root links twice is
// retained by the first of the two edges.
func TestRetainerOfTwiceLinkedUserRoot(t *testing.T) {
	g := build(names,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}, {eShortcut, 3, 1}}},
		node{tObject, 2, 10, nil},
	)
	if r := analyze(t, g); r.Retainer[1] != 0 || r.Distance[1] != 1 {
		t.Errorf("retainer edge %d at distance %d, want edge 0 at 1", r.Retainer[1], r.Distance[1])
	}
}

// TestGrowByHeader: past the room Reserve first made, the arrays grow to the
// header's counts in steps of at most four times what they hold, each array
// of nodes (or edges) alike, and not at all without a header.
func TestGrowByHeader(t *testing.T) {
	for _, tc := range []struct {
		n    int
		hint int64
		want int
	}{{10, 100, 30}, {40, 100, 60}, {100, 100, 0}, {10, 5, 0}, {0, 100, 0}, {10, 11, 1}} {
		if got := Headroom(tc.n, tc.hint); got != tc.want {
			t.Errorf("Headroom(%d, %d) = %d, want %d", tc.n, tc.hint, got, tc.want)
		}
	}
	g := &Graph{}
	g.Reserve(10, 20)
	g.nodesHint, g.edgesHint = 100, 150 // as if the header said more than Reserve believed
	var caps []int
	for i := range 100 {
		g.AddNode(3, 0, int64(i), 1, 1, 0)
		if c := cap(g.ID); len(caps) == 0 || caps[len(caps)-1] != c {
			caps = append(caps, c)
		}
	}
	// Two steps (rounded up to the allocator's size classes): 10 + 30, then
	// 40 + 60; every node array has the room.
	if len(caps) != 3 || caps[1] < 40 || caps[1] >= 48 || caps[2] < 100 ||
		min(cap(g.Type), cap(g.Name), cap(g.Self), cap(g.Detachedness), cap(g.FirstEdge)-1) < 100 {
		t.Errorf("node room %v (types %d, names %d, sizes %d, detachedness %d, offsets %d), want 10, 40, 100",
			caps, cap(g.Type), cap(g.Name), cap(g.Self), cap(g.Detachedness), cap(g.FirstEdge))
	}
	caps = caps[:0]
	for i := range 150 {
		g.AddEdge(2, 0, uint32(i%100))
		if c := cap(g.To); len(caps) == 0 || caps[len(caps)-1] != c {
			caps = append(caps, c)
		}
	}
	if len(caps) != 3 || caps[1] < 80 || caps[1] >= 96 || caps[2] < 150 || min(cap(g.EdgeType), cap(g.EdgeName)) < 150 {
		t.Errorf("edge room %v, want 20, 80, 150", caps)
	}
	if g.NodeCount() != 100 || len(g.To) != 150 || g.ID[99] != 99 || g.To[149] != 49 {
		t.Errorf("%d nodes, %d edges", g.NodeCount(), len(g.To))
	}
}

// TestStop: a closed Stop makes Analyze give up with ErrStopped.
func TestStop(t *testing.T) {
	g := build(names,
		node{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
		node{tObject, 2, 10, nil})
	stop := make(chan struct{})
	close(stop)
	g.Stop = stop
	if _, err := g.Analyze(); !errors.Is(err, ErrStopped) {
		t.Errorf("error %v, want ErrStopped", err)
	}
}

// TestReadersDone: Analyze waits for the other readers once, while the
// graph still holds all its arrays, and fails with their error.
func TestReadersDone(t *testing.T) {
	graph := func() *Graph {
		return build(names,
			node{tSynthetic, 0, 0, []edge{{eShortcut, 2, 1}}},
			node{tObject, 2, 10, []edge{{eProperty, 3, 2}}},
			node{tObject, 3, 20, nil})
	}
	want := analyze(t, graph())
	readerErr := errors.New("the row writer failed")
	for _, tc := range []struct {
		name string
		err  error
	}{{"done", nil}, {"failed", readerErr}} {
		t.Run(tc.name, func(t *testing.T) {
			g := graph()
			calls, held := 0, false
			g.ReadersDone = func() error {
				calls++
				held = g.ID != nil && g.Self != nil && g.Name != nil && g.EdgeName != nil
				return tc.err
			}
			r, err := g.Analyze()
			if calls != 1 || !held {
				t.Errorf("ReadersDone called %d times, arrays all held then: %v; want once, true", calls, held)
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.err == nil && !reflect.DeepEqual(r, want) {
				t.Errorf("result %+v, want %+v as without ReadersDone", r, want)
			}
		})
	}
}
