package devtoolsexport

import (
	"fmt"
	"strconv"

	"tracestreamer/store"
)

// rowRange is the rowids between which a table holds a heap file's rows, and
// how many rows it holds.
type rowRange struct{ lo, hi, n int64 }

// heapTables are the tables a heap file is written from.
var heapTables = []string{"js_heap_info", "js_heap_nodes", "js_heap_edges", "js_heap_string", "js_heap_location",
	"js_heap_sample", "js_heap_trace_function_info", "js_heap_trace_node"}

// heapRanges finds, in one pass over each table, the rowids between which
// each heap file's rows lie, so that a file's rows are read without scanning
// the other files' rows.
func (e *exporter) heapRanges() (map[string]map[int64]rowRange, error) {
	out := map[string]map[int64]rowRange{}
	for _, t := range heapTables {
		m := map[int64]rowRange{}
		err := e.each(`SELECT file_id, min(rowid), max(rowid), count(*) FROM `+t+` GROUP BY file_id`,
			func(q *store.Rows) error {
				m[q.Int(0)] = rowRange{q.Int(1), q.Int(2), q.Int(3)}
				return nil
			})
		if err != nil {
			return nil, err
		}
		out[t] = m
	}
	return out, nil
}

// heapQuery is a query of table's rows of heap file id, in rowid order, or ""
// when the file has none.
func heapQuery(ranges map[string]map[int64]rowRange, table, cols string, id int64, more string) string {
	r, ok := ranges[table][id]
	if !ok {
		return ""
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE rowid BETWEEN %d AND %d AND file_id = %d%s ORDER BY rowid",
		cols, table, r.lo, r.hi, id, more)
}

// nodeFields are the node fields written, in V8's order, with ArkTS's
// native_size after them; a heap file is written with as many as its stride
// (docs/format/heapsnapshot.md#writing-heap-files-back-out).
var nodeFields = []string{"type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness", "native_size"}

// The other layouts are V8's.
const otherMeta = `"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],` +
	`"trace_node_fields":["id","function_info_index","count","size","children"],` +
	`"sample_fields":["timestamp_us","last_assigned_id"],` +
	`"location_fields":["object_index","script_id","line","column"]`

// writeHeapFile writes heap file id as a heap snapshot document, its members
// in the order V8 writes them.
func (e *exporter) writeHeapFile(w *writer, id int64, ranges map[string]map[int64]rowRange) error {
	types := map[string][2][]string{} // key → enumeration, field value types
	if q := heapQuery(ranges, "js_heap_info", "key, type, int_value, str_value", id, ""); q != "" {
		err := e.each(q, func(q *store.Rows) error {
			key := string(q.Bytes(0))
			switch key {
			case "node_types", "edge_types":
				t := types[key]
				if q.Int(1) == 0 {
					t[0] = append(t[0], string(q.Bytes(3)))
				} else {
					t[1] = append(t[1], string(q.Bytes(3)))
				}
				types[key] = t
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	stride, err := e.stride(id, ranges)
	if err != nil {
		return err
	}
	w.str(`{"snapshot":{"meta":{"node_fields":[`)
	for k := range stride {
		if k > 0 {
			w.str(",")
		}
		if k < len(nodeFields) {
			w.quote([]byte(nodeFields[k]))
		} else {
			w.quote([]byte("field" + strconv.Itoa(k)))
		}
	}
	w.str(`],"node_types":`)
	writeTypes(w, types["node_types"])
	w.str(`,"edge_fields":["type","name_or_index","to_node"],"edge_types":`)
	writeTypes(w, types["edge_types"])
	// The counts are those of the arrays written, whatever the producer
	// said: DevTools sizes its arrays from them and fails when one is short
	// (node's timelines can state fewer function infos than they carry).
	w.str(`,` + otherMeta + `},"node_count":`)
	w.int(ranges["js_heap_nodes"][id].n)
	w.str(`,"edge_count":`)
	w.int(ranges["js_heap_edges"][id].n)
	w.str(`,"trace_function_count":`)
	w.int(ranges["js_heap_trace_function_info"][id].n)
	w.str("},\n")

	// The integer arrays, one tuple a line as V8 writes them.
	cols := "type, name, id, self_size, edge_count, trace_node_id, detachedness"
	if err := e.ints(w, `"nodes":[`, heapQuery(ranges, "js_heap_nodes", cols, id, ""), 7, stride); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"edges\":[", heapQuery(ranges, "js_heap_edges", "type, name_or_index, to_node", id, ""),
		3, 3); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"trace_function_infos\":[", heapQuery(ranges, "js_heap_trace_function_info",
		`function_id, name, script_name, script_id, line, "column"`, id, ""), 6, 6); err != nil {
		return err
	}
	w.str("],\n\"trace_tree\":[")
	if err := e.traceTree(w, heapQuery(ranges, "js_heap_trace_node", "id, function_info_index, count, size, parent_id",
		id, "")); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"samples\":[", heapQuery(ranges, "js_heap_sample", "timestamp_us, last_assigned_id", id, ""),
		2, 2); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"locations\":[", heapQuery(ranges, "js_heap_location",
		`object_index, script_id, line, "column"`, id, ""), 4, 4); err != nil {
		return err
	}
	w.str("],\n\"strings\":[")
	if q := heapQuery(ranges, "js_heap_string", "string", id, ""); q != "" {
		first := true
		err := e.each(q, func(q *store.Rows) error {
			if !first {
				w.str(",\n")
			}
			first = false
			w.quote(q.Bytes(0))
			return w.err
		})
		if err != nil {
			return err
		}
	}
	w.str("]}")
	return w.err
}

// writeTypes writes a node_types or edge_types list: the enumeration, then
// each field's value type.
func writeTypes(w *writer, t [2][]string) {
	w.str("[[")
	for i, s := range t[0] {
		if i > 0 {
			w.str(",")
		}
		w.quote([]byte(s))
	}
	w.str("]")
	for _, s := range t[1] {
		w.str(",")
		w.quote([]byte(s))
	}
	w.str("]")
}

// ints writes the rows of query (cols integer columns each) as an integer
// array, padding each tuple with zeros to stride values, tuples separated by
// "\n," and a line break after the last, as V8 writes them.
func (e *exporter) ints(w *writer, head, query string, cols, stride int) error {
	w.str(head)
	if query == "" {
		return w.err
	}
	first := true
	defer func() {
		if !first {
			w.buf = append(w.buf, '\n') // V8 ends a non-empty array with a line break
		}
	}()
	return e.each(query, func(q *store.Rows) error {
		if !first {
			w.buf = append(w.buf, '\n', ',')
		}
		first = false
		for k := range stride {
			if k > 0 {
				w.buf = append(w.buf, ',')
			}
			if k < cols {
				w.int(q.Int(k))
			} else {
				w.buf = append(w.buf, '0')
			}
		}
		w.more()
		return w.err
	})
}

// stride finds how many fields a node of heap file id had: edges store their
// target as written, its node index times the stride, so the first edge whose
// target is known gives it. 7 (V8's) when no edge tells.
func (e *exporter) stride(id int64, ranges map[string]map[int64]rowRange) (int, error) {
	q := heapQuery(ranges, "js_heap_edges", "to_node, to_node_id", id, " AND to_node_id IS NOT NULL AND to_node > 0")
	if q == "" {
		return 7, nil
	}
	var toNode, toID int64
	var found bool
	err := e.each(q+" LIMIT 1", func(q *store.Rows) error {
		toNode, toID, found = q.Int(0), q.Int(1), true
		return nil
	})
	if err != nil || !found {
		return 7, err
	}
	q = heapQuery(ranges, "js_heap_nodes", "node_index", id, fmt.Sprintf(" AND id = %d", toID))
	var index int64
	err = e.each(q+" LIMIT 1", func(q *store.Rows) error {
		index = q.Int(0)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if index > 0 && toNode%index == 0 && toNode/index >= 5 && toNode/index <= 64 {
		return int(toNode / index), nil
	}
	return 7, nil
}

// traceTree writes the allocation tree's rows (pre-order, each with its
// parent's id) back as the nested trace_tree array: a group "id,
// function_info_index, count, size, [children]" per row. A row whose parent
// is not an open group goes to the top level, where the importer put it.
func (e *exporter) traceTree(w *writer, query string) error {
	if query == "" {
		return w.err
	}
	type open struct {
		id       int64
		children bool // its children list has a group already
	}
	var stack []open
	onStack := map[int64]int{} // open groups by id
	pop := func() {
		id := stack[len(stack)-1].id
		stack = stack[:len(stack)-1]
		if onStack[id]--; onStack[id] == 0 {
			delete(onStack, id)
		}
		w.buf = append(w.buf, ']')
	}
	top := false // the top-level list has a group already
	err := e.each(query, func(q *store.Rows) error {
		id, parent := q.Int(0), q.Int(4)
		if onStack[parent] == 0 {
			parent = -1
		}
		for len(stack) > 0 && (parent == -1 || stack[len(stack)-1].id != parent) {
			pop()
		}
		if len(stack) > 0 {
			if stack[len(stack)-1].children {
				w.buf = append(w.buf, ',')
			}
			stack[len(stack)-1].children = true
		} else {
			if top {
				w.buf = append(w.buf, ',')
			}
			top = true
		}
		w.int(id)
		for k := 1; k < 4; k++ {
			w.buf = append(w.buf, ',')
			w.int(q.Int(k))
		}
		w.buf = append(w.buf, ',', '[')
		stack = append(stack, open{id: id})
		onStack[id]++
		w.more()
		return w.err
	})
	for len(stack) > 0 {
		pop()
	}
	return err
}
