package heapgraph

// dominators builds the dominator tree over the essential edges (releasing
// g.To once its searches are done) with the
// Lengauer–Tarjan algorithm (simple eval/link, iterative DFS and path
// compression), exactly as DevTools does, including its treatment of nodes the
// root does not reach: first those with only non-essential retainers (each
// searched from, as if retained by the root), then any remaining cliques, each
// node attached to the root. It returns each node's immediate dominator
// ordinal, the retained sizes (shallow sizes summed up the tree), and the
// number of nodes the root did not reach.
func (g *Graph) dominators(essential bitset, shallow []uint32) (domOrd []uint32, retained []float64, unreachable int) {
	n := g.NodeCount()
	first := g.FirstEdge

	// Predecessors over essential edges, in edge order.
	predStart := make([]uint32, n+1)
	for e, to := range g.To {
		if essential.has(uint32(e)) {
			predStart[to+1]++
		}
	}
	for i := 1; i <= n; i++ {
		predStart[i] += predStart[i-1]
	}
	pred := make([]uint32, predStart[n])
	fill := make([]uint32, n)
	copy(fill, predStart[:n])
	for v := 0; v < n; v++ {
		for e := first[v]; e < first[v+1]; e++ {
			if essential.has(e) {
				to := g.To[e]
				pred[fill[to]] = uint32(v)
				fill[to]++
			}
		}
	}
	fill = nil

	// 1-based vertex numbers: vertex v is ordinal v-1; 0 means none.
	size := n + 1
	parent := make([]uint32, size)
	ancestor := make([]uint32, size)
	vertex := make([]uint32, size)
	label := make([]uint32, size)
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
				label[v] = v
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

	r := g.Root + 1
	dfs(r)
	unreachable = n - int(count)
	if int(count) < n {
		// Nodes with only non-essential retainers: search from each.
		for v := uint32(1); v <= uint32(n); v++ {
			if semi[v] == 0 && predStart[v] == predStart[v-1] {
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
				label[v] = v
			}
		}
	}

	// The searches are over: the edges themselves are not needed any more.
	stack, nextEdge, essential = nextEdge, nil, nil
	if !g.KeepLabels {
		g.To = nil
	}
	// Buckets as singly linked lists (order does not matter).
	bucketHead := make([]uint32, size)
	bucketNext := make([]uint32, size)
	dom := make([]uint32, size)
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
		b := vertex[semi[w]]
		bucketNext[w] = bucketHead[b]
		bucketHead[b] = w
		ancestor[w] = parent[w] // link
		pw := parent[w]
		for v := bucketHead[pw]; v != 0; v = bucketNext[v] {
			if u := eval(v); semi[u] < semi[v] {
				dom[v] = u
			} else {
				dom[v] = pw
			}
		}
		bucketHead[pw] = 0
	}
	dom[0], dom[r] = r, r
	for i := uint32(2); i <= count; i++ {
		w := vertex[i]
		if dom[w] != vertex[semi[w]] {
			dom[w] = dom[dom[w]]
		}
	}

	pred, stack, bucketHead, bucketNext, ancestor, label, parent = nil, nil, nil, nil, nil, nil, nil
	// From vertex numbers to ordinals in place: dom[o] is written after
	// dom[o+1] was read.
	for o := 0; o < n; o++ {
		dom[o] = dom[o+1] - 1
	}
	domOrd = dom[:n:n]
	retained = make([]float64, n)
	for o := 0; o < n; o++ {
		retained[o] = float64(shallow[o])
	}
	for i := count; i > 1; i-- {
		o := vertex[i] - 1
		retained[domOrd[o]] += retained[o]
	}
	return domOrd, retained, unreachable
}
