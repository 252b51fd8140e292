// Package leaks finds leaked objects the way memlab does from three heap
// snapshots of one program: a baseline taken before an action, a target taken
// after it and a final one taken after the action was undone. The objects of
// the final snapshot whose ids appeared between the baseline and the target
// are the candidates; the object filter drops what cannot be a leak; each leak
// gets memlab's leak trace (its own search for a path from the GC roots), and
// the traces are clustered by memlab's similarity of paths.
//
// It works on an analysed heapgraph.Graph of the final snapshot whose labels
// (names, types, edges) were kept, and on the ids of the other two. It writes
// nothing and knows no table: the caller turns a Report into rows.
//
// What is followed from memlab 2.0.5 (packages @memlab/core): the candidates
// of HeapAnalyzer.diffSnapshots; the object filter of its "--trace-all-objects"
// mode (FilterTrivialNode: no number, string, sliced or concatenated string,
// hidden node; FilterOverSizedNodeAsLeak: retained size above 0, read here as
// DevTools' retained size or the object's own size above 0), since its
// default rules report only detached DOM elements, unmounted React fibers,
// XMLHttpRequests and objects tagged through its own tracker, and so nothing
// for a JavaScript heap without a DOM; TraceFinder's shortest paths, with its
// edge and node rules; the drop of traces longer than 100 nodes; and
// TraceSimilarityStrategy with the public build's (empty) heuristics. What is
// not: its user tags, Hermes rules, React fiber names and DOM trace filters,
// and its random sampling above 5 000 traces (every trace is clustered here,
// in at most as many comparisons as memlab's 5 000 traces take at worst:
// see MaxComparisons).
// Retained sizes are DevTools' (heapgraph), which memlab computes slightly
// differently (it does not leave out a WeakMap table's edges to its values).
package leaks

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"tracestreamer/analysis/heapgraph"
)

// MaxTraceNodes is memlab's longest leak trace: a leak whose path from the
// roots has more nodes is not reported.
const MaxTraceNodes = 100

// Report is the result of one comparison.
type Report struct {
	// Candidates counts the final snapshot's objects whose ids are in the
	// target but not in the baseline; Kept, those the object filter keeps.
	Candidates, Kept int
	// Leaks are the kept candidates that have a trace, in the order memlab
	// clusters them (see memlabOrder).
	Leaks []Leak
	// Clusters are ordered by retained size, largest first (stable).
	Clusters []Cluster
	// Unclustered counts the leaks that started a cluster of their own (with
	// the later leaks of the same trace key) because the clustering's
	// comparisons ran out (MaxComparisons) before they were compared with
	// every cluster that could have taken them.
	Unclustered int

	g   *heapgraph.Graph
	via []uint32 // the trace search's edge into each node
}

// Leak is one leaked object of the final snapshot.
type Leak struct {
	Node    uint32 // ordinal in the final snapshot
	Cluster int    // index into Report.Clusters
}

// Path returns the trace of leak i, from a root down to the leaked object,
// in buf's storage: traces are walked again when needed rather than kept,
// since a leak of millions of objects would hold up to 100 steps each.
func (r *Report) Path(i int, buf []Step) []Step {
	return path(r.g, r.via, r.Leaks[i].Node, buf)
}

// Step is one node of a path and the edge that reaches it from the previous
// step (heapgraph.NoNode at the root).
type Step struct{ Node, Edge uint32 }

// Cluster is a group of leaks with similar traces.
type Cluster struct {
	// Leaks are indexes into Report.Leaks; the first is the representative.
	Leaks []int
	// Retained adds up the retained sizes of the leaks that no other leak of
	// the cluster dominates.
	Retained float64
}

// Find compares the final snapshot g (analysed as r, labels kept) with the ids
// of the baseline and the target (each sorted ascending).
func Find(g *heapgraph.Graph, r *heapgraph.Result, baseline, target []int64) *Report {
	rep := &Report{g: g}
	lb := newLabels(g)
	var kept []uint32
	for v := range uint32(g.NodeCount()) {
		id := g.ID[v]
		if !has(target, id) || has(baseline, id) {
			continue
		}
		rep.Candidates++
		// memlab keeps an object whose retained size is above 0. Its sizes are
		// the snapshot's own; DevTools' move the size of an array owned by
		// one object into that owner, which leaves the array at 0: its own
		// size counts too.
		if lb.trivial(v) || (r.Retained[v] <= 0 && g.Self[v] == 0) {
			continue
		}
		kept = append(kept, v)
	}
	rep.Kept = len(kept)
	if len(kept) == 0 {
		return rep
	}
	rep.via = traceEdges(g, lb)
	order := memlabOrder(g, kept)
	var buf []Step
	for i := len(order) - 1; i >= 0; i-- {
		if buf = path(g, rep.via, order[i], buf); buf != nil {
			rep.Leaks = append(rep.Leaks, Leak{Node: order[i]})
		}
	}
	rep.Clusters, rep.Unclustered = cluster(g, lb, r, rep)
	for c, cl := range rep.Clusters {
		for _, i := range cl.Leaks {
			rep.Leaks[i].Cluster = c
		}
	}
	return rep
}

// memlabOrder puts the kept objects (in node order) in the order memlab's
// id set (NumericSet) lists them: grouped by id / 5 000 000, the groups in
// the order their first object comes, node order within a group. memlab
// clusters the traces in the reverse of that order, and the first trace of a
// cluster is its representative.
func memlabOrder(g *heapgraph.Graph, kept []uint32) []uint32 {
	const shard = 5_000_000
	group := map[int64]int{}
	var groups [][]uint32
	for _, v := range kept {
		k := g.ID[v] / shard
		i, ok := group[k]
		if !ok {
			i = len(groups)
			group[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], v)
	}
	return slices.Concat(groups...)
}

func has(sorted []int64, id int64) bool {
	_, ok := slices.BinarySearch(sorted, id)
	return ok
}

// path walks the trace edges up from v to a root, into buf's storage; nil
// when there is none or it is longer than MaxTraceNodes.
func path(g *heapgraph.Graph, via []uint32, v uint32, buf []Step) []Step {
	if via[v] == heapgraph.NoNode {
		return nil
	}
	p := buf[:0]
	for e := uint32(heapgraph.NoNode); ; {
		p = append(p, Step{Node: v, Edge: e})
		if len(p) > MaxTraceNodes {
			return nil
		}
		e = via[v]
		if e == heapgraph.NoNode {
			break
		}
		v = g.EdgeSource(e)
	}
	slices.Reverse(p)
	// After reversing, each step holds the edge that leaves it; memlab's path
	// items and ours name the edge that enters a node.
	for i := len(p) - 1; i > 0; i-- {
		p[i].Edge = p[i-1].Edge
	}
	p[0].Edge = heapgraph.NoNode
	return p
}

// String flags: what memlab's rules test a node's or an edge's name for.
const (
	fBlockNode     = 1 << iota // nodeNameBlockList: never entered, nor left
	fNotMeaningful             // never entered (isMeaningfulNode)
	fGreyNode                  // nodeNameGreyList: entered only when nothing else is left
	fCppRoots                  // "C++ roots" (grey when synthetic)
	fGreyEdge                  // edgeNameGreyList
	fBlockEdge                 // edgeNameBlockList
	fCode                      // "code": an internal edge of that name is not followed
	fNativeContext             // a hidden edge into it is not followed
	fGCRoots                   // "(GC roots)"
	fBlinkRoots                // "Blink roots", "Blink cross-thread roots"
	fPending                   // "Pending activities"
	fWindow                    // starts with "Window"
	fDOM                       // a DOM node's name (isDOMNodeIncomplete), "Detached " stripped
	fFiber                     // "FiberNode": a React fiber, when an object
)

// v8SyntheticRoots are the synthetic root names memlab puts on its grey list.
var v8SyntheticRoots = []string{"(GC roots)", "(Internalized strings)", "(External strings)", "(Read-only roots)",
	"(Strong roots)", "(Smi roots)", "(Bootstrapper)", "(Stack roots)", "(Relocatable)", "(Debugger)",
	"(Compilation cache)", "(Handle scope)", "(Builtins)", "(Global handles)", "(Eternal handles)",
	"(Thread manager)", "(Extensions)", "(Code flusher)", "(Startup object cache)", "(Read-only object cache)",
	"(Weak collections)", "(Wrapper tracing)", "(Write barrier)", "(Retain maps)", "(Unknown)", "<Synthetic>"}

var domName = regexp.MustCompile(`^HTML.*Element$|^SVG.*Element$|^CSS|StyleSheet|^HTML.*Collection$|^<[a-zA-Z]+.*>$`)

// weakMapKey finds the key's id in the name of a WeakMap's internal edge.
var weakMapKey = regexp.MustCompile(`@(\d+)\) ->`)

// labels answers memlab's questions about names and types of one graph.
type labels struct {
	g        *heapgraph.Graph
	flags    []uint16 // per string
	mapKey   map[uint32]int64
	nodeType []int // node type code → kind below
	edgeType []int // edge type code → kind below
	detached bool
}

// Kinds of node and edge types memlab's rules name.
const (
	kOther = iota
	kObject
	kTrivial
	kCode
	kNative
	kSynthetic
	kWeak
	kInternal
	kHidden
	kIndexed // element and hidden edges: the name is a number
)

func newLabels(g *heapgraph.Graph) *labels {
	lb := &labels{g: g, flags: make([]uint16, g.Strings.Len()), mapKey: map[uint32]int64{},
		detached: g.HasDetachedness && len(g.Detachedness) == g.NodeCount()}
	set := func(f uint16, names ...string) {
		want := map[string]bool{}
		for _, n := range names {
			want[n] = true
		}
		for i := range uint32(g.Strings.Len()) {
			if want[g.Strings.At(i)] {
				lb.flags[i] |= f
			}
		}
	}
	set(fBlockNode, "system / PropertyCell")
	set(fNotMeaningful, "system / NativeContext", "system / SourcePositionTableWithFrameCache", "(map descriptors)")
	set(fGreyNode, append([]string{"InternalNode", "Pending activities", "StyleEngine"}, v8SyntheticRoots...)...)
	set(fCppRoots, "C++ roots")
	set(fGreyEdge, "alternate", "firstEffect", "lastEffect")
	set(fBlockEdge, "feedback_cell", "part of key -> value pair in ephemeron table")
	set(fCode, "code")
	set(fNativeContext, "system / NativeContext")
	set(fGCRoots, "(GC roots)")
	set(fBlinkRoots, "Blink roots", "Blink cross-thread roots")
	set(fPending, "Pending activities")
	set(fFiber, "FiberNode")
	special := map[string]bool{"DOMTokenList": true, "HTMLDocument": true, "InternalNode": true, "Text": true,
		"XMLDocument": true}
	for i := range uint32(g.Strings.Len()) {
		s := g.Strings.At(i)
		if strings.HasPrefix(s, "Window") {
			lb.flags[i] |= fWindow
		}
		if t := strings.TrimSpace(s); special[t] || domName.MatchString(t) {
			lb.flags[i] |= fDOM
		}
		if strings.Contains(s, "WeakMap") {
			if m := weakMapKey.FindStringSubmatch(s); m != nil {
				if id, err := strconv.ParseInt(m[1], 10, 64); err == nil {
					lb.mapKey[uint32(i)] = id
				}
			}
		}
	}
	lb.nodeType = make([]int, len(g.NodeTypes))
	for i, t := range g.NodeTypes {
		switch t {
		case "number", "string", "sliced string", "concatenated string", "hidden":
			lb.nodeType[i] = kTrivial
		case "code":
			lb.nodeType[i] = kCode
		case "native":
			lb.nodeType[i] = kNative
		case "synthetic":
			lb.nodeType[i] = kSynthetic
		case "object":
			lb.nodeType[i] = kObject
		}
	}
	lb.edgeType = make([]int, len(g.EdgeTypes))
	for i, t := range g.EdgeTypes {
		switch t {
		case "weak":
			lb.edgeType[i] = kWeak
		case "internal":
			lb.edgeType[i] = kInternal
		case "hidden":
			lb.edgeType[i] = kHidden
		case "element":
			lb.edgeType[i] = kIndexed
		}
	}
	return lb
}

func (lb *labels) nodeKind(v uint32) int {
	if t := int(lb.g.Type[v]); t < len(lb.nodeType) {
		return lb.nodeType[t]
	}
	return kOther
}

func (lb *labels) edgeKind(e uint32) int {
	if t := int(lb.g.EdgeType[e]); t < len(lb.edgeType) {
		return lb.edgeType[t]
	}
	return kOther
}

// indexed reports whether edge e's name is a number (element and hidden edges).
func (lb *labels) indexed(e uint32) bool {
	k := lb.edgeKind(e)
	return k == kIndexed || k == kHidden
}

// isDetached is memlab's is_detached: the DOM link state says detached.
func (lb *labels) isDetached(v uint32) bool { return lb.detached && lb.g.Detachedness[v] == 2 }

// nodeFlags are the flags of v's name as memlab sees it: a detached node is
// called "Detached <name>", which matches none of the lists but the DOM names.
func (lb *labels) nodeFlags(v uint32) uint16 {
	f := uint16(0)
	if n := lb.g.Name[v]; int(n) < len(lb.flags) {
		f = lb.flags[n]
	}
	if lb.isDetached(v) {
		f &= fDOM | fFiber // "Detached FiberNode" is still a fiber
	}
	return f
}

// edgeFlags are the flags of a named edge's name (none for indexed edges).
func (lb *labels) edgeFlags(e uint32) uint16 {
	if lb.indexed(e) {
		return 0
	}
	if n := lb.g.EdgeName[e]; int(n) < len(lb.flags) {
		return lb.flags[n]
	}
	return 0
}

func (lb *labels) trivial(v uint32) bool { return lb.nodeKind(v) == kTrivial }

func (lb *labels) isDOM(v uint32) bool {
	return lb.nodeKind(v) == kNative && lb.nodeFlags(v)&fDOM != 0
}

// isDetachedDOM is memlab's isDetachedDOMNode: detached, and not a React fiber.
func (lb *labels) isDetachedDOM(v uint32) bool {
	return lb.isDetached(v) && !(lb.nodeKind(v) == kObject && lb.nodeFlags(v)&fFiber != 0)
}

// root tells whether v is one of memlab's roots, and whether it is one of the
// roots searched from only when nothing else is left (Blink roots and pending
// activities).
func (lb *labels) root(v uint32) (root, low bool) {
	g := lb.g
	f, k := lb.nodeFlags(v), lb.nodeKind(v)
	switch {
	case g.ID[v] == 0 || g.ID[v] == 1, k == kNative && f&fWindow != 0, k == kSynthetic && f&fGCRoots != 0:
		return true, false
	case k == kSynthetic && f&fBlinkRoots != 0, (k == kSynthetic || k == kNative) && f&fPending != 0:
		return true, true
	}
	return false, false
}

// traceEdges is memlab's TraceFinder.annotateShortestPaths: for every node the
// edge by which its search reached it (NoNode for roots and unreached nodes).
// The search goes level by level from the roots, taking each level's nodes in
// the reverse of their order; an edge to a grey-listed node or with a
// grey-listed name is put aside and taken (one at a time, the last first) only
// when a level brings no other node; a node reached or put aside once is not
// reached again.
func traceEdges(g *heapgraph.Graph, lb *labels) []uint32 {
	n := g.NodeCount()
	via := make([]uint32, n)
	for i := range via {
		via[i] = heapgraph.NoNode
	}
	seen := make([]bool, n) // visited or queued
	var cur, low []uint32
	for v := range uint32(n) {
		if root, l := lb.root(v); root && l {
			low = append(low, v)
		} else if root {
			cur = append(cur, v)
		}
	}
	var next, postponed []uint32
	for len(cur) > 0 {
		next = next[:0]
		for len(cur) > 0 {
			v := cur[len(cur)-1]
			cur = cur[:len(cur)-1]
			seen[v] = true
			for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
				to := g.To[e]
				if to == heapgraph.NoNode || via[to] != heapgraph.NoNode || seen[to] || !lb.follow(v, e, to) {
					continue
				}
				if lb.lessPreferable(v, e, to) {
					postponed = append(postponed, e)
				} else {
					via[to] = e
					next = append(next, to)
				}
				seen[to] = true
			}
		}
		for len(next) == 0 && len(postponed) > 0 {
			e := postponed[len(postponed)-1]
			postponed = postponed[:len(postponed)-1]
			if to := g.To[e]; via[to] == heapgraph.NoNode {
				via[to] = e
				next = append(next, to)
			}
		}
		for len(next) == 0 && len(low) > 0 {
			v := low[len(low)-1]
			low = low[:len(low)-1]
			if via[v] == heapgraph.NoNode {
				next = append(next, v)
			}
		}
		cur, next = next, cur
	}
	return via
}

// follow is memlab's shouldTraverseEdge and isMeaningfulEdge for the edge e
// from v to to (to not yet seen).
func (lb *labels) follow(v, e, to uint32) bool {
	g := lb.g
	fv, ft, fe := lb.nodeFlags(v), lb.nodeFlags(to), lb.edgeFlags(e)
	switch ek := lb.edgeKind(e); {
	case fe&fBlockEdge != 0, fv&fBlockNode != 0, ft&fBlockNode != 0:
		return false
	case g.ID[v] == g.ID[to], ek == kWeak:
		return false
	case ek == kInternal && fe&fCode != 0, ek == kHidden && ft&fNativeContext != 0:
		return false
	case ft&fNotMeaningful != 0, lb.nodeKind(to) == kCode:
		return false
	}
	if !lb.indexed(e) {
		if key, ok := lb.mapKey[g.EdgeName[e]]; ok && key == g.ID[to] {
			return false // a WeakMap's edge to its key
		}
	}
	// The edges from Blink's roots to detached DOM elements are not followed.
	if lb.nodeKind(v) == kSynthetic && fv&fBlinkRoots != 0 && lb.isDetachedDOM(to) {
		return false
	}
	return true
}

// lessPreferable is memlab's isLessPreferableEdge or isLessPreferableNode.
func (lb *labels) lessPreferable(v, e, to uint32) bool {
	ft := lb.nodeFlags(to)
	switch {
	case lb.edgeFlags(e)&fGreyEdge != 0, ft&fGreyNode != 0:
		return true
	case ft&fCppRoots != 0 && lb.nodeKind(to) == kSynthetic:
		return true
	case lb.nodeFlags(v)&fPending != 0 && (lb.nodeKind(v) == kSynthetic || lb.nodeKind(v) == kNative) && lb.isDOM(to):
		return true
	case lb.isDetachedDOM(v) && lb.isDOM(to) && !lb.isDetachedDOM(to):
		return true
	case lb.isDOM(v) && !lb.isDetachedDOM(v) && lb.isDetachedDOM(to):
		return true
	}
	return false
}
