package leaks

import (
	"fmt"
	"slices"
	"testing"

	"tracestreamer/analysis/heapgraph"
)

var (
	nodeTypes = []string{"hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
		"synthetic", "concatenated string", "sliced string", "symbol", "bigint", "object shape"}
	edgeTypes = []string{"context", "element", "property", "internal", "hidden", "shortcut", "weak"}
)

const (
	tArray, tString, tObject, tCode, tNumber, tSynthetic = 1, 2, 3, 4, 7, 9
	eElement, eProperty, eInternal, eShortcut, eWeak     = 1, 2, 3, 5, 6
)

type testNode struct {
	typ   int64
	name  string
	id    int64
	self  int64
	edges []testEdge
}

type testEdge struct {
	typ  int64
	name string // a string, or the index of element edges
	to   uint32
}

// graph builds an analysed graph whose labels are kept, as Find needs it.
func graph(nodes ...testNode) (*heapgraph.Graph, *heapgraph.Result) {
	g := &heapgraph.Graph{NodeTypes: nodeTypes, EdgeTypes: edgeTypes, KeepLabels: true}
	str := map[string]int64{}
	intern := func(s string) int64 {
		if i, ok := str[s]; ok {
			return i
		}
		str[s] = int64(g.Strings.Len())
		g.Strings.Append(s)
		return str[s]
	}
	for _, n := range nodes {
		g.AddNode(n.typ, intern(n.name), n.id, n.self, int64(len(n.edges)), 0)
	}
	for _, n := range nodes {
		for _, e := range n.edges {
			name := intern(e.name)
			if e.typ == eElement {
				fmt.Sscan(e.name, &name)
			}
			g.AddEdge(e.typ, name, e.to)
		}
	}
	r, err := g.Analyze()
	if err != nil {
		panic(err) // no shelf: Analyze has nothing to fail on
	}
	return g, r
}

// A program's heap: a cache (Map → table → three Entry objects, each with a
// buffer) reached from the global object, and what memlab must not report.
func leakyHeap() (*heapgraph.Graph, *heapgraph.Result) {
	return graph(
		testNode{tSynthetic, "", 1, 0, []testEdge{{eShortcut, "global", 2}, {eElement, "1", 1}}},       // 0 root
		testNode{tSynthetic, "(GC roots)", 3, 0, []testEdge{{eElement, "0", 11}, {eElement, "1", 12}}}, // 1
		testNode{tObject, "global", 5, 40, []testEdge{{eProperty, "cache", 3}, {eProperty, "old", 10},
			{eWeak, "w", 9}, {eInternal, "code", 8}, {eProperty, "n", 7}}}, // 2
		testNode{tObject, "Map", 101, 32, []testEdge{{eInternal, "table", 4}}},                                 // 3 new
		testNode{tArray, "", 103, 64, []testEdge{{eElement, "0", 5}, {eElement, "1", 6}, {eElement, "2", 13}}}, // 4 new
		testNode{tObject, "Entry", 105, 24, []testEdge{{eProperty, "buf", 14}}},                                // 5 new
		testNode{tObject, "Entry", 107, 24, nil},                                                               // 6 new
		testNode{tNumber, "heap number", 109, 16, nil},                                                         // 7 new: trivial
		testNode{tCode, "code", 111, 100, nil},                                                                 // 8 new: no trace
		testNode{tObject, "Weakling", 113, 8, nil},                                                             // 9 new: only weakly held
		testNode{tObject, "Old", 7, 8, nil},                                                                    // 10 in the baseline
		testNode{tSynthetic, "(Stack roots)", 9, 0, []testEdge{{eInternal, "s", 15}}},                          // 11
		testNode{tSynthetic, "(Handle scope)", 11, 0, nil},                                                     // 12
		testNode{tObject, "Entry", 115, 24, nil},                                                               // 13 new
		testNode{tString, "buffer", 117, 100, nil},                                                             // 14 new: trivial
		testNode{tObject, "OnStack", 119, 8, nil},                                                              // 15 new, under a grey root
		testNode{tObject, "Late", 121, 8, nil},                                                                 // 16 only in the final
	)
}

func TestFind(t *testing.T) {
	g, r := leakyHeap()
	baseline := []int64{1, 3, 5, 7, 9, 11}
	target := []int64{1, 3, 5, 7, 9, 11, 101, 103, 105, 107, 109, 111, 113, 115, 117, 119}
	rep := Find(g, r, baseline, target)
	// Candidates: the ten ids of the target that the baseline lacks.
	if rep.Candidates != 10 || rep.Kept != 8 {
		t.Errorf("%d candidates, %d kept; want 10 and 8 (no number, no string)", rep.Candidates, rep.Kept)
	}
	var got []string
	for i, lk := range rep.Leaks {
		var p []int64
		for _, s := range rep.Path(i, nil) {
			p = append(p, g.ID[s.Node])
		}
		got = append(got, fmt.Sprint(g.ID[lk.Node], p))
	}
	// Clustered from the last node to the first; the code object and the
	// weakly held one have no trace; (Stack roots) is grey-listed but the only
	// way to OnStack.
	want := []string{"119 [3 9 119]", "115 [1 5 101 103 115]", "107 [1 5 101 103 107]", "105 [1 5 101 103 105]",
		"103 [1 5 101 103]", "101 [1 5 101]"}
	if !slices.Equal(got, want) {
		t.Errorf("leaks %q\nwant %q", got, want)
	}
	// The three entries share a trace up to their index, and the traces of
	// Map and its table are its beginning (memlab stops comparing where the
	// shorter trace ends); OnStack stands alone. Map dominates the others:
	// the cluster retains Map's 268 bytes (its table's 64 folded into its 32,
	// three entries of 24 and one entry's string of 100).
	var clusters []string
	for _, c := range rep.Clusters {
		var ids []int64
		for _, i := range c.Leaks {
			ids = append(ids, g.ID[rep.Leaks[i].Node])
		}
		clusters = append(clusters, fmt.Sprint(ids, c.Retained))
	}
	wantClusters := []string{"[115 107 105 103 101] 268", "[119] 8"}
	if !slices.Equal(clusters, wantClusters) {
		t.Errorf("clusters %q, want %q", clusters, wantClusters)
	}
	for i, lk := range rep.Leaks {
		if c := rep.Clusters[lk.Cluster]; !slices.Contains(c.Leaks, i) {
			t.Errorf("leak %d names cluster %d, which does not hold it", i, lk.Cluster)
		}
	}
}

func TestTraceEdgesPreferNonGreyRoots(t *testing.T) {
	// X is reachable from the root through the global object (two steps) and
	// from (GC roots) → (Handle scope) (two steps, both grey-listed): memlab
	// takes the grey route only when nothing else is left.
	g, _ := graph(
		testNode{tSynthetic, "", 1, 0, []testEdge{{eShortcut, "global", 2}, {eElement, "1", 1}}},
		testNode{tSynthetic, "(GC roots)", 3, 0, []testEdge{{eElement, "0", 3}}},
		testNode{tObject, "global", 5, 10, []testEdge{{eProperty, "x", 4}}},
		testNode{tSynthetic, "(Handle scope)", 7, 0, []testEdge{{eElement, "0", 4}}},
		testNode{tObject, "X", 9, 10, nil},
	)
	via := traceEdges(g, newLabels(g))
	if from := g.EdgeSource(via[4]); from != 2 {
		t.Errorf("X reached from node %d, want the global object (2)", from)
	}
	if via[3] == heapgraph.NoNode || via[0] != heapgraph.NoNode || via[1] != heapgraph.NoNode {
		t.Errorf("trace edges %v: the grey root is reached last, the roots not at all", via)
	}
}

func TestRepresentsNumber(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"0", true}, {"12", true}, {"-3", true}, {"1.5", true}, {"NaN", true}, {"Infinity", true},
		{"-Infinity", true}, {"1.50", false}, {"01", false}, {"1e3", false}, {" 1", false}, {"", false},
		{"abc", false}, {"12abc", false}, {"-", false}, {"99999999999999999999", false},
	} {
		if got := representsNumber(tt.s); got != tt.want {
			t.Errorf("representsNumber(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestSimilarity(t *testing.T) {
	node := func(name string) element { return element{typ: tObject, name: name} }
	prop := func(name string) element { return element{edge: true, typ: eProperty, name: name} }
	index := func(name string) element { return element{edge: true, typ: eElement, name: name, number: true} }
	base := []element{node(""), prop("cache"), node("Map"), index("0"), node("Entry")}
	for _, tt := range []struct {
		name    string
		other   []element
		similar bool
	}{
		{"same", base, true},
		{"other index of the same referrer", []element{node(""), prop("cache"), node("Map"), index("7"), node("Entry")}, true},
		{"index of another referrer", []element{node(""), prop("cache"), node("Set"), index("0"), node("Entry")}, false},
		{"other property at the root", []element{node(""), prop("store"), node("Map"), index("0"), node("Entry")}, false},
		{"other leaf class", []element{node(""), prop("cache"), node("Map"), index("0"), node("Other")}, true},
		{"a beginning of it", base[:3], true},
		{"longer at its end", append(slices.Clone(base), prop("x"), node("Y"), prop("z"), node("W")), true},
		{"window nodes are one", append([]element{{typ: tObject, name: "Window / a"}}, base[1:]...), false},
	} {
		got := similarity(base, tt.other) >= SimilarTraceThreshold
		if got != tt.similar {
			t.Errorf("%s: similarity %.3f", tt.name, similarity(base, tt.other))
		}
	}
	w1 := []element{{typ: tObject, name: "Window / a"}, prop("x"), node("X")}
	w2 := []element{{typ: tObject, name: "Window / b"}, prop("x"), node("X")}
	if s := similarity(w1, w2); s < 0.99 {
		t.Errorf("traces from two Window nodes: similarity %.3f, want ≈ 1", s)
	}
}
