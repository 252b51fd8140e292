// Package schema defines the output tables: names, column order and SQLite types,
// exactly as the reference trace_streamer exports them (docs/format/README.md#tables), plus the
// few tables tracestreamer adds.
//
// Tables are plain rowid tables without primary keys; rows are appended in the
// reference's order so that rowid order matches it.
package schema

import (
	"reflect"
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
	// in an INT column (declared with the table, see Tables); the generated
	// row field is then a rows.Int or rows.Text instead of an int64 or
	// string. It changes no DDL.
	Null bool
	// MayHoldReal tells that an INT column's writers store a REAL where the
	// value is not a whole number (argument values, counter values, sample
	// weights); readers that need one type a column look at its values.
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

// table declares a table from its columns written as in SQL ("id INT, name
// TEXT"), each optionally followed by NULL (writers may leave it NULL) and
// then REAL (an INT column whose writers may store a REAL); INTTEXT is a
// column declared INT that holds text. It panics on anything else: the
// declarations are constant, and every test builds them.
func table(name, columns string) *Table {
	var cols []Column
	for _, c := range strings.Split(columns, ",") {
		words := strings.Fields(c)
		if len(words) < 2 {
			panic("schema: column without a type in table " + name + ": " + c)
		}
		col := Column{Name: words[0]}
		switch words[1] {
		case "INT":
			col.Type = Int
		case "TEXT":
			col.Type = Text
		case "REAL":
			col.Type = Real
		case "INTTEXT":
			col.Type = IntText
		default:
			panic("schema: unknown type " + words[1] + " in table " + name)
		}
		switch strings.Join(words[2:], " ") {
		case "":
		case "NULL":
			col.Null = true
		case "NULL REAL":
			if col.Type != Int {
				panic("schema: column " + col.Name + " of " + name + " may hold a REAL but is not an INT column")
			}
			col.Null, col.MayHoldReal = true, true
		default:
			panic("schema: unknown column modifiers in table " + name + ": " + c)
		}
		cols = append(cols, col)
	}
	return newTable(name, cols...)
}

// Tables is the set of output tables of one database, in creation order.
// A new value is made per database so that nothing is shared between runs.
//
// Each table tracestreamer fills is declared once, here: a field whose tag
// gives the table's name and its columns in export order, each a name, a
// declared type (INT, TEXT, REAL, or INTTEXT: declared INT, values text) and,
// when tracestreamer's writers may leave it NULL, NULL; an INT column whose
// writers store a REAL where a value is not a whole number adds REAL after
// NULL. New makes the tables from the tags, the generator of package tables
// (internal/cmd/gentables) reads them through New, and referenceTables places
// the reference's own among its tables. Every other table of ours is created
// after the reference's, in field order.
type Tables struct {
	// The reference's tables (reference.go places them), filled by every input.
	Process           *Table `table:"process(id INT, ipid INT, pid INT, name TEXT NULL, start_ts INT NULL, switch_count INT, thread_count INT, slice_count INT, mem_count INT)"`
	Thread            *Table `table:"thread(id INT, itid INT, tid INT, name TEXT NULL, start_ts INT NULL, end_ts INT NULL, ipid INT, is_main_thread INT, switch_count INT)"`
	TraceRange        *Table `table:"trace_range(start_ts INT, end_ts INT)"`
	DataType          *Table `table:"data_type(id INT, typeId INT, desc TEXT)"`
	Stat              *Table `table:"stat(event_name TEXT, stat_type TEXT, count INT, serverity TEXT, source TEXT)"`
	Args              *Table `table:"args(id INT, key INT, datatype INT, value INT NULL REAL, argset INT)"`
	Meta              *Table `table:"meta(name TEXT, value TEXT)"`
	TraceConfig       *Table `table:"trace_config(id INT, trace_source TEXT, key TEXT, value TEXT)"`
	DataDict          *Table `table:"data_dict(id INT, data TEXT)"`
	DatasourceClockID *Table `table:"datasource_clockid(id INT, data_source_name TEXT, clock_id INT)"`
	ClockSnapshot     *Table `table:"clock_snapshot(id INT, clock_id INT, ts INT, clock_name TEXT)"`

	// The reference's heap, CPU profile and ArkTS config tables.
	JSHeapFiles             *Table `table:"js_heap_files(id INT, file_name TEXT, start_time INT, end_time INT, self_size INT)"`
	JSHeapEdges             *Table `table:"js_heap_edges(file_id INT, edge_index INT, type INT, name_or_index INT, to_node INT, from_node_id INT NULL, to_node_id INT NULL)"`
	JSHeapInfo              *Table `table:"js_heap_info(file_id INT, key TEXT, type INT, int_value INT, str_value TEXT)"`
	JSHeapLocation          *Table `table:"js_heap_location(file_id INT, object_index INT, script_id INT, line INT, column INT)"`
	JSHeapNodes             *Table `table:"js_heap_nodes(file_id INT, node_index INT, type INT, name INT, id INT, self_size INT, edge_count INT, trace_node_id INT, detachedness INT)"`
	JSHeapSample            *Table `table:"js_heap_sample(file_id INT, timestamp_us INT, last_assigned_id INT)"`
	JSHeapString            *Table `table:"js_heap_string(file_id INT, file_index INT, string TEXT)"`
	JSHeapTraceFunctionInfo *Table `table:"js_heap_trace_function_info(file_id INT, function_index INT, function_id INT, name INT, script_name INT, script_id INT, line INT, column INT)"`
	JSHeapTraceNode         *Table `table:"js_heap_trace_node(file_id INT, id INT, function_info_index INT, count INT, size INT, parent_id INT)"`
	JSCPUProfilerNode       *Table `table:"js_cpu_profiler_node(function_id INT, function_index INT, script_id TEXT, url_index INT, line_number INT, column_number INT, hit_count INT, children INTTEXT, parent_id INT)"`
	JSCPUProfilerSample     *Table `table:"js_cpu_profiler_sample(id INT, function_id INT, start_time INT, end_time INT, dur INT)"`
	JSConfig                *Table `table:"js_config(pid INT, type INT, interval INT NULL, capture_numeric_value INT NULL, trace_allocation INT, enable_cpu_profiler INT, cpu_profiler_interval INT NULL)"`

	// Source has one row per input file of the run, and JSCPUProfile one row per
	// CPU profile (tracestreamer's own tables).
	Source       *Table `table:"source(id INT, path TEXT, format TEXT, compression TEXT, bytes INT, sha256 TEXT, heap_file_ids TEXT, cpu_profile_ids TEXT)"`
	JSCPUProfile *Table `table:"js_cpu_profile(id INT, source_id INT, first_node_rowid INT, node_count INT, first_sample_id INT, sample_count INT, start_time INT, end_time INT)"`

	// JSHeapNativeSize has the native size of each heap node that has one
	// (ArkTS's native_size node field: .rawheap dumps, ArkTS snapshots since
	// 2024), a row per node whose native size is not 0: V8 snapshots have none.
	JSHeapNativeSize *Table `table:"js_heap_native_size(file_id INT, node_index INT, native_size INT)"`

	// Heap analysis: per node (the root and the nodes no path reaches have no
	// retainer), per class, and the comparison of consecutive snapshots of
	// one input.
	JSHeapNodeStats *Table `table:"js_heap_node_stats(file_id INT, node_index INT, id INT, dominator_id INT, retained_size INT, distance INT, shallow_size INT, class_id INT, retainer_id INT NULL, retainer_edge INT NULL, retainer_edge_type INT NULL, retainer_edge_name INT NULL)"`
	JSHeapClass     *Table `table:"js_heap_class(file_id INT, class_id INT, name TEXT, count INT, shallow_size INT, retained_size INT, min_distance INT)"`
	JSHeapClassDiff *Table `table:"js_heap_class_diff(base_file_id INT, file_id INT, name TEXT, added_count INT, removed_count INT, count_delta INT, added_size INT, removed_size INT, size_delta INT)"`

	// JSCPUProfilerNodeTime has each CPU node's self and total time.
	JSCPUProfilerNodeTime *Table `table:"js_cpu_profiler_node_time(profile_id INT, node_rowid INT, function_id INT, self_time INT, total_time INT, self_samples INT, outermost INT)"`

	// Leaks found by comparing three heap files the way memlab does: the
	// leaked objects, their traces from the roots (a trace starts at a root,
	// which no edge reaches) and their clusters.
	JSHeapLeak        *Table `table:"js_heap_leak(file_id INT, node_index INT, id INT, type TEXT, name TEXT, self_size INT, retained_size INT, cluster_id INT, path_length INT, baseline_file_id INT, target_file_id INT)"`
	JSHeapLeakPath    *Table `table:"js_heap_leak_path(file_id INT, leak_id INT, depth INT, node_id INT, type TEXT, name TEXT, class TEXT, edge_type TEXT NULL, edge_name TEXT NULL)"`
	JSHeapLeakCluster *Table `table:"js_heap_leak_cluster(file_id INT, cluster_id INT, leak_count INT, retained_size INT, leak_id INT, path TEXT)"`

	// Reference tables filled by the Trace Event (Chrome JSON) importer
	// (docs/format/traceevent.md#tables).
	Callstack            *Table `table:"callstack(id INT, ts INT, dur INT NULL, callid INT, cat TEXT NULL, name TEXT NULL, depth INT, cookie INT NULL, parent_id INT NULL, argsetid INT NULL, chainId TEXT NULL, spanId TEXT NULL, parentSpanId TEXT NULL, flag TEXT NULL, trace_level TEXT NULL, trace_tag TEXT NULL, custom_category TEXT NULL, custom_args TEXT NULL, child_callid INT)"`
	Instant              *Table `table:"instant(ts INT, name TEXT NULL, ref INT NULL, wakeup_from INT NULL, ref_type TEXT, value REAL)"`
	Measure              *Table `table:"measure(type TEXT, ts INT, dur INT, value INT, filter_id INT)"`
	ProcessMeasure       *Table `table:"process_measure(type TEXT, ts INT, dur INT NULL, value INT NULL REAL, filter_id INT)"`
	MeasureFilter        *Table `table:"measure_filter(id INT, type TEXT, name TEXT, source_arg_set_id INT)"`
	ProcessMeasureFilter *Table `table:"process_measure_filter(id INT, name TEXT, ipid INT)"`

	// The Trace Event importer's own tables (docs/format/traceevent.md#tables).
	CallstackExtra    *Table `table:"callstack_extra(callstack_id INT, thread_ts INT NULL, thread_dur INT NULL, async_track_id INT NULL, async_parent_id INT NULL, end_itid INT NULL, stack_frame_id INT NULL, end_stack_frame_id INT NULL, cname TEXT NULL, overlap INT NULL)"`
	AsyncTrack        *Table `table:"async_track(id INT, kind TEXT, cat TEXT NULL, name TEXT NULL, scope TEXT NULL, id_kind TEXT, raw_id TEXT, ipid INT NULL)"`
	InstantExtra      *Table `table:"instant_extra(instant_rowid INT, scope TEXT, cat TEXT NULL, itid INT, argsetid INT NULL, stack_frame_id INT NULL)"`
	Flow              *Table `table:"flow(id INT, version INT, slice_out INT, slice_in INT, cat TEXT NULL, name TEXT NULL, flow_key TEXT, argsetid INT NULL)"`
	FlowEvent         *Table `table:"flow_event(id INT, ts INT, itid INT, phase TEXT, cat TEXT NULL, name TEXT NULL, flow_key TEXT NULL, bp TEXT NULL, slice_id INT NULL, flow_id INT NULL, argsetid INT NULL)"`
	ObjectInstance    *Table `table:"object_instance(id INT, ipid INT, scope TEXT NULL, id_kind TEXT, raw_id TEXT, cat TEXT NULL, name TEXT NULL, create_ts INT, create_itid INT, delete_ts INT NULL, delete_itid INT NULL, explicit_create INT)"`
	ObjectSnapshot    *Table `table:"object_snapshot(id INT, object_id INT, ts INT, itid INT, cat TEXT NULL, name TEXT NULL, base_type TEXT NULL, argsetid INT NULL)"`
	MemoryDump        *Table `table:"memory_dump(id INT, dump_id TEXT NULL, kind TEXT, ts INT, ipid INT, itid INT, level_of_detail TEXT NULL, extra_json TEXT NULL, argsetid INT NULL)"`
	MemoryDumpValue   *Table `table:"memory_dump_value(id INT, memory_dump_id INT, source TEXT, path TEXT NULL, guid TEXT NULL, attr TEXT, type TEXT NULL, units TEXT NULL, int_value INT NULL, str_value TEXT NULL)"`
	MemoryDumpEdge    *Table `table:"memory_dump_edge(id INT, memory_dump_id INT, source_guid TEXT, target_guid TEXT, importance INT, type TEXT NULL)"`
	ClockSyncMarker   *Table `table:"clock_sync_marker(id INT, sync_id TEXT, ts INT, issue_ts INT NULL, itid INT, source TEXT)"`
	ContextEvent      *Table `table:"context_event(id INT, ts INT, itid INT, phase TEXT, cat TEXT NULL, name TEXT NULL, scope TEXT NULL, id_kind TEXT, raw_id TEXT)"`
	LinkedID          *Table `table:"linked_id(id INT, ts INT, itid INT, cat TEXT NULL, name TEXT NULL, scope TEXT NULL, id_kind TEXT, raw_id TEXT, linked_raw_id TEXT)"`
	StackFrame        *Table `table:"stack_frame(id INT, source TEXT, ipid INT NULL, cpu_profile_id INT NULL, frame_key TEXT, parent_id INT NULL, name TEXT NULL, category TEXT NULL, url TEXT NULL, script_id TEXT NULL, line INT NULL, column INT NULL)"`
	CPUProfile        *Table `table:"cpu_profile(id INT, ipid INT, itid INT, profile_key TEXT, start_ts INT)"`
	StackSample       *Table `table:"stack_sample(id INT, source TEXT, cpu_profile_id INT NULL, ts INT, itid INT, cpu INT NULL, name TEXT NULL, frame_id INT NULL, weight INT NULL REAL, argsetid INT NULL)"`
	MetadataEvent     *Table `table:"metadata_event(id INT, ts INT NULL, ipid INT, itid INT, name TEXT NULL, argsetid INT NULL)"`
	SystemTraceEvents *Table `table:"system_trace_events(id INT, kind TEXT, seq INT, data TEXT)"`

	// reference is every table of trace_streamer 4.3.7's export in its order
	// (the named ones above among them; the rest stay empty), own are
	// tracestreamer's tables, created after them.
	reference, own []*Table
}

// New returns the table definitions.
func New() *Tables {
	ts := &Tables{}
	v := reflect.ValueOf(ts).Elem()
	var named []*Table
	for i := range v.NumField() {
		f := v.Type().Field(i)
		decl, ok := f.Tag.Lookup("table")
		if !ok {
			continue
		}
		name, columns, ok := strings.Cut(strings.TrimSuffix(decl, ")"), "(")
		if !ok {
			panic("schema: the tag of Tables." + f.Name + " is not name(columns)")
		}
		t := table(name, columns)
		v.Field(i).Set(reflect.ValueOf(t))
		named = append(named, t)
	}
	ts.reference = ts.referenceTables()
	for _, t := range named {
		if !slices.Contains(ts.reference, t) {
			ts.own = append(ts.own, t)
		}
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
