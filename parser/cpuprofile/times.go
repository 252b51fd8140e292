package cpuprofile

// NodeTime is the time spent in one call tree node.
type NodeTime struct {
	Self    int64 // ns of the runs whose leaf is this node
	Total   int64 // Self plus the Total of its children
	Samples int64 // samples whose leaf is this node
	// Outermost is false when an ancestor calls the same function (name, URL,
	// line): its time is already in that ancestor's total.
	Outermost bool
}

// NodeTimes returns the time of every node (in p.Nodes order) from the sample
// runs, summed up the call tree.
func (p *Profile) NodeTimes(runs []Run) []NodeTime {
	index := make(map[int64]int, len(p.Nodes))
	for i, n := range p.Nodes {
		index[n.ID] = i
	}
	t := make([]NodeTime, len(p.Nodes))
	for _, r := range runs {
		if i, ok := index[r.NodeID]; ok {
			t[i].Self += r.End - r.Start
		}
	}
	for _, s := range p.Samples {
		if i, ok := index[s]; ok {
			t[i].Samples++
		}
	}
	// Depth-first from the roots, children after parents: an explicit stack, no
	// recursion; totals are added bottom-up in reverse visiting order.
	type key struct {
		name, url string
		line      int64
	}
	onPath := map[key]int{}
	visited := make([]bool, len(p.Nodes))
	var order []int
	type frame struct {
		i, next int
	}
	var stack []frame
	push := func(i int) {
		visited[i] = true
		k := key{p.Nodes[i].FunctionName, p.Nodes[i].URL, p.Nodes[i].LineNumber}
		t[i].Outermost = onPath[k] == 0
		onPath[k]++
		order = append(order, i)
		stack = append(stack, frame{i, 0})
	}
	for root := range p.Nodes {
		if visited[root] {
			continue
		}
		if par, ok := index[p.Nodes[root].Parent]; ok && p.Nodes[root].Parent != 0 && !visited[par] {
			continue // reached from its parent
		}
		push(root)
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			kids := p.Nodes[top.i].Children
			if top.next == len(kids) {
				n := p.Nodes[top.i]
				onPath[key{n.FunctionName, n.URL, n.LineNumber}]--
				stack = stack[:len(stack)-1]
				continue
			}
			c, ok := index[kids[top.next]]
			top.next++
			if ok && !visited[c] {
				push(c)
			}
		}
	}
	for i := range t {
		t[i].Total = t[i].Self
	}
	parentOf := make([]int, len(p.Nodes))
	for i := range parentOf {
		parentOf[i] = -1
	}
	for i, n := range p.Nodes {
		for _, c := range n.Children {
			if ci, ok := index[c]; ok && parentOf[ci] == -1 && ci != i {
				parentOf[ci] = i
			}
		}
	}
	for k := len(order) - 1; k >= 0; k-- {
		if i := order[k]; parentOf[i] >= 0 {
			t[parentOf[i]].Total += t[i].Total
		}
	}
	return t
}
