package leaks

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// memlabLoop is memlab's TraceSimilarityStrategy as cluster ran it before the
// clusterer: each trace against every representative, in order.
func memlabLoop(traces [][]element) []int {
	var reps [][]element
	out := make([]int, 0, len(traces))
	for _, t := range traces {
		c := -1
		for j, r := range reps {
			if similarity(r, t) >= SimilarTraceThreshold {
				c = j
				break
			}
		}
		if c < 0 {
			c = len(reps)
			reps = append(reps, t)
		}
		out = append(out, c)
	}
	return out
}

func clusterAll(traces [][]element, limit int) (clusters []int, unclustered int) {
	c := newClusterer(maphash.MakeSeed())
	c.limit = limit
	for _, t := range traces {
		k, ok := c.add(t)
		if !ok {
			unclustered++
		}
		clusters = append(clusters, k)
	}
	return clusters, unclustered
}

func node(name string) element { return element{typ: tObject, name: name} }
func prop(name string) element {
	return element{edge: true, typ: eProperty, name: name, number: representsNumber(name)}
}
func index(name string) element { return element{edge: true, typ: eElement, name: name, number: true} }

// chain is a trace root → names[0] → N0 → names[1] → N1 …, nodes named
// by leaf(i).
func chain(leaf func(int) string, names ...string) []element {
	t := []element{node("")}
	for i, n := range names {
		t = append(t, prop(n), node(leaf(i)))
	}
	return t
}

func TestClustererTraces(t *testing.T) {
	nodeN := func(i int) string { return fmt.Sprint("N", i) }
	long := func(top string, n int) []element { // n properties, all named top+i
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprint(top, i)
		}
		return chain(nodeN, names...)
	}
	for _, tt := range []struct {
		name   string
		traces [][]element
		want   []int // cluster of each trace
	}{
		{"a property each (the slow input)", [][]element{
			chain(func(int) string { return "C0" }, "p0"),
			chain(func(int) string { return "C1" }, "p1"),
			chain(func(int) string { return "C2" }, "p2"),
			chain(func(int) string { return "C3" }, "p3"),
		}, []int{0, 1, 2, 3}},
		{"one property, a leaf name each", [][]element{
			chain(func(int) string { return "C0" }, "p"),
			chain(func(int) string { return "C1" }, "p"),
			chain(func(int) string { return "C2" }, "p"),
		}, []int{0, 0, 0}},
		{"elements of one array, and of another", [][]element{
			{node(""), prop("a"), node("Array"), index("0"), node("X")},
			{node(""), prop("b"), node("Array"), index("0"), node("X")},
			{node(""), prop("a"), node("Array"), index("7"), node("X")},
			{node(""), prop("b"), node("Array"), index("3"), node("Y")},
		}, []int{0, 1, 0, 1}},
		{"a beginning and a longer one", [][]element{
			{node(""), prop("cache"), node("Map"), index("0"), node("Entry")},
			{node(""), prop("cache"), node("Map")},
			{node(""), prop("cache"), node("Map"), index("0"), node("Entry"), prop("x"), node("Y"), prop("z"), node("W")},
			{node(""), prop("store"), node("Map")},
		}, []int{0, 0, 0, 1}},
		{"window nodes", [][]element{
			{node("Window / a"), prop("x"), node("X")},
			{node("Window / b"), prop("x"), node("X")},
			{node("Window"), prop("x"), node("X")},
		}, []int{0, 0, 1}},
		{"long traces (no prefix rules a pair out)", [][]element{
			long("a", 10), long("b", 10), long("a", 10)[:19], long("a", 12),
			append(long("a", 10)[:13], long("b", 10)[13:]...),
		}, []int{0, 1, 0, 0, 0}},
	} {
		got, unclustered := clusterAll(tt.traces, MaxComparisons)
		if !slices.Equal(got, tt.want) || unclustered != 0 {
			t.Errorf("%s: clusters %v (%d unclustered), want %v", tt.name, got, unclustered, tt.want)
		}
		if ref := memlabLoop(tt.traces); !slices.Equal(ref, tt.want) {
			t.Errorf("%s: memlab's loop gives %v, want %v", tt.name, ref, tt.want)
		}
	}
}

// randomTraces makes n traces of up to maxNodes nodes from a few names, and
// variants of earlier ones (a few elements changed, cut or grown), so that
// many are similar.
func randomTraces(rng *rand.Rand, n, maxNodes int) [][]element {
	nodeNames := []string{"", "A", "B", "Window / x", "Window / y", "Detached InternalNode"}
	edgeNames := []string{"a", "b", "1", "__reactFiber$1", "__reactFiber$2", "0.5"}
	randNode := func() element {
		return element{typ: uint8(1 + rng.IntN(2)*2), name: nodeNames[rng.IntN(len(nodeNames))]}
	}
	randEdge := func() element {
		if rng.IntN(3) == 0 {
			return index(fmt.Sprint(rng.IntN(3)))
		}
		e := prop(edgeNames[rng.IntN(len(edgeNames))])
		if rng.IntN(4) == 0 {
			e.typ = eInternal
		}
		return e
	}
	var out [][]element
	for len(out) < n {
		var t []element
		if len(out) > 0 && rng.IntN(3) > 0 {
			t = slices.Clone(out[rng.IntN(len(out))])
			for range rng.IntN(4) {
				i := rng.IntN(len(t))
				if t[i].edge {
					t[i] = randEdge()
				} else {
					t[i] = randNode()
				}
			}
			switch rng.IntN(4) {
			case 0:
				t = t[:1+2*rng.IntN((len(t)+1)/2)]
			case 1:
				for range rng.IntN(3) {
					if len(t) < 2*maxNodes-1 {
						t = append(t, randEdge(), randNode())
					}
				}
			}
		} else {
			t = []element{randNode()}
			for range rng.IntN(maxNodes) {
				t = append(t, randEdge(), randNode())
			}
		}
		out = append(out, t)
	}
	return out
}

func TestSimilarIsSimilarity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	var agree, similarPairs int
	for _, maxNodes := range []int{3, 8, 30, MaxTraceNodes} {
		traces := randomTraces(rng, 300, maxNodes)
		c := newClusterer(maphash.MakeSeed())
		for range 20000 {
			t1, t2 := traces[rng.IntN(len(traces))], traces[rng.IntN(len(traces))]
			c1, c2 := c.code(t1), c.code(t2)
			for i := range max(len(t1), len(t2)) + 1 {
				if sameCode(c1, c2, i) != same(t1, t2, i) {
					t.Fatalf("at %d, sameCode %v, same %v:\n%v\n%v", i, sameCode(c1, c2, i), same(t1, t2, i), t1, t2)
				}
			}
			bd := bound(len(t1), len(t2))
			want := similarity(t1, t2) >= SimilarTraceThreshold
			if got := similar(c1, c2, bd.total); got != want {
				t.Fatalf("similar = %v, similarity %.6f:\n%v\n%v", got, similarity(t1, t2), t1, t2)
			}
			agree++
			if !want {
				continue
			}
			similarPairs++
			// A similar pair has the same elements, and keys, on the prefix.
			k1, e1 := traceKeyEnds(&b, t1, []int{})
			k2, e2 := traceKeyEnds(&b, t2, []int{})
			for p := range bd.prefix {
				if !same(t1, t2, p) || k1[:e1[p]] != k2[:e2[p]] {
					t.Fatalf("similar traces differ at %d < prefix %d:\n%v\n%v", p, bd.prefix, t1, t2)
				}
			}
		}
	}
	if similarPairs < 1000 {
		t.Errorf("only %d of %d random pairs similar: the test checks little", similarPairs, agree)
	}
}

func TestBoundPrefix(t *testing.T) {
	// Short traces: a mismatch in the first positions is too heavy; from
	// 15 elements (8 nodes) on, no single mismatch is.
	for _, tt := range []struct{ l1, l2, prefix int }{
		{1, 1, 1}, {1, 9, 1}, {3, 3, 2}, {3, 5, 2}, {5, 5, 2}, {9, 9, 0}, {3, 11, 1}, {15, 3, 0},
		{15, 15, 0}, {199, 199, 0},
	} {
		if got := bound(tt.l1, tt.l2).prefix; got != tt.prefix {
			t.Errorf("bound(%d, %d).prefix = %d, want %d", tt.l1, tt.l2, got, tt.prefix)
		}
	}
}

func TestClustererIsMemlabLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, maxNodes := range []int{2, 4, 8, 30, MaxTraceNodes} {
		traces := randomTraces(rng, 1500, maxNodes)
		want := memlabLoop(traces)
		got, unclustered := clusterAll(traces, MaxComparisons)
		if !slices.Equal(got, want) || unclustered != 0 {
			t.Errorf("traces of up to %d nodes: %d clusters (%d unclustered), memlab's loop %d",
				maxNodes, slices.Max(got)+1, unclustered, slices.Max(want)+1)
		}
	}
}

func TestClustererLimit(t *testing.T) {
	// Long traces with nothing in common but the root: each pair compared.
	long := func(c string) []element {
		names := make([]string, 8)
		for i := range names {
			names[i] = fmt.Sprint(c, i)
		}
		return chain(func(i int) string { return fmt.Sprint(c, "N", i) }, names...)
	}
	traces := [][]element{long("a"), long("b"), long("c"), long("d"), long("a"), long("e")}
	// a: none, b: 1, c: 2 comparisons (3 in all); then d is not compared, nor
	// is the second a (which then does not join a's cluster), nor e.
	got, unclustered := clusterAll(traces, 3)
	if want := []int{0, 1, 2, 3, 4, 5}; !slices.Equal(got, want) || unclustered != 3 {
		t.Errorf("clusters %v, %d unclustered; want %v, 3", got, unclustered, want)
	}
	if got, unclustered := clusterAll(traces, MaxComparisons); !slices.Equal(got, []int{0, 1, 2, 3, 0, 4}) || unclustered != 0 {
		t.Errorf("with no limit reached: clusters %v, %d unclustered", got, unclustered)
	}
	// Short traces of distinct properties need no comparison at all.
	var short [][]element
	for i := range 100 {
		short = append(short, chain(func(int) string { return "C" }, fmt.Sprint("p", i)))
	}
	if got, unclustered := clusterAll(short, 0); slices.Max(got) != 99 || unclustered != 0 {
		t.Errorf("distinct properties: %d clusters, %d unclustered; want 100, 0", slices.Max(got)+1, unclustered)
	}
}

func TestFindManyDistinctLeaks(t *testing.T) {
	// The root holds 200 new objects, each by a property of its own: 200
	// clusters, found with no comparison.
	root := testNode{tSynthetic, "", 1, 0, nil}
	nodes := []testNode{root}
	var target []int64
	for i := range 200 {
		nodes[0].edges = append(nodes[0].edges, testEdge{eProperty, fmt.Sprint("p", i), uint32(i + 1)})
		nodes = append(nodes, testNode{tObject, fmt.Sprint("C", i), int64(3 + 2*i), 64, nil})
		target = append(target, int64(3+2*i))
	}
	g, r := graph(nodes...)
	rep := Find(g, r, []int64{1}, target)
	if len(rep.Leaks) != 200 || len(rep.Clusters) != 200 || rep.Unclustered != 0 {
		t.Errorf("%d leaks, %d clusters, %d unclustered; want 200, 200, 0", len(rep.Leaks), len(rep.Clusters), rep.Unclustered)
	}
}
