package heapsnapshot

import (
	"errors"
	"fmt"
	"slices"

	"tracestreamer/heapfile"
	"tracestreamer/parser/jsonscan"
)

// meta is what the "snapshot" object says about the document.
type meta struct {
	fields     map[string][]string // *_fields lists by key
	nodeTypes  [][]string
	edgeTypes  [][]string
	nodeCount  int64
	edgeCount  int64
	funcCount  int64
	rootIndex  int64 // snapshot.root_index: flat offset of the root node (0)
	haveCounts [3]bool
	invalid    [3]string // the text of a count that is not one
}

// snapshot reads the "snapshot" object and writes the js_heap_info rows.
func (d *decoder) snapshot() error {
	v, err := d.js.Value(1 << 20)
	if err != nil {
		return err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errors.New("not an object")
	}
	mobj, ok := obj["meta"].(map[string]any)
	if !ok {
		return errors.New("no meta object")
	}
	m := &meta{fields: map[string][]string{}}
	for k, v := range mobj {
		if list, ok := v.([]any); ok && len(k) > 7 && k[len(k)-7:] == "_fields" {
			m.fields[k] = stringList(list)
		}
	}
	m.nodeTypes = typeLists(mobj["node_types"])
	m.edgeTypes = typeLists(mobj["edge_types"])
	for i, k := range []string{"node_count", "edge_count", "trace_function_count"} {
		n, ok := obj[k].(jsonscan.Number)
		if !ok {
			continue
		}
		m.haveCounts[i] = true
		v, err := n.Int()
		if err != nil || v < 0 {
			// Not a count: the data decides (heapfile writes what the file
			// holds, with a warning).
			m.invalid[i] = string(n)
			continue
		}
		switch i {
		case 0:
			m.nodeCount = v
		case 1:
			m.edgeCount = v
		case 2:
			m.funcCount = v
		}
	}
	if n, ok := obj["root_index"].(jsonscan.Number); ok {
		if v, err := n.Int(); err == nil && v >= 0 {
			m.rootIndex = v
		}
	}
	if f, ok := m.fields["node_fields"]; ok && len(f) == 0 {
		return errors.New("meta.node_fields is empty")
	}
	d.nodes = makeLayout(m.fields["node_fields"], nodeNames)
	// ArkTS's native_size is not one of V8's fields: the fallback layout
	// (no node_fields) has none.
	d.native = slices.Index(m.fields["node_fields"], "native_size")
	for _, need := range []int{nID, nEdgeCount} {
		if d.nodes.pos[need] < 0 {
			return fmt.Errorf("meta.node_fields lacks %q", nodeNames[need])
		}
	}
	if f, ok := m.fields["edge_fields"]; ok {
		l := makeLayout(f, edgeNames)
		if len(f) == 0 || l.pos[eToNode] < 0 {
			return errors.New("meta.edge_fields lacks \"to_node\"")
		}
	}
	if f, ok := m.fields["trace_node_fields"]; ok {
		l := makeLayout(f, traceNodeNames)
		if l.pos[tChildren] != l.stride-1 {
			return errors.New("meta.trace_node_fields: \"children\" must be the last field")
		}
	}
	d.meta = m
	missing := [3]bool{!m.haveCounts[0], !m.haveCounts[1], !m.haveCounts[2]}
	d.w.Meta(heapfile.Meta{NodeTypes: m.nodeTypes, EdgeTypes: m.edgeTypes, NodeCount: m.nodeCount,
		EdgeCount: m.edgeCount, TraceFunctionCount: m.funcCount, Missing: missing, Invalid: m.invalid,
		Root: m.rootIndex / int64(max(1, d.nodes.stride)), NodeStride: d.nodes.stride,
		Detachedness: d.nodes.pos[nDetachedness] >= 0})
	if d.pendingNodes != nil {
		d.processNodes(d.pendingNodes)
	}
	return nil
}

func stringList(list []any) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// typeLists normalises a *_types array: each element becomes a list of strings
// (an inner array as it is, a plain string as a one-element list).
func typeLists(v any) [][]string {
	list, _ := v.([]any)
	out := make([][]string, 0, len(list))
	for _, e := range list {
		switch e := e.(type) {
		case []any:
			out = append(out, stringList(e))
		case string:
			out = append(out, []string{e})
		default:
			out = append(out, nil)
		}
	}
	return out
}
