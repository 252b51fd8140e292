package devtoolsexport

import (
	"errors"
	"fmt"
	"strconv"

	"tracestreamer/store"
)

// rowRange is the rowids between which a table holds a heap file's rows, and
// how many rows it holds.
type rowRange struct{ lo, hi, n int64 }

// heapIndex tells where each heap file's rows lie in each table.
type heapIndex struct {
	// exact: the ranges come from a pass over each table; other files' rows
	// may lie inside a file's range and are filtered out. Otherwise the
	// ranges were found by binary search on the assumption that each table
	// holds the files' rows one file after the other, in id order (as the
	// importer writes them); reading a row of another file inside a range
	// (errInterleaved) proves it wrong.
	exact  bool
	ranges map[string]map[int64]rowRange
}

// errInterleaved is returned when a heap file's rows are not where binary
// search put them.
var errInterleaved = errors.New("heap files' rows are interleaved")

// heapTables are the tables a heap file is written from.
var heapTables = []string{"js_heap_info", "js_heap_nodes", "js_heap_edges", "js_heap_string", "js_heap_location",
	"js_heap_sample", "js_heap_trace_function_info", "js_heap_trace_node", "js_heap_native_size"}

// optionalTables are heap tables a database written before them lacks: its
// heap files are written as if the table were empty.
var optionalTables = map[string]bool{"js_heap_native_size": true}

// tableMissing reports whether t is an optional table the database lacks.
func (e *exporter) tableMissing(t string) (bool, error) {
	if !optionalTables[t] {
		return false, nil
	}
	n, err := e.r.QueryInt(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '` + t + `'`)
	return n == 0, err
}

// countedTables are those whose rows a heap file's header counts.
var countedTables = map[string]bool{"js_heap_nodes": true, "js_heap_edges": true, "js_heap_trace_function_info": true}

// findRanges finds each heap file's rows by binary search on rowid, a few
// dozen look-ups a file and table, assuming that the files' rows follow
// each other in id order (ids: the files' ids, increasing). Where a table's
// rowids have gaps, the rows of a counted table are counted in their range.
func (e *exporter) findRanges(ids []int64) (*heapIndex, error) {
	ix := &heapIndex{ranges: map[string]map[int64]rowRange{}}
	for _, t := range heapTables {
		m := map[int64]rowRange{}
		ix.ranges[t] = m
		if missing, err := e.tableMissing(t); err != nil || missing {
			if err != nil {
				return nil, err
			}
			continue
		}
		minRow, err := e.r.QueryInt(`SELECT min(rowid) FROM ` + t)
		if err != nil {
			return nil, err
		}
		maxRow, err := e.r.QueryInt(`SELECT max(rowid) FROM ` + t)
		if err != nil || maxRow < minRow || maxRow == 0 {
			continue // (no rows)
		}
		total, err := e.r.QueryInt(`SELECT count(*) FROM ` + t)
		if err != nil {
			return nil, err
		}
		// fileAt is the file of the first row at or after rowid r.
		fileAt := func(r int64) (file int64, ok bool, err error) {
			err = e.each(fmt.Sprintf(`SELECT file_id FROM %s WHERE rowid >= %d ORDER BY rowid LIMIT 1`, t, r),
				func(q *store.Rows) error {
					file, ok = q.Int(0), true
					return nil
				})
			return file, ok, err
		}
		starts := make([]int64, len(ids))
		for k, id := range ids {
			lo, hi := minRow, maxRow+1
			for lo < hi {
				mid := lo + (hi-lo)/2
				f, ok, err := fileAt(mid)
				if err != nil {
					return nil, err
				}
				if !ok || f >= id {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			starts[k] = lo
		}
		for k, id := range ids {
			lo, hi := starts[k], maxRow
			if k+1 < len(ids) {
				hi = starts[k+1] - 1
			}
			if lo > hi {
				continue
			}
			if f, ok, err := fileAt(lo); err != nil {
				return nil, err
			} else if !ok || f != id {
				continue
			}
			n := hi - lo + 1
			if total != maxRow-minRow+1 && countedTables[t] {
				if n, err = e.r.QueryInt(fmt.Sprintf(`SELECT count(*) FROM %s WHERE rowid BETWEEN %d AND %d`,
					t, lo, hi)); err != nil {
					return nil, err
				}
			}
			m[id] = rowRange{lo, hi, n}
		}
	}
	return ix, nil
}

// exactRanges finds, in one pass over each table, the rowids between which
// each heap file's rows lie and how many there are.
func (e *exporter) exactRanges() (*heapIndex, error) {
	ix := &heapIndex{exact: true, ranges: map[string]map[int64]rowRange{}}
	for _, t := range heapTables {
		m := map[int64]rowRange{}
		ix.ranges[t] = m
		if missing, err := e.tableMissing(t); err != nil || missing {
			if err != nil {
				return nil, err
			}
			continue
		}
		err := e.each(`SELECT file_id, min(rowid), max(rowid), count(*) FROM `+t+` GROUP BY file_id`,
			func(q *store.Rows) error {
				m[q.Int(0)] = rowRange{q.Int(1), q.Int(2), q.Int(3)}
				return nil
			})
		if err != nil {
			return nil, err
		}
		ix.ranges[t] = m
	}
	return ix, nil
}

// query is a query of cols of table's rows of heap file id, in rowid order,
// with file_id after them, or "" when the file has none.
func (ix *heapIndex) query(table, cols string, id int64, more string) string {
	r, ok := ix.ranges[table][id]
	if !ok {
		return ""
	}
	if ix.exact {
		more = fmt.Sprintf(" AND file_id = %d", id) + more
	}
	return fmt.Sprintf("SELECT %s, file_id FROM %s WHERE rowid BETWEEN %d AND %d%s ORDER BY rowid",
		cols, table, r.lo, r.hi, more)
}

// eachOf calls fn for every row of a query made by query, whose column col
// is the file_id, which must be id.
func (e *exporter) eachOf(query string, id int64, col int, fn func(q *store.Rows) error) error {
	return e.each(query, func(q *store.Rows) error {
		if q.Int(col) != id {
			return errInterleaved
		}
		return fn(q)
	})
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
func (e *exporter) writeHeapFile(w *writer, id int64, ix *heapIndex) error {
	types := map[string][2][]string{} // key → enumeration, field value types
	if q := ix.query("js_heap_info", "key, type, int_value, str_value", id, ""); q != "" {
		err := e.eachOf(q, id, 4, func(q *store.Rows) error {
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
	stride, err := e.stride(id, ix)
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
	w.int(ix.ranges["js_heap_nodes"][id].n)
	w.str(`,"edge_count":`)
	w.int(ix.ranges["js_heap_edges"][id].n)
	w.str(`,"trace_function_count":`)
	w.int(ix.ranges["js_heap_trace_function_info"][id].n)
	w.str("},\n")

	// The integer arrays, one tuple a line as V8 writes them.
	if err := e.nodes(w, id, ix, stride); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"edges\":[", ix.query("js_heap_edges", "type, name_or_index, to_node", id, ""),
		id, 3, 3); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"trace_function_infos\":[", ix.query("js_heap_trace_function_info",
		`function_id, name, script_name, script_id, line, "column"`, id, ""), id, 6, 6); err != nil {
		return err
	}
	w.str("],\n\"trace_tree\":[")
	if err := e.traceTree(w, ix.query("js_heap_trace_node", "id, function_info_index, count, size, parent_id",
		id, ""), id); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"samples\":[", ix.query("js_heap_sample", "timestamp_us, last_assigned_id", id, ""),
		id, 2, 2); err != nil {
		return err
	}
	if err := e.ints(w, "],\n\"locations\":[", ix.query("js_heap_location",
		`object_index, script_id, line, "column"`, id, ""), id, 4, 4); err != nil {
		return err
	}
	w.str("],\n\"strings\":[")
	if q := ix.query("js_heap_string", "string", id, ""); q != "" {
		first := true
		err := e.eachOf(q, id, 1, func(q *store.Rows) error {
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

// ints writes the rows of query (cols integer columns each, then heap file
// id's file_id) as an integer array, padding each tuple with zeros to stride values, tuples separated by
// "\n," and a line break after the last, as V8 writes them.
func (e *exporter) ints(w *writer, head, query string, id int64, cols, stride int) error {
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
	return e.eachOf(query, id, cols, func(q *store.Rows) error {
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

// nodes writes the nodes array: the js_heap_nodes rows of heap file id, the
// seven fields V8 writes, then, with a stride of 8 or more, each node's
// native_size from js_heap_native_size (read beside them: both tables hold a
// file's rows in node_index order; a node without a row has 0), and zeros
// up to the stride.
func (e *exporter) nodes(w *writer, id int64, ix *heapIndex, stride int) error {
	cols := "type, name, id, self_size, edge_count, trace_node_id, detachedness"
	if stride < 8 {
		return e.ints(w, `"nodes":[`, ix.query("js_heap_nodes", cols, id, ""), id, 7, stride)
	}
	var native *store.Rows
	more := false // native holds a row not yet used
	if q := ix.query("js_heap_native_size", "node_index, native_size", id, ""); q != "" {
		var err error
		if native, err = e.r.Query(q); err != nil {
			return err
		}
		defer native.Close()
		more = native.Next()
	}
	w.str(`"nodes":[`)
	q := ix.query("js_heap_nodes", cols+", node_index", id, "")
	if q == "" {
		return w.err
	}
	first := true
	err := e.eachOf(q, id, 8, func(q *store.Rows) error {
		if !first {
			w.buf = append(w.buf, '\n', ',')
		}
		first = false
		for k := range 7 {
			if k > 0 {
				w.buf = append(w.buf, ',')
			}
			w.int(q.Int(k))
		}
		var size int64
		for idx := q.Int(7); more && native.Int(0) <= idx; more = native.Next() {
			if native.Int(2) != id {
				return errInterleaved
			}
			if native.Int(0) == idx {
				size = native.Int(1)
			}
		}
		w.buf = append(w.buf, ',')
		w.int(size)
		for range stride - 8 {
			w.buf = append(w.buf, ',', '0')
		}
		w.more()
		return w.err
	})
	if !first {
		w.buf = append(w.buf, '\n') // V8 ends a non-empty array with a line break
	}
	if err != nil {
		return err
	}
	if native != nil {
		if err := native.Err(); err != nil {
			return fmt.Errorf("js_heap_native_size of heap file %d: %w", id, err)
		}
	}
	return w.err
}

// stride finds how many fields a node of heap file id had: edges store their
// target as written, its node index times the stride, so the first edge whose
// target is known gives it. 7 (V8's) when no edge tells.
func (e *exporter) stride(id int64, ix *heapIndex) (int, error) {
	q := ix.query("js_heap_edges", "to_node, to_node_id", id, " AND to_node_id IS NOT NULL AND to_node > 0")
	if q == "" {
		return 7, nil
	}
	var toNode, toID int64
	var found bool
	err := e.eachOf(q+" LIMIT 1", id, 2, func(q *store.Rows) error {
		toNode, toID, found = q.Int(0), q.Int(1), true
		return nil
	})
	if err != nil || !found {
		return 7, err
	}
	q = ix.query("js_heap_nodes", "node_index", id, fmt.Sprintf(" AND id = %d", toID))
	var index int64
	err = e.eachOf(q+" LIMIT 1", id, 1, func(q *store.Rows) error {
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
func (e *exporter) traceTree(w *writer, query string, file int64) error {
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
	err := e.eachOf(query, file, 5, func(q *store.Rows) error {
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
