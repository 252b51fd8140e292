package leaks

import (
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"

	"tracestreamer/analysis/heapgraph"
)

// element is one item of a normalised trace: a node (type and name as memlab
// names it) or an edge (type and name or index).
type element struct {
	edge   bool
	typ    uint8
	name   string
	number bool // the name represents a number (memlab's representsNumber)
}

// SimilarTraceThreshold is memlab's SIMILAR_TRACE_THRESHOLD: two traces whose
// similarity reaches it are one cluster.
const SimilarTraceThreshold = 0.8

// NodeName is a node's name as memlab shows it: "Detached " before the name
// of a detached node.
func NodeName(g *heapgraph.Graph, v uint32) string {
	name := ""
	if n := g.Name[v]; int(n) < g.Strings.Len() {
		name = g.Strings.At(n)
	}
	if g.HasDetachedness && len(g.Detachedness) == g.NodeCount() && g.Detachedness[v] == 2 {
		return "Detached " + name
	}
	return name
}

// EdgeName is an edge's name as DevTools and memlab show it: the number of
// element and hidden edges, the string of the others.
func EdgeName(g *heapgraph.Graph, e uint32) string {
	if t := int(g.EdgeType[e]); t < len(g.EdgeTypes) && (g.EdgeTypes[t] == "element" || g.EdgeTypes[t] == "hidden") {
		return strconv.FormatUint(uint64(g.EdgeName[e]), 10)
	}
	if n := g.EdgeName[e]; int(n) < g.Strings.Len() {
		return g.Strings.At(n)
	}
	return ""
}

// trace is memlab's NormalizedTrace.pathToTrace: node, edge, node, …, node,
// cut after the first detached node (but a "Detached InternalNode").
func trace(g *heapgraph.Graph, lb *labels, p []Step) []element {
	t := make([]element, 0, 2*len(p))
	for i, s := range p {
		if i > 0 {
			name := EdgeName(g, s.Edge)
			t = append(t, element{edge: true, typ: g.EdgeType[s.Edge], name: name,
				number: lb.indexed(s.Edge) || representsNumber(name)})
		}
		name := NodeName(g, s.Node)
		t = append(t, element{typ: g.Type[s.Node], name: name})
		if strings.HasPrefix(name, "Detached ") && name != "Detached InternalNode" {
			break
		}
	}
	return t
}

// representsNumber is memlab's test of an edge name: JavaScript's parseInt or
// parseFloat gives it back unchanged.
func representsNumber(s string) bool {
	if s == "NaN" || s == "Infinity" || s == "-Infinity" {
		return true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || digits[0] < '0' || digits[0] > '9' {
		return false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(i, 10) == s && math.Abs(float64(i)) < 1e21
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && jsNumber(f) == s
}

// jsNumber formats f as JavaScript's Number.prototype.toString does for the
// values an edge name can hold (no exponent below 1e21).
func jsNumber(f float64) string {
	if math.Abs(f) >= 1e21 || (f != 0 && math.Abs(f) < 1e-6) {
		return strconv.FormatFloat(f, 'g', -1, 64) // an exponent form: never equal to a plain name
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// cluster groups the leaks the way memlab's TraceSimilarityStrategy does: each
// trace joins the first cluster whose first trace is similar to it, or starts
// a new one. Clusters are then ordered by retained size, largest first.
//
// Traces with the same key (traceKey) compare alike with every trace, so each
// key is compared with the clusters once: many leaks of one cause share it.
// The other comparisons are made by a clusterer, which skips the clusters
// that cannot be similar and makes at most MaxComparisons; the leaks it then
// could not compare are counted in the second result.
func cluster(g *heapgraph.Graph, lb *labels, r *heapgraph.Result, rep *Report) ([]Cluster, int) {
	leaks := rep.Leaks
	var out []Cluster
	// A trace key's hash → the first leak with that key and its cluster. Keys
	// are not kept (a million distinct shapes of a few hundred bytes each
	// would be): a hit is confirmed by the first leak's key.
	type shape struct{ leak, cluster int }
	joined := map[uint64]shape{}
	seed := maphash.MakeSeed()
	cl := newClusterer(seed)
	unclustered := 0
	var key, other strings.Builder
	var buf, obuf []Step
	for i := range leaks {
		buf = rep.Path(i, buf)
		t := trace(g, lb, buf)
		k := traceKey(&key, t)
		h := maphash.String(seed, k)
		if sh, ok := joined[h]; ok {
			obuf = rep.Path(sh.leak, obuf)
			if traceKey(&other, trace(g, lb, obuf)) == k {
				out[sh.cluster].Leaks = append(out[sh.cluster].Leaks, i)
				continue
			}
		}
		c, ok := cl.add(t)
		if !ok {
			unclustered++
		}
		if c == len(out) {
			out = append(out, Cluster{})
		}
		out[c].Leaks = append(out[c].Leaks, i)
		if _, ok := joined[h]; !ok {
			joined[h] = shape{i, c}
		}
	}
	for c := range out {
		out[c].Retained = clusterRetained(r, leaks, out[c].Leaks)
	}
	slices.SortStableFunc(out, func(a, b Cluster) int {
		switch {
		case a.Retained > b.Retained:
			return -1
		case a.Retained < b.Retained:
			return 1
		}
		return 0
	})
	return out, unclustered
}

// traceKey writes what same looks at in each element of t: the kind and type,
// names with what same treats as equal made equal (a number's value, the
// rest of a "Window / " node name or of a "__reactFiber$" edge name). Two
// traces with the same key have the same similarity to any trace.
func traceKey(b *strings.Builder, t []element) string {
	k, _ := traceKeyEnds(b, t, nil)
	return k
}

// traceKeyEnds is traceKey that also appends to ends where each element's
// part of the key ends: the key of t[:i] is the key's first ends[i-1] bytes.
func traceKeyEnds(b *strings.Builder, t []element, ends []int) (string, []int) {
	b.Reset()
	for _, e := range t {
		name := e.name
		switch {
		case e.edge && e.number:
			name = "#"
		case e.edge && strings.HasPrefix(name, "__reactFiber$"):
			name = "__reactFiber$"
		case !e.edge && strings.HasPrefix(name, "Window / "):
			name = "Window / "
		}
		if e.edge {
			b.WriteByte('e')
		} else {
			b.WriteByte('n')
		}
		b.WriteByte(e.typ)
		b.WriteString(strconv.Itoa(len(name)))
		b.WriteByte(':')
		b.WriteString(name)
		if ends != nil {
			ends = append(ends, b.Len())
		}
	}
	return b.String(), ends
}

// clusterRetained is memlab's aggregateDominatorMetrics: the retained sizes of
// the cluster's objects that no other object of the cluster dominates.
func clusterRetained(r *heapgraph.Result, leaks []Leak, members []int) float64 {
	in := make(map[uint32]bool, len(members))
	for _, i := range members {
		in[leaks[i].Node] = true
	}
	sum := 0.0
	for _, i := range members {
		v := leaks[i].Node
		dominated := false
		for d := r.Dominator[v]; d != v; {
			if in[d] {
				dominated = true
				break
			}
			up := r.Dominator[d]
			if up == d {
				break // the root, which dominates itself
			}
			d = up
		}
		if !dominated {
			sum += r.Retained[v]
		}
	}
	return sum
}
