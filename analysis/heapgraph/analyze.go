package heapgraph

import (
	"errors"
	"math/bits"
	"slices"
	"strings"

	"tracestreamer/internal/task"
)

// NoDistance is the distance of a node no path from the root reaches.
const NoDistance = -5

// BaseSystemDistance is added to the distance of nodes reached only from the
// root's system (synthetic) children, as in DevTools.
const BaseSystemDistance = 100000000

// Result is the analysis of a graph, indexed by node ordinal.
type Result struct {
	Distance []int32
	// Retainer is, per node, the edge by which the distance search first
	// reached it: the last step of its shortest path from the root as DevTools
	// walks it (NoNode for the root and for nodes the search never reaches).
	// RetainerNode is the node that edge leaves; RetainerType and
	// RetainerName are the edge's type and name as the graph was given them
	// (0 where Retainer is NoNode), kept per node because Analyze drops the
	// per-edge arrays unless KeepLabels is set.
	Retainer     []uint32
	RetainerNode []uint32
	RetainerType []uint8
	RetainerName []uint32
	Shallow      []uint32 // self size after owned arrays/hidden nodes are folded into their owner
	Dominator    []uint32 // immediate dominator ordinal (the root dominates itself)
	Retained     []float64
	Class        []uint32 // class of each node (index into Classes)
	Classes      []Class
	// Unreachable counts the nodes the root reaches only through non-essential
	// edges (or not at all); DevTools attaches them to the root.
	Unreachable int
}

// Class is one row of the class summary: objects with a non-zero shallow size.
type Class struct {
	Name        string
	Count       int64
	Shallow     int64
	Retained    float64 // counted once along each dominator path
	MinDistance int32
}

// Analyze computes distances, shallow sizes, dominators, retained sizes and the
// class summary, following DevTools' heap snapshot worker step by step.
//
// Its memory is the graph's plus a few per-node arrays at a time: each part
// of the graph is released once used (only g.ID and g.FirstEdge are left
// afterwards, unless g.KeepLabels is set), and with g.Shelf set every
// per-node array that is not needed for a while waits there, read back
// before Analyze returns (without a shelf, the fallback when no scratch
// file can be made, they and the edges' types and names stay in memory).
// The steps are ordered so that the arrays of one do not meet those of
// another: what needs the labels first (page ownership and essential edges,
// which need the ids too, beside the inferred interfaces; then the plan of
// the distance search beside the shallow sizes and the classes), then, with
// the labels released (the edges' types and names wait on the shelf), the
// distance search beside the dominators' searches over the essential edges,
// then the rest of the dominators, the retaining edges' labels, and the
// retained sizes beside the shelf's read-back. Two goroutines compute side
// by side, but for three per-node passes (the dominators' predecessor
// lists, the search's retaining nodes and the retaining edges' labels),
// each split over up to 4 goroutines (targetRanges: one range per core
// --threads allows); the shelf is written on one more, beside the steps
// that read what it writes, and read back on one beside the retained sums,
// each large array in up to 4 parts side by side (readParts). An error is
// the shelf's.
//
// Analyze is AnalyzeNodes followed by Summarize.
func (g *Graph) Analyze() (*Result, error) {
	r, err := g.AnalyzeNodes()
	if err != nil {
		return nil, err
	}
	g.Summarize(r)
	return r, nil
}

// ErrStopped is returned by Analyze when Graph.Stop was closed.
var ErrStopped = errors.New("heap analysis stopped")

// stopped returns ErrStopped once g.Stop is closed.
func (g *Graph) stopped() error {
	select {
	case <-g.Stop:
		return ErrStopped
	default:
		return nil
	}
}

// AnalyzeNodes is Analyze without the class summary: every per-node array of
// the Result is filled, and Classes holds the class names only (zero counts
// and sizes, MinDistance the largest int32) until Summarize fills in the
// rest.
func (g *Graph) AnalyzeNodes() (*Result, error) {
	g.fixEdgeRanges()
	n := g.NodeCount()
	r := &Result{}
	if n == 0 {
		return r, nil
	}
	if int(g.Root) >= n {
		g.Root = 0
	}
	s := &shelf{f: g.Shelf, collect: n >= collectFrom}
	defer s.join()
	var err error
	t := g.types()
	// The arrays that wait on the shelf are written there on another
	// goroutine, one after another, while the steps that read them run
	// (a write only reads its array): the ids beside the page ownership
	// and the essential edges, the self sizes (read again only where the
	// labels are kept, for a leak comparison; else dropped once used)
	// beside the shallow sizes, the edges' types and names (not needed
	// again but for the type and name of each node's retaining edge, once
	// the search has found those edges) beside the classes and the
	// search's plan. Each array is dropped once it is both written and
	// used.
	idW := putAsync(s, g.ID)
	var selfW *pending[uint32]
	if g.KeepLabels {
		selfW = putAsync(s, g.Self)
	}
	var edgeTypeW *pending[uint8]
	var edgeNameW *pending[uint32]
	if !g.KeepLabels {
		edgeTypeW = putAsync(s, g.EdgeType)
		edgeNameW = putAsync(s, g.EdgeName)
	}
	detachedName := g.propagateDOMState(&t)
	// The page ownership and the essential edges (which need the ids),
	// then the search's plan, on another goroutine beside the inferred
	// interfaces, the shallow sizes and the classes: all of them only read
	// the labels. The shallow sizes wait until the ids are dropped, so
	// that their arrays take the ids' place.
	wm := &weakMapInfo{} // the other goroutine's
	var essential bitset
	var plan *searchPlan
	essentials := task.Go(func() {
		essential = g.essentialEdges(&t, wm, g.pageOwned(&t))
	})
	defer essentials.Join()
	ifaces := g.interfaceClasses(&t)
	essentials.Wait()
	if err := g.stopped(); err != nil {
		return nil, err
	}
	planned := task.Go(func() { plan = g.searchPlan(&t, wm) })
	defer planned.Join()
	if g.ReadersDone != nil {
		if err := g.ReadersDone(); err != nil {
			return nil, err
		}
	}
	id, err := idW.wait()
	if err != nil {
		return nil, err
	}
	g.ID = nil
	s.release()
	sh := g.shallowSizes(&t)
	var selfS shelved[uint32]
	if selfW != nil {
		if selfS, err = selfW.wait(); err != nil {
			return nil, err
		}
	}
	g.Self = nil
	shallowW := putAsync(s, sh)
	sh = nil
	s.release()
	cl, classes := g.classIDs(&t, detachedName, ifaces)
	planned.Wait()
	if err := g.stopped(); err != nil {
		return nil, err
	}
	r.Classes = classes
	classW := putAsync(s, cl)
	cl = nil
	var edgeType shelved[uint8]
	var edgeName shelved[uint32]
	if !g.KeepLabels {
		if edgeType, err = edgeTypeW.wait(); err != nil {
			return nil, err
		}
		if edgeName, err = edgeNameW.wait(); err != nil {
			return nil, err
		}
		g.EdgeType, g.EdgeName, g.Name, g.Type, g.Detachedness, g.Strings = nil, nil, nil, nil, nil, Strings{}
	}
	shallow, err := shallowW.wait()
	if err != nil {
		return nil, err
	}
	class, err := classW.wait()
	if err != nil {
		return nil, err
	}
	// Collect what was just released before the search's and the
	// dominators' arrays are made, so that they take its place.
	s.release()
	// The distance search runs on another goroutine beside the dominators'
	// depth-first searches (both read the edges' targets only); the
	// dominators wait for it before they make their predecessor lists.
	var d searched
	var searchErr error
	search := task.Go(func() { d, searchErr = g.distances(plan, s) })
	defer search.Join() // it writes to the shelf: not past a failure here
	if g.KeepLabels {
		// The labels stay in memory (a leak comparison's final file):
		// the search's arrays are not added to them at the dominators'
		// peak too.
		search.Wait()
	}
	dom, preorder, unreachable := g.dominators(essential, search.Wait)
	search.Wait()
	if searchErr != nil {
		return nil, searchErr
	}
	if err := g.stopped(); err != nil {
		return nil, err
	}
	r.Dominator, r.Unreachable = dom, unreachable
	// The type and name of each node's retaining edge, from the labels
	// taken back (the dominators' arrays are collected first).
	s.release()
	if r.Retainer, err = d.via.take(s); err != nil {
		return nil, err
	}
	et, en := g.EdgeType, g.EdgeName
	if !g.KeepLabels {
		if et, err = edgeType.take(s); err != nil {
			return nil, err
		}
		if en, err = edgeName.take(s); err != nil {
			return nil, err
		}
	}
	r.RetainerType, r.RetainerName = make([]uint8, n), make([]uint32, n)
	forRanges(targetRanges(n), func(lo, hi uint32) {
		for v := lo; v < hi; v++ {
			if e := r.Retainer[v]; e != NoNode {
				r.RetainerType[v], r.RetainerName[v] = et[e], en[e]
			}
		}
	})
	et, en = nil, nil
	s.release()
	// The other arrays are read back on another goroutine while the
	// retained sizes are summed (both make what is left of the Result;
	// the labels were collected first).
	var cls []uint32
	var ids []int64
	var self []uint32
	var backErr error
	back := task.Go(func() {
		if cls, backErr = class.take(s); backErr != nil {
			return
		}
		if ids, backErr = id.take(s); backErr != nil {
			return
		}
		if g.KeepLabels { // else nothing reads the self sizes afterwards
			if self, backErr = selfS.take(s); backErr != nil {
				return
			}
		}
		backErr = d.take(s, r)
	})
	defer back.Join()
	if r.Shallow, err = shallow.take(s); err != nil {
		return nil, err
	}
	r.Retained = make([]float64, n)
	for o, size := range r.Shallow {
		r.Retained[o] = float64(size)
	}
	for i := len(preorder) - 1; i > 0; i-- {
		o := preorder[i]
		r.Retained[dom[o]] += r.Retained[o]
	}
	back.Wait()
	if backErr != nil {
		return nil, backErr
	}
	r.Class, g.ID, g.Self = cls, ids, self
	return r, nil
}

// Summarize fills in the class summary of a Result from AnalyzeNodes: each
// class's count, shallow and retained sizes and smallest distance. It writes
// r.Classes only and reads the per-node arrays, so other goroutines may read
// those (not Classes) while it runs: the caller writes the per-node rows
// meanwhile.
func (g *Graph) Summarize(r *Result) {
	if len(r.Class) == 0 {
		return // no nodes, no classes
	}
	g.classRetained(r)
	g.classSizes(r)
}

// isUserRoot is DevTools' JS rule: a child of the root that is not synthetic, or
// the "(Document DOM trees)" node.
func (g *Graph) isUserRoot(t *types, v uint32) bool {
	typ := int(g.Type[v])
	return typ != t.synthetic || g.str(g.Name[v]) == "(Document DOM trees)"
}

func (g *Graph) isDocumentDOMTreesRoot(t *types, v uint32) bool {
	return int(g.Type[v]) == t.synthetic && g.str(g.Name[v]) == "(Document DOM trees)"
}

// pageOwned marks what is reachable, over non-weak edges, from the root's
// shortcut edges (global objects) and "(Document DOM trees)": objects owned by
// the page rather than by the runtime or debugger.
func (g *Graph) pageOwned(t *types) []bool {
	n := g.NodeCount()
	flags := make([]bool, n)
	stack := make([]uint32, 0, 1024)
	root := g.Root
	for e := g.FirstEdge[root]; e < g.FirstEdge[root+1]; e++ {
		to := g.To[e]
		if to == NoNode {
			continue
		}
		et := int(g.EdgeType[e])
		if et == t.eElement {
			if !g.isDocumentDOMTreesRoot(t, to) {
				continue
			}
		} else if et != t.eShortcut {
			continue
		}
		stack = append(stack, to)
		flags[to] = true
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
			to := g.To[e]
			if to == NoNode || flags[to] || int(g.EdgeType[e]) == t.eWeak {
				continue
			}
			stack = append(stack, to)
			flags[to] = true
		}
	}
	return flags
}

// searchPlan is what the distance search needs of the labels, taken from
// them beforehand, so that the search reads only the edges' targets and can
// run beside the dominators once the labels are released.
type searchPlan struct {
	// skip marks the edges the search never follows: weak ones, and the V8
	// internals DevTools leaves out (a native context's
	// "sloppy_function_map", a map's descriptors numbered 4, 7, 10, …).
	// Whether it does depends on the edge alone, so it is decided here.
	skip bitset
	// paired marks WeakMap ephemeron edges (internal edges named after the
	// key-value pair they hold); pair gives each, in edge order, its pair's
	// number, and rank the number of paired edges before each word of
	// paired (4 B a paired edge and 64 edges, where a map took 15-20 B a
	// paired edge beside the dominators' arrays). DevTools follows the
	// second edge of a pair it comes to, not the first, so that depends on
	// the search's order.
	paired bitset
	rank   []uint32
	pair   []uint32
	// seeds are the root's edges to user roots, in edge order.
	seeds []uint32
}

// searchPlan makes the plan of the distance search (distances) from the
// labels: DevTools' edge filter, decided per edge where it can be.
func (g *Graph) searchPlan(t *types, wm *weakMapInfo) *searchPlan {
	n := g.NodeCount()
	p := &searchPlan{skip: newBitset(len(g.To)), paired: newBitset(len(g.To))}
	pairs := map[string]uint32{}
	root := g.Root
	for e := g.FirstEdge[root]; e < g.FirstEdge[root+1]; e++ {
		if to := g.To[e]; to != NoNode && g.isUserRoot(t, to) {
			p.seeds = append(p.seeds, e)
		}
	}
	for v := range uint32(n) {
		typ := int(g.Type[v])
		nativeContext := typ == t.hidden && g.str(g.Name[v]) == "system / NativeContext"
		descriptors := typ == t.array && g.str(g.Name[v]) == "(map descriptors)"
		for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
			et := int(g.EdgeType[e])
			switch {
			case et == t.eWeak:
				p.skip.set(int(e))
			case nativeContext && g.edgeName(t, int(e)) == "sloppy_function_map":
				p.skip.set(int(e))
			case descriptors:
				idx, bad := parseDecimalPrefix(g.edgeName(t, int(e)))
				if !bad && idx >= 2 && idx%3 == 1 { // parseInt's NaN: followed
					p.skip.set(int(e))
				}
			case et == t.eInternal:
				if dup, _, ok := wm.lookup(g, g.EdgeName[e]); ok {
					id, seen := pairs[dup]
					if !seen {
						id = uint32(len(pairs))
						pairs[dup] = id
					}
					p.paired.set(int(e))
					p.pair = append(p.pair, id) // edges come in order
				}
			}
		}
	}
	p.rank = make([]uint32, len(p.paired))
	k := uint32(0)
	for i, w := range p.paired {
		p.rank[i] = k
		k += uint32(bits.OnesCount64(w))
	}
	return p
}

// pairOf returns the pair number of paired edge e.
func (p *searchPlan) pairOf(e uint32) uint32 {
	w := e >> 6
	below := p.paired[w] & (1<<(e&63) - 1)
	return p.pair[p.rank[w]+uint32(bits.OnesCount64(below))]
}

// distances is DevTools' breadth-first search: user roots (and what they
// reach) first at distance 1, then the rest from the root at
// BaseSystemDistance, along the edges the plan does not skip. It also finds
// the edge by which each node was first reached and the node it leaves.
// All go to the shelf. It reads the graph's FirstEdge and To only.
func (g *Graph) distances(p *searchPlan, s *shelf) (searched, error) {
	n := g.NodeCount()
	dist := make([]int32, n)
	via := make([]uint32, n)
	for i := range dist {
		dist[i] = NoDistance
		via[i] = NoNode
	}
	queue := make([]uint32, 0, n)
	root := g.Root
	for _, e := range p.seeds {
		to := g.To[e]
		if dist[to] == NoDistance {
			via[to] = e // the first of the root's edges to it
		}
		dist[to] = 1
		queue = append(queue, to)
	}
	pending := make([]bool, len(p.pair)) // by pair number (fewer than the paired edges)
	bfs := func(queue []uint32) {
		for i := 0; i < len(queue); i++ {
			v := queue[i]
			d := dist[v] + 1
			for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
				if p.skip.has(e) {
					continue
				}
				to := g.To[e]
				if to == NoNode || dist[to] != NoDistance {
					continue
				}
				if p.paired.has(e) {
					// The first edge of a pair is not followed.
					k := p.pairOf(e)
					if pending[k] = !pending[k]; pending[k] {
						continue
					}
				}
				dist[to] = d
				via[to] = e
				queue = append(queue, to)
			}
		}
	}
	hadUserRoots := len(queue) > 0
	bfs(queue)
	// The first search may have reached the root itself through an edge back to
	// it; DevTools then overwrites its distance, and the root has no retainer.
	via[root] = NoNode
	if hadUserRoots {
		dist[root] = BaseSystemDistance
	} else {
		dist[root] = 0
	}
	bfs(append(queue[:0], root))
	var out searched
	var err error
	if out.dist, err = put(s, dist); err != nil {
		return out, err
	}
	dist = nil
	s.release()
	// The retaining node of each edge the search took (the queue's memory
	// is free again), over ranges of retaining nodes side by side: each
	// node is written by the one range that holds its retaining edge.
	from := queue[:n]
	for i := range from {
		from[i] = NoNode
	}
	forRanges(targetRanges(n), func(lo, hi uint32) {
		for v := lo; v < hi; v++ {
			for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
				if to := g.To[e]; to != NoNode && via[to] == e {
					from[to] = v
				}
			}
		}
	})
	if out.from, err = put(s, from); err != nil {
		return out, err
	}
	out.via, err = put(s, via)
	return out, err
}

// searched is what the distance search found, on the shelf.
type searched struct {
	dist      shelved[int32]
	via, from shelved[uint32]
}

// take reads the distances and retaining nodes back into r.
func (x searched) take(s *shelf, r *Result) (err error) {
	if r.Distance, err = x.dist.take(s); err != nil {
		return err
	}
	r.RetainerNode, err = x.from.take(s)
	return err
}

// parseDecimalPrefix mimics JavaScript's parseInt(s, 10) for the names of
// element edges; bad is true where parseInt gives NaN.
func parseDecimalPrefix(s string) (v int64, bad bool) {
	s = strings.TrimLeft(s, " \t\n\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int64(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, true
	}
	if neg {
		v = -v
	}
	return v, false
}

// shallowSizes folds the self size of array and hidden nodes that exactly one
// other node owns (reaches without passing another owner) into that owner, as
// DevTools does when the snapshot has user roots.
func (g *Graph) shallowSizes(t *types) []uint32 {
	n := g.NodeCount()
	size := make([]uint32, n)
	copy(size, g.Self)
	root := g.Root
	hasUserRoots := false
	for e := g.FirstEdge[root]; e < g.FirstEdge[root+1]; e++ {
		if to := g.To[e]; to != NoNode && g.isUserRoot(t, to) {
			hasUserRoots = true
			break
		}
	}
	if !hasUserRoots {
		return size
	}
	const unvisited, multiple = ^uint32(0), ^uint32(0) - 1
	owners := make([]uint32, n)
	for i := range owners {
		if typ := int(g.Type[i]); typ == t.hidden || typ == t.array {
			owners[i] = unvisited
		} else {
			owners[i] = uint32(i)
		}
	}
	// From each owner in turn, down the hidden and array nodes it reaches:
	// a node is left with one owner if only one reaches it, else marked
	// multiple, whatever the order the owners are taken in (DevTools stacks
	// them all first; taking them one by one keeps the stack small).
	var work []uint32
	for v := range uint32(n) {
		if owners[v] != v {
			continue
		}
		work = append(work[:0], v)
		for len(work) > 0 {
			id := work[len(work)-1]
			work = work[:len(work)-1]
			owner := owners[id]
			for e := g.FirstEdge[id]; e < g.FirstEdge[id+1]; e++ {
				if int(g.EdgeType[e]) == t.eWeak {
					continue
				}
				target := g.To[e]
				if target == NoNode {
					continue
				}
				switch owners[target] {
				case unvisited:
					owners[target] = owner
					work = append(work, target)
				case target, owner, multiple:
				default:
					owners[target] = multiple
					work = append(work, target)
				}
			}
		}
	}
	for i, o := range owners {
		if o == unvisited || o == multiple || o == uint32(i) {
			continue
		}
		if int(g.Type[o]) == t.synthetic || o == root {
			continue
		}
		size[o] += size[i]
		size[i] = 0
	}
	return size
}

// essentialEdges returns, per edge, whether it counts for dominators: not weak,
// not a self edge, not a WeakMap table's edge to a value, not a shortcut except
// from the root, and not from a non-page-owned node into a page-owned one.
func (g *Graph) essentialEdges(t *types, wm *weakMapInfo, page []bool) bitset {
	ess := newBitset(len(g.To))
	root := g.Root
	for v := uint32(0); v < uint32(g.NodeCount()); v++ {
		for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
			to := g.To[e]
			if to == NoNode {
				continue
			}
			et := int(g.EdgeType[e])
			if et == t.eInternal {
				if _, table, ok := wm.lookup(g, g.EdgeName[e]); ok && g.ID[v] == table {
					continue
				}
			}
			if et == t.eWeak || v == to {
				continue
			}
			if v != root {
				if et == t.eShortcut {
					continue
				}
				if page[to] && !page[v] {
					continue
				}
			}
			ess.set(int(e))
		}
	}
	return ess
}

// bitset is a fixed-size set of small integers.
type bitset []uint64

func newBitset(n int) bitset       { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)         { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i uint32) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// propagateDOMState spreads the DOM link state of native (embedder) nodes to
// the native nodes they reach, as DevTools does: attached first, then detached;
// JavaScript nodes stop the propagation. It returns which nodes DevTools
// renames "Detached <name>" (nil when the snapshot has no detachedness).
func (g *Graph) propagateDOMState(t *types) bitset {
	if !g.HasDetachedness {
		return nil
	}
	const attachedState, detachedState = 1, 2
	n := g.NodeCount()
	state := slices.Clone(g.Detachedness) // the decoded array may be being read
	g.Detachedness = state
	visited := newBitset(n)
	renamed := newBitset(n)
	var attached, detached []uint32
	process := func(o uint32, newState uint8) {
		if visited.has(o) {
			return
		}
		visited.set(int(o))
		if int(g.Type[o]) != t.native {
			return
		}
		state[o] = newState
		switch newState {
		case attachedState:
			attached = append(attached, o)
		case detachedState:
			renamed.set(int(o))
			detached = append(detached, o)
		}
	}
	propagate := func(o uint32, newState uint8) {
		for e := g.FirstEdge[o]; e < g.FirstEdge[o+1]; e++ {
			if et := int(g.EdgeType[e]); et == t.eHidden || et == t.eInvisible || et == t.eWeak {
				continue
			}
			if to := g.To[e]; to != NoNode {
				process(to, newState)
			}
		}
	}
	for o := range uint32(n) {
		if state[o] != 0 {
			process(o, state[o])
		}
	}
	for len(attached) > 0 {
		o := attached[len(attached)-1]
		attached = attached[:len(attached)-1]
		propagate(o, attachedState)
	}
	for len(detached) > 0 {
		o := detached[len(detached)-1]
		detached = detached[:len(detached)-1]
		if state[o] == attachedState {
			continue
		}
		propagate(o, detachedState)
	}
	return renamed
}
