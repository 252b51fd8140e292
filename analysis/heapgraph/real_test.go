package heapgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// loadNodeSnapshot builds the graph of the real node snapshot with
// encoding/json, independently of the streaming decoder.
func loadNodeSnapshot(t *testing.T) *Graph {
	var s struct {
		Snapshot struct {
			Meta struct {
				NodeFields []string          `json:"node_fields"`
				NodeTypes  []json.RawMessage `json:"node_types"`
				EdgeTypes  []json.RawMessage `json:"edge_types"`
			} `json:"meta"`
		} `json:"snapshot"`
		Nodes   []int64  `json:"nodes"`
		Edges   []int64  `json:"edges"`
		Strings []string `json:"strings"`
	}
	if err := json.Unmarshal(testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"), &s); err != nil {
		t.Fatal(err)
	}
	g := &Graph{Strings: NewStrings(s.Strings...)}
	json.Unmarshal(s.Snapshot.Meta.NodeTypes[0], &g.NodeTypes)
	json.Unmarshal(s.Snapshot.Meta.EdgeTypes[0], &g.EdgeTypes)
	stride := len(s.Snapshot.Meta.NodeFields)
	for i := 0; i < len(s.Nodes); i += stride {
		n := s.Nodes[i:]
		g.AddNode(n[0], n[1], n[2], n[3], n[4], n[6])
		g.HasDetachedness = true
	}
	for i := 0; i < len(s.Edges); i += 3 {
		g.AddEdge(s.Edges[i], s.Edges[i+1], uint32(s.Edges[i+2]/int64(stride)))
	}
	return g
}

// simpleDominators is the iterative algorithm of Cooper, Harvey and Kennedy on
// the nodes the root reaches over essential edges: an independent check of the
// Lengauer–Tarjan implementation.
func simpleDominators(g *Graph, essential bitset) (idom []int32) {
	n := g.NodeCount()
	// Reverse postorder by an explicit-stack DFS.
	order := make([]int32, n) // postorder number, -1 unreached
	for i := range order {
		order[i] = -1
	}
	var post []uint32
	visited := make([]bool, n)
	type fr struct{ v, e uint32 }
	stack := []fr{{g.Root, g.FirstEdge[g.Root]}}
	visited[g.Root] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.e == g.FirstEdge[top.v+1] {
			order[top.v] = int32(len(post))
			post = append(post, top.v)
			stack = stack[:len(stack)-1]
			continue
		}
		e := top.e
		top.e++
		if to := g.To[e]; essential.has(e) && !visited[to] {
			visited[to] = true
			stack = append(stack, fr{to, g.FirstEdge[to]})
		}
	}
	preds := make([][]uint32, n)
	for v := 0; v < n; v++ {
		for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
			if essential.has(e) {
				preds[g.To[e]] = append(preds[g.To[e]], uint32(v))
			}
		}
	}
	idom = make([]int32, n)
	for i := range idom {
		idom[i] = -1
	}
	idom[g.Root] = int32(g.Root)
	intersect := func(a, b int32) int32 {
		for a != b {
			for order[a] < order[b] {
				a = idom[a]
			}
			for order[b] < order[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(post) - 1; i >= 0; i-- {
			v := post[i]
			if v == g.Root {
				continue
			}
			nd := int32(-1)
			for _, p := range preds[v] {
				if idom[p] == -1 {
					continue
				}
				if nd == -1 {
					nd = int32(p)
				} else {
					nd = intersect(int32(p), nd)
				}
			}
			if nd != idom[v] {
				idom[v] = nd
				changed = true
			}
		}
	}
	return idom
}

func TestNodeSnapshotDominators(t *testing.T) {
	g := loadNodeSnapshot(t)
	tt := g.types()
	essential := g.essentialEdges(&tt, &weakMapInfo{}, g.pageOwned(&tt))
	idom := simpleDominators(g, essential)
	selfSizes := slices.Clone(g.Self)
	r := analyze(t, g) // releases most of g, the self sizes too
	reached := 0
	for v, d := range idom {
		if d < 0 {
			continue
		}
		reached++
		if uint32(d) != r.Dominator[v] {
			t.Fatalf("node %d (id %d): Lengauer–Tarjan says %d, the simple algorithm %d", v, g.ID[v], r.Dominator[v], d)
		}
	}
	if reached+r.Unreachable != g.NodeCount() || reached < g.NodeCount()/2 {
		t.Errorf("%d nodes compared, %d unreachable, %d in all", reached, r.Unreachable, g.NodeCount())
	}
	// The root retains everything; its dominated children share it out.
	var total, children float64
	for v := range g.NodeCount() {
		total += float64(r.Shallow[v])
		if uint32(v) != g.Root && r.Dominator[v] == g.Root {
			children += r.Retained[v]
		}
	}
	if r.Retained[g.Root] != total || children+float64(r.Shallow[g.Root]) != total {
		t.Errorf("root retains %v, its children %v, total shallow size %v", r.Retained[g.Root], children, total)
	}
	// Shallow size folding moves sizes, it does not change the total.
	var self float64
	for _, s := range selfSizes {
		self += float64(s)
	}
	if self != total {
		t.Errorf("total self size %v, total shallow size %v", self, total)
	}
	t.Logf("%d nodes, %d unreachable from the root over essential edges, %d classes", g.NodeCount(), r.Unreachable, len(r.Classes))
}

// TestShelf analyses the real snapshot twice, once holding everything in
// memory and once with a shelf file: the results must be the same, the graph
// must be given back as it was (ids and edge offsets; the self sizes only
// with KeepLabels, see TestSelfGivenBack), and the shelf must have held the
// per-node arrays.
func TestShelf(t *testing.T) {
	mem := loadNodeSnapshot(t)
	ids := slices.Clone(mem.ID)
	want := analyze(t, mem)

	g := loadNodeSnapshot(t)
	f, err := os.CreateTemp(t.TempDir(), "shelf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g.Shelf = f
	got := analyze(t, g)
	if !reflect.DeepEqual(got, want) {
		t.Error("the analysis with a shelf differs from the one in memory")
	}
	if !slices.Equal(g.ID, ids) || !slices.Equal(g.FirstEdge, mem.FirstEdge) {
		t.Error("the graph's ids or edge offsets were not given back")
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	// ids (8 B), shallow sizes, classes, distances, retainer edges and
	// nodes (4 B each) a node; the edges' types (1 B) and names (4 B),
	// which wait there during the search and the dominators. The self
	// sizes are not read again: they are dropped, not shelved.
	n, m := int64(g.NodeCount()), int64(g.FirstEdge[g.NodeCount()])
	if want := n*(8+5*4) + m*(1+4); info.Size() != want {
		t.Errorf("the shelf holds %d bytes for %d nodes and %d edges, want %d", info.Size(), n, m, want)
	}
	var retainers int
	for v, e := range got.Retainer {
		if e == NoNode {
			continue
		}
		retainers++
		if from := got.RetainerNode[v]; from != g.EdgeSource(e) {
			t.Fatalf("node %d: retainer node %d, the edge's source %d", v, from, g.EdgeSource(e))
		}
	}
	if retainers < g.NodeCount()/2 {
		t.Errorf("only %d of %d nodes have a retainer", retainers, g.NodeCount())
	}
}

// TestThreads: the analysis gives the same result whatever the number of
// cores it may use (its steps run side by side and the predecessor lists
// are made in ranges of targets, one a core and 4 at most), with a shelf
// and without.
func TestThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	want := analyze(t, loadNodeSnapshot(t))
	for _, tc := range []struct{ procs, ranges int }{{2, 2}, {3, 3}, {4, 4}, {6, 4}} {
		for _, shelved := range []bool{false, true} {
			runtime.GOMAXPROCS(tc.procs)
			g := loadNodeSnapshot(t)
			if k := len(targetRanges(g.NodeCount())) - 1; k != tc.ranges {
				t.Fatalf("GOMAXPROCS=%d: %d ranges of targets for %d nodes, want %d", tc.procs, k, g.NodeCount(), tc.ranges)
			}
			if shelved {
				f, err := os.CreateTemp(t.TempDir(), "shelf")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				g.Shelf = f
			}
			if got := analyze(t, g); !reflect.DeepEqual(got, want) {
				t.Errorf("GOMAXPROCS=%d, shelf %v: the analysis differs from the one on one core", tc.procs, shelved)
			}
		}
	}
}

// failingShelf fails the write at offset failAt and later ones.
type failingShelf struct {
	*os.File
	failAt int64
}

func (f failingShelf) WriteAt(p []byte, off int64) (int, error) {
	if off >= f.failAt {
		return 0, errors.New("no space left on device")
	}
	return f.File.WriteAt(p, off)
}

// TestShelfError: a shelf that cannot be written to makes Analyze fail with
// an error that says so, whichever array it fails on.
func TestShelfError(t *testing.T) {
	g := loadNodeSnapshot(t)
	n, m := int64(g.NodeCount()), int64(len(g.To))
	// The ids, the self sizes (both written beside the first steps), and
	// the retainer nodes (from the distance search's goroutine), after the
	// edge types and names, shallow sizes, classes and distances.
	for _, at := range []int64{0, 8 * n, 8*n + 3*4*n + 5*m + 4*n} {
		g := loadNodeSnapshot(t)
		f, err := os.CreateTemp(t.TempDir(), "shelf")
		if err != nil {
			t.Fatal(err)
		}
		g.Shelf = failingShelf{f, at}
		r, err := g.Analyze()
		f.Close()
		if r != nil || err == nil || !strings.Contains(err.Error(), "no space left on device") ||
			!strings.Contains(err.Error(), fmt.Sprintf("at offset %d", at)) {
			t.Errorf("failing at offset %d: got %v, %v", at, r != nil, err)
		}
	}
}

// TestSelfGivenBack: Analyze gives the self sizes back (from the shelf) only
// when KeepLabels asks for them (the leak analysis reads them afterwards);
// otherwise nothing does, and they are not read back.
func TestSelfGivenBack(t *testing.T) {
	for _, tc := range []struct {
		name             string
		shelf, keep      bool
		wantSelfReturned bool
		// the shelf's bytes a node and an edge: the labels stay in memory
		// where they are kept, and the self sizes are shelved only then.
		wantNodeBytes, wantEdgeBytes int64
	}{
		{"shelf", true, false, false, 8 + 5*4, 1 + 4},
		{"shelf, labels kept", true, true, true, 8 + 6*4, 0},
		{"in memory", false, false, false, 0, 0},
		{"in memory, labels kept", false, true, true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := loadNodeSnapshot(t)
			self := slices.Clone(g.Self)
			n, m := int64(g.NodeCount()), int64(g.FirstEdge[g.NodeCount()])
			g.KeepLabels = tc.keep
			var f *os.File
			if tc.shelf {
				var err error
				if f, err = os.CreateTemp(t.TempDir(), "shelf"); err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				g.Shelf = f
			}
			analyze(t, g)
			if f != nil {
				info, err := f.Stat()
				if err != nil {
					t.Fatal(err)
				}
				if want := n*tc.wantNodeBytes + m*tc.wantEdgeBytes; info.Size() != want {
					t.Errorf("the shelf holds %d bytes for %d nodes and %d edges, want %d", info.Size(), n, m, want)
				}
			}
			if tc.wantSelfReturned && !slices.Equal(g.Self, self) {
				t.Errorf("self sizes: %d given back, want the %d given", len(g.Self), len(self))
			}
			if !tc.wantSelfReturned && g.Self != nil {
				t.Errorf("self sizes: %d given back, want none", len(g.Self))
			}
		})
	}
}
