// Package schema defines the output tables: names, column order and SQLite types,
// exactly as the reference trace_streamer exports them (docs/format/README.md#tables), plus the
// few tables tracestreamer adds.
//
// Tables are plain rowid tables without primary keys; rows are appended in the
// reference's order so that rowid order matches it.
package schema

import (
	"slices"
	"strings"
)

// Type is a column's declared SQLite type.
type Type uint8

// Column types as they appear in the exported schema.
const (
	Int  Type = iota // INT, values bound as integers
	Text             // TEXT, values bound as text
	// IntText is declared INT but its values are text; SQLite's INT affinity turns
	// text that looks like an integer into an integer (js_cpu_profiler_node.children).
	IntText
	// Real is declared REAL; values are bound as floating point.
	Real
)

func (t Type) String() string {
	switch t {
	case Text:
		return "TEXT"
	case Real:
		return "REAL"
	}
	return "INT"
}

// IsText reports whether values of the column are held as text.
func (t Type) IsText() bool { return t == Text || t == IntText }

// Column is one column of a table.
type Column struct {
	Name string
	Type Type
	// Null tells that tracestreamer's writers may store NULL here, or a REAL
	// in an INT column (nullable.go); the generated row field is then a
	// rows.Int or rows.Text instead of an int64 or string. It changes no DDL.
	Null bool
	// MayHoldReal tells that an INT column's writers store a REAL where the
	// value is not a whole number (nullable.go); readers that need one type
	// a column look at its values.
	MayHoldReal bool
}

// Table is an output table. Its Columns are in export order.
type Table struct {
	Name    string
	Columns []Column
	// slot gives, for each column, its position among the columns of its value kind
	// (row buffers keep ints and texts in separate arrays).
	slot []int
	nInt int
}

// NumInt returns the number of INT columns.
func (t *Table) NumInt() int { return t.nInt }

// NumText returns the number of TEXT columns.
func (t *Table) NumText() int { return len(t.Columns) - t.nInt }

// Slot returns the position of column i among the columns of its type.
func (t *Table) Slot(i int) int { return t.slot[i] }

// CreateSQL returns the CREATE TABLE statement. The reference's export made its
// tables with CREATE TABLE … AS SELECT, for which SQLite itself writes the
// statement kept in sqlite_master (one line for short tables, a column a line for
// longer ones, keywords quoted); creating ours the same way gives byte-identical
// schema text without re-implementing that layout.
func (t *Table) CreateSQL() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(Quote(t.Name))
	b.WriteString(" AS SELECT ")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("CAST(NULL AS ")
		b.WriteString(c.Type.String())
		b.WriteString(") AS ")
		b.WriteString(Quote(c.Name))
	}
	b.WriteString(" WHERE 0")
	return b.String()
}

// Quote quotes an identifier for SQL text (column names include keywords such as
// "key", "desc" and "offset").
func Quote(name string) string { return `"` + name + `"` }

func newTable(name string, cols ...Column) *Table {
	t := &Table{Name: name, Columns: cols, slot: make([]int, len(cols))}
	nText := 0
	for i, c := range cols {
		if c.Type.IsText() {
			t.slot[i] = nText
			nText++
		} else {
			t.slot[i] = t.nInt
			t.nInt++
		}
	}
	return t
}

func ints(names ...string) []Column {
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Column{Name: n, Type: Int}
	}
	return cols
}

func col(name string, t Type) Column { return Column{Name: name, Type: t} }

// table declares a table from its columns written as in SQL ("id INT, name TEXT").
// It panics on a type other than INT, TEXT or REAL: the declarations are constant,
// and every test builds them.
func table(name, columns string) *Table {
	var cols []Column
	for _, c := range strings.Split(columns, ",") {
		n, typ, ok := strings.Cut(strings.TrimSpace(c), " ")
		if !ok {
			panic("schema: column without a type in table " + name + ": " + c)
		}
		switch typ {
		case "INT":
			cols = append(cols, Column{Name: n, Type: Int})
		case "TEXT":
			cols = append(cols, Column{Name: n, Type: Text})
		case "REAL":
			cols = append(cols, Column{Name: n, Type: Real})
		default:
			panic("schema: unknown type " + typ + " in table " + name)
		}
	}
	return newTable(name, cols...)
}

// Tables is the set of output tables of one database, in creation order.
// A new value is made per database so that nothing is shared between runs.
type Tables struct {
	Process, Thread, TraceRange, DataType, Stat, Args, Meta, TraceConfig,
	DataDict, DatasourceClockID, ClockSnapshot *Table

	JSHeapFiles, JSHeapEdges, JSHeapInfo, JSHeapLocation, JSHeapNodes, JSHeapSample,
	JSHeapString, JSHeapTraceFunctionInfo, JSHeapTraceNode, JSCPUProfilerNode,
	JSCPUProfilerSample, JSConfig *Table

	// Source has one row per input file of the run, and JSCPUProfile one row per
	// CPU profile (tracestreamer's own tables).
	Source, JSCPUProfile *Table

	// Heap analysis (tracestreamer's own): per node, per class, and the
	// comparison of consecutive snapshots of one input.
	JSHeapNodeStats, JSHeapClass, JSHeapClassDiff *Table

	// Leaks found by comparing three heap files the way memlab does: the
	// leaked objects, their traces from the roots and their clusters.
	JSHeapLeak, JSHeapLeakPath, JSHeapLeakCluster *Table

	// JSCPUProfilerNodeTime has each CPU node's self and total time.
	JSCPUProfilerNodeTime *Table

	// Reference tables filled by the Trace Event (Chrome JSON) importer
	// (docs/format/traceevent.md#tables).
	Callstack, Instant, Measure, ProcessMeasure, MeasureFilter, ProcessMeasureFilter *Table

	// The importer's own tables (docs/format/traceevent.md#tables).
	CallstackExtra, AsyncTrack, InstantExtra, Flow, FlowEvent, ObjectInstance, ObjectSnapshot,
	MemoryDump, MemoryDumpValue, MemoryDumpEdge, ClockSyncMarker, ContextEvent, LinkedID,
	StackFrame, CPUProfile, StackSample, MetadataEvent, SystemTraceEvents *Table

	// reference is every table of trace_streamer 4.3.7's export in its order
	// (the named ones above among them; the rest stay empty), own are
	// tracestreamer's tables, created after them.
	reference, own []*Table
}

// New returns the table definitions.
func New() *Tables {
	ts := &Tables{
		Process: newTable("process", col("id", Int), col("ipid", Int), col("pid", Int),
			col("name", Text), col("start_ts", Int), col("switch_count", Int),
			col("thread_count", Int), col("slice_count", Int), col("mem_count", Int)),
		Thread: newTable("thread", col("id", Int), col("itid", Int), col("tid", Int),
			col("name", Text), col("start_ts", Int), col("end_ts", Int), col("ipid", Int),
			col("is_main_thread", Int), col("switch_count", Int)),
		TraceRange: newTable("trace_range", ints("start_ts", "end_ts")...),
		DataType:   newTable("data_type", col("id", Int), col("typeId", Int), col("desc", Text)),
		Stat: newTable("stat", col("event_name", Text), col("stat_type", Text), col("count", Int),
			col("serverity", Text), col("source", Text)),
		Args:        newTable("args", ints("id", "key", "datatype", "value", "argset")...),
		Meta:        newTable("meta", col("name", Text), col("value", Text)),
		TraceConfig: newTable("trace_config", col("id", Int), col("trace_source", Text), col("key", Text), col("value", Text)),
		DataDict:    newTable("data_dict", col("id", Int), col("data", Text)),
		DatasourceClockID: newTable("datasource_clockid", col("id", Int),
			col("data_source_name", Text), col("clock_id", Int)),
		ClockSnapshot: newTable("clock_snapshot", col("id", Int), col("clock_id", Int),
			col("ts", Int), col("clock_name", Text)),

		JSHeapFiles: newTable("js_heap_files", col("id", Int), col("file_name", Text),
			col("start_time", Int), col("end_time", Int), col("self_size", Int)),
		JSHeapEdges: newTable("js_heap_edges", ints("file_id", "edge_index", "type",
			"name_or_index", "to_node", "from_node_id", "to_node_id")...),
		JSHeapInfo: newTable("js_heap_info", col("file_id", Int), col("key", Text),
			col("type", Int), col("int_value", Int), col("str_value", Text)),
		JSHeapLocation: newTable("js_heap_location", ints("file_id", "object_index",
			"script_id", "line", "column")...),
		JSHeapNodes: newTable("js_heap_nodes", ints("file_id", "node_index", "type", "name",
			"id", "self_size", "edge_count", "trace_node_id", "detachedness")...),
		JSHeapSample: newTable("js_heap_sample", ints("file_id", "timestamp_us", "last_assigned_id")...),
		JSHeapString: newTable("js_heap_string", col("file_id", Int), col("file_index", Int),
			col("string", Text)),
		JSHeapTraceFunctionInfo: newTable("js_heap_trace_function_info", ints("file_id",
			"function_index", "function_id", "name", "script_name", "script_id", "line", "column")...),
		JSHeapTraceNode: newTable("js_heap_trace_node", ints("file_id", "id",
			"function_info_index", "count", "size", "parent_id")...),
		JSCPUProfilerNode: newTable("js_cpu_profiler_node", col("function_id", Int),
			col("function_index", Int), col("script_id", Text), col("url_index", Int),
			col("line_number", Int), col("column_number", Int), col("hit_count", Int),
			col("children", IntText), col("parent_id", Int)),
		JSCPUProfilerSample: newTable("js_cpu_profiler_sample", ints("id", "function_id",
			"start_time", "end_time", "dur")...),
		JSConfig: newTable("js_config", ints("pid", "type", "interval", "capture_numeric_value",
			"trace_allocation", "enable_cpu_profiler", "cpu_profiler_interval")...),

		Source: newTable("source", col("id", Int), col("path", Text), col("format", Text),
			col("compression", Text), col("bytes", Int), col("sha256", Text),
			col("heap_file_ids", Text), col("cpu_profile_ids", Text)),
		JSCPUProfile: newTable("js_cpu_profile", ints("id", "source_id", "first_node_rowid",
			"node_count", "first_sample_id", "sample_count", "start_time", "end_time")...),
		JSHeapNodeStats: newTable("js_heap_node_stats", ints("file_id", "node_index", "id",
			"dominator_id", "retained_size", "distance", "shallow_size", "class_id", "retainer_id",
			"retainer_edge", "retainer_edge_type", "retainer_edge_name")...),
		JSHeapClass: newTable("js_heap_class", col("file_id", Int), col("class_id", Int),
			col("name", Text), col("count", Int), col("shallow_size", Int), col("retained_size", Int),
			col("min_distance", Int)),
		JSCPUProfilerNodeTime: newTable("js_cpu_profiler_node_time", ints("profile_id", "node_rowid",
			"function_id", "self_time", "total_time", "self_samples", "outermost")...),
		Callstack: newTable("callstack", col("id", Int), col("ts", Int), col("dur", Int),
			col("callid", Int), col("cat", Text), col("name", Text), col("depth", Int),
			col("cookie", Int), col("parent_id", Int), col("argsetid", Int), col("chainId", Text),
			col("spanId", Text), col("parentSpanId", Text), col("flag", Text), col("trace_level", Text),
			col("trace_tag", Text), col("custom_category", Text), col("custom_args", Text),
			col("child_callid", Int)),
		Instant: newTable("instant", col("ts", Int), col("name", Text), col("ref", Int),
			col("wakeup_from", Int), col("ref_type", Text), col("value", Real)),
		Measure: newTable("measure", col("type", Text), col("ts", Int), col("dur", Int),
			col("value", Int), col("filter_id", Int)),
		ProcessMeasure: newTable("process_measure", col("type", Text), col("ts", Int), col("dur", Int),
			col("value", Int), col("filter_id", Int)),
		MeasureFilter: newTable("measure_filter", col("id", Int), col("type", Text), col("name", Text),
			col("source_arg_set_id", Int)),
		ProcessMeasureFilter: newTable("process_measure_filter", col("id", Int), col("name", Text),
			col("ipid", Int)),

		CallstackExtra: newTable("callstack_extra", col("callstack_id", Int), col("thread_ts", Int),
			col("thread_dur", Int), col("async_track_id", Int), col("async_parent_id", Int),
			col("end_itid", Int), col("stack_frame_id", Int), col("end_stack_frame_id", Int),
			col("cname", Text), col("overlap", Int)),
		AsyncTrack: newTable("async_track", col("id", Int), col("kind", Text), col("cat", Text),
			col("name", Text), col("scope", Text), col("id_kind", Text), col("raw_id", Text), col("ipid", Int)),
		InstantExtra: newTable("instant_extra", col("instant_rowid", Int), col("scope", Text),
			col("cat", Text), col("itid", Int), col("argsetid", Int), col("stack_frame_id", Int)),
		Flow: newTable("flow", col("id", Int), col("version", Int), col("slice_out", Int),
			col("slice_in", Int), col("cat", Text), col("name", Text), col("flow_key", Text),
			col("argsetid", Int)),
		FlowEvent: newTable("flow_event", col("id", Int), col("ts", Int), col("itid", Int), col("phase", Text),
			col("cat", Text), col("name", Text), col("flow_key", Text), col("bp", Text), col("slice_id", Int),
			col("flow_id", Int), col("argsetid", Int)),
		ObjectInstance: newTable("object_instance", col("id", Int), col("ipid", Int), col("scope", Text),
			col("id_kind", Text), col("raw_id", Text), col("cat", Text), col("name", Text),
			col("create_ts", Int), col("create_itid", Int), col("delete_ts", Int), col("delete_itid", Int),
			col("explicit_create", Int)),
		ObjectSnapshot: newTable("object_snapshot", col("id", Int), col("object_id", Int), col("ts", Int),
			col("itid", Int), col("cat", Text), col("name", Text), col("base_type", Text), col("argsetid", Int)),
		MemoryDump: newTable("memory_dump", col("id", Int), col("dump_id", Text), col("kind", Text),
			col("ts", Int), col("ipid", Int), col("itid", Int), col("level_of_detail", Text),
			col("extra_json", Text), col("argsetid", Int)),
		MemoryDumpValue: newTable("memory_dump_value", col("id", Int), col("memory_dump_id", Int),
			col("source", Text), col("path", Text), col("guid", Text), col("attr", Text), col("type", Text),
			col("units", Text), col("int_value", Int), col("str_value", Text)),
		MemoryDumpEdge: newTable("memory_dump_edge", col("id", Int), col("memory_dump_id", Int),
			col("source_guid", Text), col("target_guid", Text), col("importance", Int), col("type", Text)),
		ClockSyncMarker: newTable("clock_sync_marker", col("id", Int), col("sync_id", Text), col("ts", Int),
			col("issue_ts", Int), col("itid", Int), col("source", Text)),
		ContextEvent: newTable("context_event", col("id", Int), col("ts", Int), col("itid", Int),
			col("phase", Text), col("cat", Text), col("name", Text), col("scope", Text), col("id_kind", Text),
			col("raw_id", Text)),
		LinkedID: newTable("linked_id", col("id", Int), col("ts", Int), col("itid", Int), col("cat", Text),
			col("name", Text), col("scope", Text), col("id_kind", Text), col("raw_id", Text),
			col("linked_raw_id", Text)),
		StackFrame: newTable("stack_frame", col("id", Int), col("source", Text), col("ipid", Int),
			col("cpu_profile_id", Int), col("frame_key", Text), col("parent_id", Int), col("name", Text),
			col("category", Text), col("url", Text), col("script_id", Text), col("line", Int), col("column", Int)),
		CPUProfile: newTable("cpu_profile", col("id", Int), col("ipid", Int), col("itid", Int),
			col("profile_key", Text), col("start_ts", Int)),
		StackSample: newTable("stack_sample", col("id", Int), col("source", Text), col("cpu_profile_id", Int),
			col("ts", Int), col("itid", Int), col("cpu", Int), col("name", Text), col("frame_id", Int),
			col("weight", Int), col("argsetid", Int)),
		MetadataEvent: newTable("metadata_event", col("id", Int), col("ts", Int), col("ipid", Int),
			col("itid", Int), col("name", Text), col("argsetid", Int)),
		SystemTraceEvents: newTable("system_trace_events", col("id", Int), col("kind", Text), col("seq", Int),
			col("data", Text)),

		JSHeapLeak: table("js_heap_leak", "file_id INT, node_index INT, id INT, type TEXT, name TEXT, "+
			"self_size INT, retained_size INT, cluster_id INT, path_length INT, baseline_file_id INT, target_file_id INT"),
		JSHeapLeakPath: table("js_heap_leak_path", "file_id INT, leak_id INT, depth INT, node_id INT, type TEXT, "+
			"name TEXT, class TEXT, edge_type TEXT, edge_name TEXT"),
		JSHeapLeakCluster: table("js_heap_leak_cluster", "file_id INT, cluster_id INT, leak_count INT, "+
			"retained_size INT, leak_id INT, path TEXT"),

		JSHeapClassDiff: newTable("js_heap_class_diff", col("base_file_id", Int), col("file_id", Int),
			col("name", Text), col("added_count", Int), col("removed_count", Int), col("count_delta", Int),
			col("added_size", Int), col("removed_size", Int), col("size_delta", Int)),
	}
	ts.markNullable()
	ts.reference = ts.referenceTables()
	ts.own = []*Table{
		ts.Source, ts.JSCPUProfile, ts.JSHeapNodeStats, ts.JSHeapClass, ts.JSHeapClassDiff,
		ts.JSCPUProfilerNodeTime, ts.JSHeapLeak, ts.JSHeapLeakPath, ts.JSHeapLeakCluster,
		ts.CallstackExtra, ts.AsyncTrack, ts.InstantExtra, ts.Flow, ts.FlowEvent, ts.ObjectInstance,
		ts.ObjectSnapshot, ts.MemoryDump, ts.MemoryDumpValue, ts.MemoryDumpEdge, ts.ClockSyncMarker, ts.ContextEvent,
		ts.LinkedID, ts.StackFrame, ts.CPUProfile, ts.StackSample, ts.MetadataEvent, ts.SystemTraceEvents,
	}
	return ts
}

// All returns every table in creation order: the reference's tables in its
// export order, then tracestreamer's own.
func (ts *Tables) All() []*Table {
	return append(append(make([]*Table, 0, len(ts.reference)+len(ts.own)), ts.reference...), ts.own...)
}

// DDL returns the statements that create a database's tables and views in
// order: the reference's tables and its args_view as trace_streamer 4.3.7
// exports them, then tracestreamer's own tables and views. Tables in omit are
// left out.
func (ts *Tables) DDL(omit ...*Table) []string {
	var ddl []string
	add := func(tables []*Table) {
		for _, t := range tables {
			if !slices.Contains(omit, t) {
				ddl = append(ddl, t.CreateSQL())
			}
		}
	}
	add(ts.reference)
	ddl = append(ddl, argsView)
	add(ts.own)
	return append(ddl, ownViews()...)
}

// argsView is the reference's view of arguments with their key names and types,
// word for word as its export has it.
const argsView = `CREATE VIEW args_view AS select A.argset, V2.data as keyName, A.id, D.desc, ` +
	`(case when A.datatype==1 then V.data else A.value end) as strValue from args as A ` +
	`left join data_type as D on (D.typeId = A.datatype) left join data_dict as V on V.id = A.value ` +
	`left join data_dict as V2 on V2.id = A.key`

// FlowArrows reads the flow arrows that analysis/flowchains links into
// chains: id, slice_out, slice_in of every arrow between two slices.
const FlowArrows = `SELECT id, slice_out, slice_in FROM flow WHERE slice_in != slice_out`

// SetFlowChain writes one linked slice's callstack HiTrace columns, so that
// SmartPerf-Host, which draws no flow table, links the slices of a flow as
// it links the spans of a HiTrace call chain: ?1 is the first slice of its
// chain (chainId), ?2 the slice its first arrow comes from (parentSpanId;
// NULL for none, written as empty text), ?3 the slice's id; spanId is the
// slice's own id.
const SetFlowChain = `UPDATE callstack SET chainId = CAST(?1 AS TEXT), spanId = CAST(id AS TEXT),
  parentSpanId = coalesce(CAST(?2 AS TEXT), '') WHERE rowid = ?3 + 1`

// ownViews returns the CREATE VIEW statements of tracestreamer's derived views.
func ownViews() []string {
	return []string{
		// Per function (name, url, line) of each CPU profile: self time, and total
		// time counted once per stack (frames below a frame of the same function
		// are not added again).
		`CREATE VIEW js_cpu_profiler_function AS
SELECT t.profile_id, f.data AS name, u.data AS url, n.line_number AS line,
  sum(t.self_time) AS self_time, sum(CASE WHEN t.outermost THEN t.total_time ELSE 0 END) AS total_time,
  sum(t.self_samples) AS samples, count(*) AS nodes
FROM js_cpu_profiler_node_time t
JOIN js_cpu_profiler_node n ON n.rowid = t.node_rowid
JOIN data_dict f ON f.id = n.function_index
JOIN data_dict u ON u.id = n.url_index
GROUP BY t.profile_id, f.data, u.data, n.line_number`,
		// Each node's retainer on its shortest path from the root, with the
		// class of the node and the type and name of the edge from the
		// retainer to it: one step of a path (README: "Why is it alive?").
		`CREATE VIEW js_heap_retainer AS
SELECT s.file_id, s.id, s.distance, c.name AS class, s.retainer_id, et.str_value AS edge_type,
  CASE WHEN et.str_value IN ('element', 'hidden') THEN CAST(s.retainer_edge_name AS TEXT) ELSE es.string END AS edge_name
FROM js_heap_node_stats s
JOIN js_heap_class c ON c.file_id = s.file_id AND c.class_id = s.class_id
LEFT JOIN (SELECT file_id, row_number() OVER (PARTITION BY file_id ORDER BY rowid) - 1 AS code, str_value
  FROM js_heap_info WHERE key = 'edge_types' AND type = 0) et
  ON et.file_id = s.file_id AND et.code = s.retainer_edge_type
LEFT JOIN js_heap_string es ON es.file_id = s.file_id AND es.file_index = s.retainer_edge_name
  AND et.str_value NOT IN ('element', 'hidden')`,
		// The class summary with DevTools' column names, largest retained size first.
		`CREATE VIEW js_heap_class_summary AS
SELECT file_id, name AS constructor, min_distance AS distance, count AS objects,
  shallow_size, retained_size
FROM js_heap_class WHERE count > 0 ORDER BY file_id, retained_size DESC`,
	}
}
