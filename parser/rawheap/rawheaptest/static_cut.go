package rawheaptest

import "encoding/json"

// CutV8Heap returns a heap snapshot (JSON) of a part of h: V8's synthetic
// nodes and the first max objects found from the roots, as WriteStatic
// chooses them (focus as StaticOptions.Focus), with the edges between them
// and the strings they use. The generators of both runtimes' dumps can then
// start from the same small heap (a hybrid pair's fixtures).
func CutV8Heap(h *V8Heap, max int, focus []string) ([]byte, error) {
	g := newStaticGen(h, StaticOptions{MaxObjects: max, Focus: focus})
	g.collect()
	keep := make([]bool, h.NodeCount())
	for _, n := range g.objects {
		keep[n] = true
	}
	newIndex := make([]int, h.NodeCount())
	k := 0
	for i := range keep {
		if h.nodeType(i) == "synthetic" {
			keep[i] = true
		}
		if keep[i] {
			newIndex[i] = k
			k++
		}
	}
	strs := map[int64]int64{}
	var strings []string
	str := func(i int64) int64 {
		if j, ok := strs[i]; ok {
			return j
		}
		j := int64(len(strings))
		strs[i] = j
		strings = append(strings, h.Strings[i])
		return j
	}
	var nodes, edges []int64
	for i := range keep {
		if !keep[i] {
			continue
		}
		t := append([]int64(nil), h.Nodes[i*h.nf:(i+1)*h.nf]...)
		t[1] = str(t[1])
		count := int64(0)
		for e := h.firstEdge[i]; e < h.firstEdge[i+1]; e++ {
			to := int(h.Edges[3*e+2]) / h.nf
			if !keep[to] {
				continue
			}
			typ, name := h.Edges[3*e], h.Edges[3*e+1]
			if et := h.edgeTypes[typ]; et != "element" && et != "hidden" {
				name = str(name)
			}
			edges = append(edges, typ, name, int64(newIndex[to]*h.nf))
			count++
		}
		t[4] = count
		nodes = append(nodes, t...)
	}
	var doc struct {
		Snapshot struct {
			Meta              json.RawMessage `json:"meta"`
			NodeCount         int             `json:"node_count"`
			EdgeCount         int             `json:"edge_count"`
			TraceFunctionCont int             `json:"trace_function_count"`
		} `json:"snapshot"`
		Nodes     []int64  `json:"nodes"`
		Edges     []int64  `json:"edges"`
		Functions []int64  `json:"trace_function_infos"`
		Tree      []int64  `json:"trace_tree"`
		Samples   []int64  `json:"samples"`
		Locations []int64  `json:"locations"`
		Strings   []string `json:"strings"`
	}
	meta, err := json.Marshal(h.Snapshot.Meta)
	if err != nil {
		return nil, err
	}
	doc.Snapshot.Meta = meta
	doc.Snapshot.NodeCount, doc.Snapshot.EdgeCount = len(nodes)/h.nf, len(edges)/3
	doc.Nodes, doc.Edges, doc.Strings = nodes, edges, strings
	doc.Functions, doc.Tree, doc.Samples, doc.Locations = []int64{}, []int64{}, []int64{}, []int64{}
	return json.Marshal(&doc)
}
