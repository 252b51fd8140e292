package heapgraph

import (
	"runtime"

	"tracestreamer/internal/task"
)

// dominators builds the dominator tree over the essential edges (releasing
// g.To once its searches and the predecessor lists are done) with DevTools' search forest and
// semidominators (Lengauer–Tarjan: simple eval/link, iterative DFS, path
// compression), the dominators then derived by the semi-NCA step instead of
// DevTools' buckets (the same tree, two arrays fewer), including its treatment of nodes the
// root does not reach: first those with only non-essential retainers (each
// searched from, as if retained by the root), then any remaining cliques, each
// node attached to the root. It returns each node's immediate dominator
// ordinal, the ordinals in the search's preorder (the root first: a node
// comes after its dominator, so retained sizes add up in reverse), and the
// number of nodes the root did not reach.
//
// Its arrays are made as late as they are needed: the searches run before the
// predecessor lists are built (which reuse the search's edge cursors; only
// their lengths, which the searches need, are counted before), and the
// edges are released before the arrays of the semidominator step.
// wait is called once the searches are over, before the predecessor
// lists are made: the caller waits there for whatever else reads the edges
// meanwhile (the distance search, on another goroutine), so that its arrays
// do not meet the lists (5 M nodes: peak 379-392 MB if they do, 370-375 MB
// if they do not, for 0.1 s).
func (g *Graph) dominators(essential bitset, wait func()) (domOrd, preorder []uint32, unreachable int) {
	n := g.NodeCount()
	first := g.FirstEdge

	// Each node's count of essential retainers, the length of its
	// predecessor list (ordinal o's at predStart[o+1], summed into the
	// lists' starts below); a node without one is searched from.
	predStart := make([]uint32, n+1)
	for e, to := range g.To {
		if essential.has(uint32(e)) {
			predStart[to+1]++
		}
	}

	// 1-based vertex numbers: vertex v is ordinal v-1; 0 means none.
	size := n + 1
	parent := make([]uint32, size)
	vertex := make([]uint32, size)
	semi := make([]uint32, size)
	nextEdge := make([]uint32, size) // by ordinal
	count := uint32(0)

	dfs := func(root uint32) {
		nextEdge[root-1] = first[root-1]
		v := root
		for v != 0 {
			if semi[v] == 0 {
				count++
				semi[v] = count
				vertex[count] = v
			}
			vNext := parent[v]
			o := v - 1
			for ; nextEdge[o] < first[o+1]; nextEdge[o]++ {
				e := nextEdge[o]
				if !essential.has(e) {
					continue
				}
				w := g.To[e] + 1
				if semi[w] == 0 {
					parent[w] = v
					nextEdge[w-1] = first[w-1]
					vNext = w
					break
				}
			}
			v = vNext
		}
	}

	r := g.Root + 1
	dfs(r)
	unreachable = n - int(count)
	if int(count) < n {
		// Nodes with only non-essential retainers: search from each.
		for v := uint32(1); v <= uint32(n); v++ {
			if semi[v] == 0 && predStart[v] == 0 {
				parent[v] = r
				dfs(v)
			}
		}
	}
	if int(count) < n {
		// Cliques retained only by one another: attach each node to the root.
		for v := uint32(1); v <= uint32(n); v++ {
			if semi[v] == 0 {
				parent[v] = r
				count++
				semi[v] = count
				vertex[count] = v
			}
		}
	}

	// Whatever else reads the edges is done before the predecessor lists
	// are made: its arrays and theirs would meet at the peak.
	wait()
	// Predecessors over essential edges, in edge order; the searches are
	// over, so the edge cursors become the fill positions. With several
	// cores each worker takes the edges into one range of targets (every
	// worker reads all the edges, but writes only its own part of the
	// lists, where the writes are what costs).
	workers := targetRanges(n)
	for i := 1; i <= n; i++ {
		predStart[i] += predStart[i-1]
	}
	pred := make([]uint32, predStart[n])
	fill := nextEdge[:n]
	copy(fill, predStart[:n])
	forRanges(workers, func(lo, hi uint32) {
		for v := 0; v < n; v++ {
			for e := first[v]; e < first[v+1]; e++ {
				if to := g.To[e]; to >= lo && to < hi && essential.has(e) {
					pred[fill[to]] = uint32(v)
					fill[to]++
				}
			}
		}
	})
	fill = nil

	// The edges themselves are not needed any more.
	essential = nil
	if !g.KeepLabels {
		g.To = nil
	}
	ancestor := make([]uint32, size)
	label := make([]uint32, size)
	for v := range label {
		label[v] = uint32(v)
	}

	// The compression stack reuses nextEdge: the searches are over.
	var stack []uint32
	compress := func(v uint32) {
		sp := 0
		for ancestor[ancestor[v]] != 0 {
			sp++
			stack[sp] = v
			v = ancestor[v]
		}
		for sp > 0 {
			w := stack[sp]
			sp--
			if semi[label[ancestor[w]]] < semi[label[w]] {
				label[w] = label[ancestor[w]]
			}
			ancestor[w] = ancestor[ancestor[w]]
		}
	}
	eval := func(v uint32) uint32 {
		if ancestor[v] == 0 {
			return v
		}
		compress(v)
		return label[v]
	}

	stack = nextEdge
	nextEdge = nil
	// Semidominators, in reverse preorder, each vertex then linked to its
	// parent in the search forest (Lengauer–Tarjan's first phase).
	for i := count; i >= 2; i-- {
		w := vertex[i]
		o := w - 1
		if predStart[o] == predStart[o+1] {
			semi[w] = semi[r] // an orphan's only predecessor is the root
		} else {
			for _, p := range pred[predStart[o]:predStart[o+1]] {
				if u := eval(p + 1); semi[u] < semi[w] {
					semi[w] = semi[u]
				}
			}
		}
		ancestor[w] = parent[w] // link
	}
	// Immediate dominators from the semidominators, in preorder: the
	// nearest vertex on the dominator tree path above parent[w] whose
	// preorder number is at most semi[w] (the semi-NCA step; it gives
	// Lengauer–Tarjan's result without its buckets, 8 bytes a node less at
	// the analysis's peak). parent becomes the dominator array in place:
	// parent[w] is read before it is overwritten, and the walk follows only
	// vertices of smaller preorder number, whose dominators are final.
	// DevTools' attachment of unreached cliques to the root gives the same
	// as its buckets: a clique node's semidominator is another clique node,
	// its parent the root, so both give it the root.
	pre := label // label is not needed any more
	for i := uint32(1); i <= count; i++ {
		pre[vertex[i]] = i
	}
	dom := parent
	dom[0], dom[r] = r, r
	for i := uint32(2); i <= count; i++ {
		w := vertex[i]
		d := dom[w]
		for pre[d] > semi[w] {
			d = dom[d]
		}
		dom[w] = d
	}

	// From vertex numbers to ordinals in place: dom[o] is written after
	// dom[o+1] was read, and preorder[i] after vertex[i+1].
	for o := 0; o < n; o++ {
		dom[o] = dom[o+1] - 1
	}
	for i := uint32(1); i <= count; i++ {
		vertex[i-1] = vertex[i] - 1
	}
	return dom[:n:n], vertex[:count:count], unreachable
}

// targetRanges splits the node ordinals 0..n-1 (the targets of the
// predecessor lists' edges, the nodes of a per-node loop) into ranges of 8 k
// nodes or more (split): the bounds, from 0 to n.
func targetRanges(n int) []uint32 { return split(uint32(n), 1<<13) }

// split divides 0..n into one part per core the run may use (GOMAXPROCS,
// which --threads sets), at most 4 and each of minPart or more: the
// bounds, from 0 to n.
func split[T ~uint32 | ~int](n, minPart T) []T {
	k := max(min(T(runtime.GOMAXPROCS(0)), 4, n/minPart), 1)
	bounds := make([]T, k+1)
	for i := range bounds {
		bounds[i] = T(uint64(n) * uint64(i) / uint64(k))
	}
	return bounds
}

// forRanges calls f for each range [bounds[i], bounds[i+1]), the first on
// the calling goroutine and the others each on its own, and returns when
// all are done.
func forRanges[T ~uint32 | ~int](bounds []T, f func(lo, hi T)) {
	var others []*task.Task
	for i := 2; i < len(bounds); i++ {
		lo, hi := bounds[i-1], bounds[i]
		others = append(others, task.Go(func() { f(lo, hi) }))
	}
	defer func() {
		for _, t := range others {
			t.Join()
		}
	}()
	f(bounds[0], bounds[1])
	for _, t := range others {
		t.Wait()
	}
}
