package schema

// nullable lists, per table, the columns that tracestreamer's writers may
// leave NULL (or, in an INT column, fill with a REAL): what a value is missing
// from, or what varies in kind. Every other column always gets a value of its
// declared kind. The generated row types (package tables) follow it.
var nullable = map[string][]string{
	"callstack": {"dur", "cat", "name", "cookie", "parent_id", "argsetid", "chainId", "spanId", "parentSpanId",
		"flag", "trace_level", "trace_tag", "custom_category", "custom_args"},
	"callstack_extra": {"thread_ts", "thread_dur", "async_track_id", "async_parent_id", "end_itid", "stack_frame_id",
		"end_stack_frame_id", "cname", "overlap"},
	"instant":           {"name", "ref", "wakeup_from"},
	"instant_extra":     {"cat", "argsetid", "stack_frame_id"},
	"flow":              {"cat", "name", "argsetid"},
	"flow_event":        {"cat", "name", "flow_key", "bp", "slice_id", "flow_id", "argsetid"},
	"metadata_event":    {"ts", "name", "argsetid"},
	"memory_dump":       {"dump_id", "level_of_detail", "extra_json", "argsetid"},
	"memory_dump_value": {"path", "guid", "type", "units", "int_value", "str_value"},
	"memory_dump_edge":  {"type"},
	"clock_sync_marker": {"issue_ts"},
	"context_event":     {"cat", "name", "scope"},
	"linked_id":         {"cat", "name", "scope"},
	"stack_sample":      {"cpu_profile_id", "cpu", "name", "frame_id", "weight", "argsetid"},
	"stack_frame":       {"ipid", "cpu_profile_id", "parent_id", "name", "category", "url", "script_id", "line", "column"},
	"async_track":       {"cat", "name", "scope", "ipid"},
	"process_measure":   {"dur", "value"},
	"object_instance":   {"scope", "cat", "name", "delete_ts", "delete_itid"},
	"object_snapshot":   {"cat", "name", "base_type", "argsetid"},
	"process":           {"name", "start_ts"},
	"thread":            {"name", "start_ts", "end_ts"},
	"args":              {"value"},
	"js_heap_edges":     {"from_node_id", "to_node_id"},
	// The root and the nodes no path reaches have no retainer.
	"js_heap_node_stats": {"retainer_id", "retainer_edge", "retainer_edge_type", "retainer_edge_name"},
	// A trace starts at a root, which no edge reaches.
	"js_heap_leak_path": {"edge_type", "edge_name"},
	"js_config":         {"interval", "capture_numeric_value", "cpu_profiler_interval"},
}

// mayHoldReal lists, per table, the INT columns whose writers store a REAL for
// a value that is not a whole number (rows.R): argument values, counter values
// and sample weights.
var mayHoldReal = map[string][]string{
	"args":            {"value"},
	"process_measure": {"value"},
	"stack_sample":    {"weight"},
}

// markNullable sets Column.Null from nullable (and Column.MayHoldReal from
// mayHoldReal). It panics on a name that is
// no column: the declarations are constant, and every test builds them.
func (ts *Tables) markNullable() {
	for _, t := range []*Table{ts.Process, ts.Thread, ts.TraceRange, ts.DataType, ts.Stat, ts.Args, ts.Meta,
		ts.TraceConfig, ts.DataDict, ts.DatasourceClockID, ts.ClockSnapshot, ts.JSHeapFiles, ts.JSHeapEdges,
		ts.JSHeapInfo, ts.JSHeapLocation, ts.JSHeapNodes, ts.JSHeapSample, ts.JSHeapString,
		ts.JSHeapTraceFunctionInfo, ts.JSHeapTraceNode, ts.JSCPUProfilerNode, ts.JSCPUProfilerSample, ts.JSConfig,
		ts.Source, ts.JSCPUProfile, ts.JSHeapNodeStats, ts.JSHeapClass, ts.JSHeapClassDiff, ts.JSCPUProfilerNodeTime,
		ts.JSHeapLeak, ts.JSHeapLeakPath, ts.JSHeapLeakCluster,
		ts.Callstack, ts.Instant, ts.Measure, ts.ProcessMeasure, ts.MeasureFilter, ts.ProcessMeasureFilter,
		ts.CallstackExtra, ts.AsyncTrack, ts.InstantExtra, ts.Flow, ts.FlowEvent, ts.ObjectInstance, ts.ObjectSnapshot,
		ts.MemoryDump, ts.MemoryDumpValue, ts.MemoryDumpEdge, ts.ClockSyncMarker, ts.ContextEvent, ts.LinkedID,
		ts.StackFrame, ts.CPUProfile, ts.StackSample, ts.MetadataEvent, ts.SystemTraceEvents} {
		for _, name := range nullable[t.Name] {
			i := t.column(name)
			if i < 0 {
				panic("schema: nullable column " + name + " is not a column of " + t.Name)
			}
			t.Columns[i].Null = true
		}
		for _, name := range mayHoldReal[t.Name] {
			i := t.column(name)
			if i < 0 || !t.Columns[i].Null {
				panic("schema: column " + name + " of " + t.Name + " may hold a REAL but is not listed as nullable")
			}
			t.Columns[i].MayHoldReal = true
		}
	}
}

// column returns the position of the column named, or -1.
func (t *Table) column(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}
