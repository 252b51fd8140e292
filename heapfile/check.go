package heapfile

import (
	"fmt"

	"tracestreamer/stat"
)

// Reporter receives the inconsistencies of a heap file, counted by kind: n
// items of one kind, and a message that says what they are and names the
// first (the caller adds which file). An empty message is a count to keep
// in stat without a warning.
type Reporter func(event stat.Event, typ stat.Type, n int64, msg string)

// tally counts the items of one kind of inconsistency, and describes the first.
type tally struct {
	n     int64
	first string
}

// checks is the validation of one heap file: every value the Writer keeps
// as given is checked as it passes, and what needs the whole file (the
// strings, the edges' total) when the decoder has returned.
type checks struct {
	negSelf, negID, nodeType, edgeType, edgeCount tally
	// repeatedID counts the nodes whose id an earlier node has (ids.go);
	// zeroID those whose repeated id is 0, which rawheap_translator gives
	// every handle root and primitive value by design: counted, not warned.
	repeatedID, zeroID tally
	// names counts the string indices the nodes and named edges give, to
	// compare with the number of strings once they are all read.
	names nameCounts
	// namedEdges is namedEdges of the meta's edge types (none before it).
	namedEdges []bool
}

// note counts an item of t, describing it if it is the first.
func (w *Writer) note(t *tally, format string, args ...any) {
	if t.n == 0 {
		t.first = fmt.Sprintf(format, args...)
		if w.offset != nil {
			t.first += fmt.Sprintf(", near offset %d", w.offset())
		}
	}
	t.n++
}

// SetOffset gives the Writer the decoder's position in the file, which its
// warnings name.
func (w *Writer) SetOffset(offset func() int64) { w.offset = offset }

// Report counts n items of a kind of inconsistency the decoder found (values
// that are not integers, …) under (event, typ), with msg saying what they are.
func (w *Writer) Report(event stat.Event, typ stat.Type, n int64, msg string) {
	w.report(event, typ, n, msg)
}

// checkNode checks the values of node idx that the Writer keeps as given.
func (w *Writer) checkNode(idx int64, nd Node) {
	c := &w.checks
	if types := w.nodeTypes(); len(types) > 0 && (nd.Type < 0 || nd.Type >= int64(len(types))) {
		w.note(&c.nodeType, "node %d has type %d, outside the %d node types", idx, nd.Type, len(types))
	}
	if nd.SelfSize < 0 {
		w.note(&c.negSelf, "node %d has self size %d", idx, nd.SelfSize)
	}
	if nd.ID < 0 {
		w.note(&c.negID, "node %d has id %d", idx, nd.ID)
	}
	c.names.add(nd.Name)
}

// checkEdge checks the values of edge idx that the Writer keeps as given.
func (w *Writer) checkEdge(idx int64, e Edge) {
	c := &w.checks
	named := c.namedEdges
	if len(named) > 0 && (e.Type < 0 || e.Type >= int64(len(named))) {
		w.note(&c.edgeType, "edge %d has type %d, outside the %d edge types", idx, e.Type, len(named))
		return
	}
	if len(named) > 0 && named[e.Type] {
		c.names.add(e.NameOrIndex)
	}
}

// namedEdges says, for each of the meta's edge types, whether its edges
// are named by a string: not element and hidden edges, which give an
// index.
func namedEdges(types []string) []bool {
	named := make([]bool, len(types))
	for i, t := range types {
		named[i] = t != "element" && t != "hidden"
	}
	return named
}

func (w *Writer) nodeTypes() []string {
	if w.meta == nil || len(w.meta.NodeTypes) == 0 {
		return nil
	}
	return w.meta.NodeTypes[0]
}

// finishChecks reports what the file's checks counted, and what only the
// whole file tells: names past the strings, edges the nodes' counts claim
// that the file does not have, counts the meta states that differ from
// what the file holds.
func (w *Writer) finishChecks() {
	c := &w.checks
	for _, k := range []struct {
		t     *tally
		event stat.Event
		what  string
	}{
		{&c.nodeType, stat.JSHeapTypes, "nodes have a type outside the type list; kept as given"},
		{&c.edgeType, stat.JSHeapTypes, "edges have a type outside the type list; kept as given"},
		{&c.negSelf, stat.JSHeapValues, "nodes have a negative self size; kept as given"},
		{&c.negID, stat.JSHeapValues, "nodes have a negative id; kept as given"},
		{&c.edgeCount, stat.JSHeapEdgeCounts, "nodes have an edge count out of range, read as 0"},
		{&c.repeatedID, stat.JSHeapIDs, "nodes repeat the id of an earlier node; each is given the synthetic id 2^52 + file id × 2^32 + node index"},
	} {
		if k.t.n > 0 {
			typ := stat.InvalidData
			if k.event == stat.JSHeapIDs {
				typ = stat.NotMatch
			}
			w.report(k.event, typ, k.t.n, fmt.Sprintf("%d %s (the first: %s)", k.t.n, k.what, k.t.first))
		}
	}
	if c.zeroID.n > 0 {
		w.report(stat.JSHeapIDs, stat.Received, c.zeroID.n, "")
	}
	if n, largest := c.names.atLeast(w.sum.Strings); n > 0 {
		w.report(stat.JSHeapNames, stat.InvalidData, n, fmt.Sprintf(
			"%d node and edge names are past the %d strings (up to %d); kept as given", n, w.sum.Strings, largest))
	}
	// The edges the nodes' counts claim past the last edge.
	{
		var missing, nodes int64
		first := -1
		if w.edgeNode >= 0 && w.edgeNode < len(w.ids) && w.edgeLeft > 0 {
			missing, nodes, first = int64(w.edgeLeft), 1, w.edgeNode
		}
		for i := max(0, w.edgeNode+1); i < len(w.ids); i++ {
			if n := w.edgeCount(i); n > 0 {
				missing += int64(n)
				nodes++
				if first < 0 {
					first = i
				}
			}
		}
		if missing > 0 {
			w.report(stat.JSHeapEdgeCounts, stat.DataLost, missing, fmt.Sprintf(
				"the nodes' edge counts add up to %d edges, the file has %d: %d are missing", w.sum.Edges+missing, w.sum.Edges, missing))
			w.report(stat.JSHeapEdgeCounts, stat.NotMatch, nodes, fmt.Sprintf(
				"%d nodes claim more edges than the file has left for them (the first: node %d)", nodes, first))
		}
	}
	if m := w.meta; m != nil && !m.CountsAfter {
		// trace_function_count is left out: V8 states it before the
		// tracker adds the functions of the last allocations.
		have := [2]int64{w.sum.Nodes, w.sum.Edges}
		stated := [2]int64{m.NodeCount, m.EdgeCount}
		for i, k := range countNames[:2] {
			if !m.Missing[i] && m.Invalid[i] == "" && stated[i] != have[i] {
				w.report(stat.JSHeapCounts, stat.NotMatch, 1, fmt.Sprintf("snapshot.%s is %d, the file holds %d", k, stated[i], have[i]))
			}
		}
	}
}

var countNames = [3]string{"node_count", "edge_count", "trace_function_count"}

// nameCounts counts string indices: small ones in an array indexed by the
// index (at most a few MB: string tables are that large), the others in a
// map.
type nameCounts struct {
	small []uint32
	big   map[int64]int64
}

const smallNames = 1 << 23

func (c *nameCounts) add(v int64) {
	if v >= 0 && v < smallNames {
		if int(v) >= len(c.small) {
			c.small = append(c.small, make([]uint32, int(v)+1-len(c.small)+len(c.small)/2)...)
		}
		c.small[v]++
		return
	}
	if c.big == nil {
		c.big = map[int64]int64{}
	}
	c.big[v]++
}

// atLeast returns how many indices are not below s, or negative, and the
// largest.
func (c *nameCounts) atLeast(s int64) (n, largest int64) {
	for v := s; v < int64(len(c.small)); v++ {
		if c.small[v] > 0 {
			n += int64(c.small[v])
			largest = v
		}
	}
	for v, k := range c.big {
		if v < 0 || v >= s {
			n += k
			largest = max(largest, v)
		}
	}
	return n, largest
}
