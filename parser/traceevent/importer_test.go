package traceevent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// imported is the result of importing a trace into memory.
type imported struct {
	mem    *rows.Memory
	log    *stat.Log
	rng    *rows.Range
	dict   map[int64]string
	tables *schema.Tables
}

// importText imports one trace file given as text.
func importText(t *testing.T, text string, opts Options) *imported {
	t.Helper()
	mem := rows.NewMemory()
	ts := schema.New()
	res := &imported{mem: mem, log: stat.NewLog(nil), rng: &rows.Range{}, tables: ts}
	dict := tables.NewDict(mem, ts)
	im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: res.rng, Log: res.log}, opts)
	if err := im.Read(context.Background(), strings.NewReader(text), Input{Path: "test.json"}); err != nil {
		t.Fatal(err)
	}
	im.Finish()
	dict.Flush()
	res.dict = map[int64]string{}
	for _, r := range mem.Rows["data_dict"] {
		res.dict[r[0].Int] = r[1].Text
	}
	return res
}

// lines joins JSON events into the array form.
func lines(events ...string) string { return "[" + strings.Join(events, ",\n") + "]" }

// cell renders a value as the spec's examples do: - for NULL, S for the
// 4294967295 sentinel.
func render(v rows.Value) string {
	switch {
	case v.Null:
		return "-"
	case v.IsText:
		return v.Text
	case v.IsReal:
		return strconv.FormatFloat(v.Real, 'g', -1, 64)
	case v.Int == invalidID:
		return "S"
	}
	return strconv.FormatInt(v.Int, 10)
}

// table renders the rows of a table, with the columns named (all if none).
func (r *imported) table(name string, cols ...string) []string {
	var t *schema.Table
	for _, tb := range r.tables.All() {
		if tb.Name == name {
			t = tb
		}
	}
	idx := map[string]int{}
	for i, c := range t.Columns {
		idx[c.Name] = i
	}
	if len(cols) == 0 {
		for _, c := range t.Columns {
			cols = append(cols, c.Name)
		}
	}
	var out []string
	for _, row := range r.mem.Rows[name] {
		if row == nil {
			continue // a rowid gap (callstack_extra)
		}
		var parts []string
		for _, c := range cols {
			i, ok := idx[c]
			if !ok {
				panic("no column " + c + " in " + name)
			}
			parts = append(parts, render(row[i]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// args renders arg sets as "set key=value(type)".
func (r *imported) args() []string {
	var out []string
	for _, row := range r.mem.Rows["args"] {
		v := render(row[3])
		if row[2].Int == event.ArgString && !row[3].Null {
			v = strconv.Quote(r.dict[row[3].Int])
		}
		out = append(out, fmt.Sprintf("%d %s=%s(%d)", row[4].Int, r.dict[row[1].Int], v, row[2].Int))
	}
	return out
}

// stats renders the non-zero JSON stat cells.
func (r *imported) stats() []string {
	var out []string
	for _, row := range r.log.Rows() {
		if row.Count != 0 && strings.HasPrefix(row.Event, "json_") {
			out = append(out, fmt.Sprintf("%s/%s=%d", row.Event, row.Type, row.Count))
		}
	}
	return out
}

func (r *imported) traceRange() string {
	s, e := r.rng.Bounds()
	return fmt.Sprintf("%d %d", s, e)
}

type want struct {
	table string
	cols  []string
	rows  []string
}

func TestWorkedExamples(t *testing.T) {
	cs := []string{"id", "ts", "dur", "callid", "cat", "name", "depth", "cookie", "parent_id", "argsetid", "child_callid"}
	cases := []struct {
		name  string
		input string
		want  []want
		stats []string // non-zero JSON stat cells, received included
		rng   string
	}{
		{
			name: "E1 B/E with nested X and thread instant",
			input: lines(`{"ph":"B","pid":1,"tid":2,"ts":10,"name":"A","cat":"c"}`,
				`{"ph":"X","pid":1,"tid":2,"ts":12,"dur":3,"name":"B1"}`,
				`{"ph":"i","pid":1,"tid":2,"ts":13,"name":"I","s":"t"}`,
				`{"ph":"E","pid":1,"tid":2,"ts":20}`),
			want: []want{
				{"callstack", cs, []string{"0 10000 10000 2 c A 0 - S - S", "1 12000 3000 2 - B1 1 - 0 - S",
					"2 13000 0 2 - I 2 - 1 - S"}},
				{"process", []string{"id", "pid", "name", "thread_count", "slice_count", "mem_count"},
					[]string{"0 0 swapper 0 0 0", "1 1 - 2 1 0"}},
				{"thread", []string{"id", "tid", "ipid", "is_main_thread"}, []string{"0 0 0 0", "1 1 1 1", "2 2 1 0"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=4", "json_begin/received=1",
				"json_end/received=1", "json_complete/received=1", "json_instant/received=1"},
			rng: "10000 20000",
		},
		{
			name: "E2 unmatched E, E for a non-top slice, truncation",
			input: lines(`{"ph":"E","pid":1,"tid":1,"ts":5,"name":"X"}`,
				`{"ph":"B","pid":1,"tid":1,"ts":10,"name":"outer"}`,
				`{"ph":"B","pid":1,"tid":1,"ts":11,"name":"inner"}`,
				`{"ph":"E","pid":1,"tid":1,"ts":12,"name":"outer"}`,
				`{"ph":"X","pid":1,"tid":1,"ts":30,"dur":1,"name":"later"}`),
			want: []want{{"callstack", cs, []string{"0 10000 2000 1 - outer 0 - S - S",
				"1 11000 1000 1 - inner 1 - 0 - S", "2 30000 1000 1 - later 0 - S - S"}}},
			stats: []string{"json_file/received=1", "json_event/received=5", "json_begin/received=2",
				"json_begin/data_lost=1", "json_end/received=2", "json_end/not_match=1", "json_complete/received=1"},
			rng: "10000 31000",
		},
		{
			name: "E3 X written child-first, same ts",
			input: lines(`{"ph":"X","pid":7,"tid":7,"ts":1,"dur":5,"name":"Child"}`,
				`{"ph":"X","pid":7,"tid":7,"ts":1,"dur":10,"name":"Parent"}`),
			want: []want{{"callstack", cs, []string{"0 1000 10000 1 - Parent 0 - S - S",
				"1 1000 5000 1 - Child 1 - 0 - S"}}},
		},
		{
			name: "E4 E-first ordering and a zero-length pair",
			input: lines(`{"ph":"B","pid":1,"tid":1,"ts":0,"name":"P"}`,
				`{"ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"name":"Y"}`,
				`{"ph":"E","pid":1,"tid":1,"ts":5,"name":"P"}`,
				`{"ph":"B","pid":1,"tid":1,"ts":7,"name":"Z"}`,
				`{"ph":"E","pid":1,"tid":1,"ts":7,"name":"Z"}`),
			want: []want{{"callstack", cs, []string{"0 0 5000 1 - P 0 - S - S", "1 5000 1000 1 - Y 0 - S - S",
				"2 7000 0 1 - Z 0 - S - S"}}},
		},
		{
			name: "E5 nestable async with id2.local",
			input: lines(`{"ph":"b","cat":"net","name":"req","id2":{"local":"0x1"},"pid":5,"tid":6,"ts":100}`,
				`{"ph":"b","cat":"net","name":"dns","id2":{"local":"0x1"},"pid":5,"tid":6,"ts":110}`,
				`{"ph":"n","cat":"net","name":"mark","id2":{"local":"0x1"},"pid":5,"tid":7,"ts":115}`,
				`{"ph":"e","cat":"net","name":"dns","id2":{"local":"0x1"},"pid":5,"tid":6,"ts":120}`,
				`{"ph":"e","cat":"net","name":"req","id2":{"local":"0x1"},"pid":5,"tid":7,"ts":150,"args":{"status":200}}`,
				`{"ph":"e","cat":"net","name":"req","id2":{"local":"0x1"},"pid":6,"tid":6,"ts":160}`),
			want: []want{
				{"callstack", cs, []string{"0 100000 50000 1 net req 0 0 2 0 2", "1 110000 10000 1 net dns 1 0 2 - 2",
					"2 115000 0 1 net mark 2 0 3 - 3"}},
				{"async_track", nil, []string{"0 nestable net - - id2.local 0x1 1"}},
				{"callstack_extra", []string{"callstack_id", "async_track_id", "async_parent_id", "end_itid"},
					[]string{"0 0 - 3", "1 0 0 2", "2 0 1 3"}},
				{"thread", []string{"id", "tid", "ipid"}, []string{"0 0 0", "1 5 1", "2 6 1", "3 7 1", "4 6 2"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=6", "json_nestable_begin/received=2",
				"json_nestable_instant/received=1", "json_nestable_end/received=3", "json_nestable_end/not_match=1"},
		},
		{
			name: "E6 flows v1",
			input: lines(`{"ph":"X","pid":1,"tid":1,"ts":10,"dur":10,"name":"send"}`,
				`{"ph":"s","pid":1,"tid":1,"ts":12,"name":"msg","cat":"ipc","id":"0x7"}`,
				`{"ph":"t","pid":1,"tid":2,"ts":30,"name":"msg","cat":"ipc","id":"0x7"}`,
				`{"ph":"X","pid":1,"tid":2,"ts":25,"dur":10,"name":"relay"}`,
				`{"ph":"f","pid":1,"tid":3,"ts":40,"name":"msg","cat":"ipc","id":"0x7"}`,
				`{"ph":"X","pid":1,"tid":3,"ts":42,"dur":5,"name":"recv"}`,
				`{"ph":"f","pid":1,"tid":2,"ts":31,"name":"other","cat":"ipc","id":"0x8","bp":"e"}`),
			want: []want{
				{"callstack", []string{"id", "name", "callid"}, []string{"0 send 1", "1 relay 2", "2 recv 3"}},
				{"flow", nil, []string{"0 1 0 1 ipc msg 0x7 -", "1 1 1 2 ipc msg 0x7 -"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=7", "json_complete/received=3",
				"json_flow_start/received=1", "json_flow_step/received=1", "json_flow_end/received=2",
				"json_flow_end/not_match=1"},
		},
		{
			// Every s/t/f is a flow_event row. Slices are closed intervals
			// for them: the s at A's end binds A although B begins then, the
			// s at a thread instant binds the instant. Chrome's LatencyInfo
			// steps after the f that closed their key make no arrow but keep
			// their row and slice.
			name: "E6b flow events",
			input: lines(`{"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"A"}`,
				`{"ph":"s","pid":1,"tid":1,"ts":10,"cat":"input","name":"L","id":1}`,
				`{"ph":"X","pid":1,"tid":1,"ts":10,"dur":10,"name":"B"}`,
				`{"ph":"f","pid":1,"tid":1,"ts":12,"cat":"input","name":"L","id":1,"bp":"e"}`,
				`{"ph":"t","pid":1,"tid":1,"ts":15,"cat":"input","name":"L","id":1,"args":{"step":"Swap"}}`,
				`{"ph":"f","pid":1,"tid":1,"ts":30,"cat":"input","name":"L","id":1}`,
				`{"ph":"X","pid":1,"tid":1,"ts":40,"dur":5,"name":"C"}`,
				`{"ph":"s","pid":1,"tid":1,"ts":41,"cat":"input","name":"L","id":{}}`,
				`{"ph":"i","pid":1,"tid":2,"ts":50,"name":"I"}`,
				`{"ph":"s","pid":1,"tid":2,"ts":50,"cat":"input","name":"L","id":2}`,
				`{"ph":"f","pid":1,"tid":2,"ts":60,"cat":"input","name":"L","id":2,"bp":"e"}`),
			want: []want{
				{"callstack", []string{"id", "name", "callid"}, []string{"0 A 1", "1 B 1", "2 C 1", "3 I 2"}},
				{"flow", nil, []string{"0 1 0 1 input L 1 -"}},
				{"flow_event", nil, []string{"0 10000 1 s input L 1 - 0 - -", "1 12000 1 f input L 1 e 1 0 -",
					"2 15000 1 t input L 1 - 1 - 0", "3 30000 1 f input L 1 - 2 - -", "4 41000 1 s input L - - - - -",
					"5 50000 2 s input L 2 - 3 - -", "6 60000 2 f input L 2 e - - -"}},
			},
		},
		{
			name: "E7 flows v2 with fan-out and a step",
			input: lines(`{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"name":"P","bind_id":"0xa","flow_out":true}`,
				`{"ph":"X","pid":1,"tid":2,"ts":10,"dur":5,"name":"C1","bind_id":"0xa","flow_in":true}`,
				`{"ph":"B","pid":1,"tid":3,"ts":12,"name":"C2","bind_id":"0xa","flow_in":true,"flow_out":true}`,
				`{"ph":"E","pid":1,"tid":3,"ts":14}`,
				`{"ph":"X","pid":1,"tid":2,"ts":20,"dur":1,"name":"C3","bind_id":"0xa","flow_in":true}`),
			want: []want{
				{"callstack", []string{"id", "name"}, []string{"0 P", "1 C1", "2 C2", "3 C3"}},
				{"flow", nil, []string{"0 2 0 1 - - 0xa -", "1 2 0 2 - - 0xa -", "2 2 2 3 - - 0xa -"}},
			},
		},
		{
			name: "E8 counters",
			input: lines(`{"ph":"C","pid":9,"ts":0,"name":"mem","args":{"heap":10,"stack":"2.5"}}`,
				`{"ph":"C","pid":9,"ts":10,"name":"mem","args":{"heap":12,"stack":3}}`,
				`{"ph":"C","pid":9,"ts":20,"name":"mem","id":"a","args":{"heap":1}}`,
				`{"ph":"C","pid":9,"ts":30,"name":"mem","args":{"heap":true}}`),
			want: []want{
				{"measure_filter", nil, []string{"0 process_measure_filter mem heap 1",
					"1 process_measure_filter mem stack 1", "2 process_measure_filter mem id: a heap 1"}},
				{"process_measure_filter", nil, []string{"0 mem heap 1", "1 mem stack 1", "2 mem id: a heap 1"}},
				{"process_measure", nil, []string{"measure 0 10000 10 0", "measure 0 10000 2.5 1",
					"measure 10000 - 12 0", "measure 10000 - 3 1", "measure 20000 - 1 2"}},
				{"process", []string{"pid", "mem_count"}, []string{"0 0", "9 1"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=4", "json_counter/received=4",
				"json_counter/not_supported=1"},
		},
		{
			name: "E9 instant scopes",
			input: lines(`{"ph":"i","pid":1,"tid":2,"ts":5,"name":"t1","s":"t"}`,
				`{"ph":"I","pid":1,"tid":2,"ts":6,"name":"p1","s":"p","cat":"x","args":{"k":"v"}}`,
				`{"ph":"R","pid":1,"tid":2,"ts":7,"name":"g1","s":"g"}`,
				`{"ph":"i","pid":1,"tid":2,"ts":8,"name":"q","s":"z"}`),
			want: []want{
				{"callstack", cs, []string{"0 5000 0 2 - t1 0 - S - S", "1 8000 0 2 - q 0 - S - S"}},
				{"instant", nil, []string{"6000 p1 1 - ipid 0", "7000 g1 - - global 0"}},
				{"instant_extra", nil, []string{"1 p x 2 0 -", "2 g - 2 - -"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=4", "json_instant/received=3",
				"json_instant/not_supported=1", "json_mark/received=1"},
		},
		{
			name: "E10 metadata names, string pid/tid",
			input: lines(`{"ph":"M","pid":3,"name":"process_name","args":{"name":"Browser"}}`,
				`{"ph":"M","pid":3,"tid":4,"name":"thread_name","args":{"name":"IO"}}`,
				`{"ph":"M","pid":3,"tid":0,"name":"process_labels","args":{"labels":"a,b"}}`,
				`{"ph":"M","pid":3,"tid":4,"name":"thread_sort_index","args":{"sort_index":"2"}}`,
				`{"ph":"X","pid":"gpu","tid":"main","ts":1,"dur":1,"name":"draw"}`),
			want: []want{
				{"process", []string{"id", "pid", "name"}, []string{"0 0 swapper", "1 3 Browser", "2 4294967296 gpu"}},
				{"thread", []string{"id", "tid", "name", "ipid", "is_main_thread"}, []string{"0 0 swapper 0 0",
					"1 3 Browser 1 1", "2 4 IO 1 0", "3 4294967296 gpu 2 1", "4 4294967297 main 2 0"}},
				{"metadata_event", nil, []string{"0 - 1 1 process_name 0", "1 - 1 2 thread_name 1",
					"2 - 1 1 process_labels 2", "3 - 1 2 thread_sort_index 3"}},
				{"callstack", cs, []string{"0 1000 1000 4 - draw 0 - S - S"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=5", "json_pid_tid/received=2",
				"json_complete/received=1", "json_metadata/received=4"},
			rng: "1000 2000",
		},
		{
			name: "E11 object life cycle and snapshots",
			input: lines(`{"ph":"N","pid":1,"tid":1,"ts":10,"name":"Layer","cat":"cc","id":"0x10"}`,
				`{"ph":"O","pid":1,"tid":1,"ts":20,"name":"Layer","cat":"cc","id":"0x10","args":{"snapshot":{"bounds":[1,2],"base_type":"Base"}}}`,
				`{"ph":"D","pid":1,"tid":1,"ts":30,"name":"Layer","cat":"cc","id":"0x10"}`,
				`{"ph":"O","pid":1,"tid":1,"ts":40,"name":"Layer","cat":"cc","id":"0x10","args":{"snapshot":{"size":3}}}`),
			want: []want{
				{"object_instance", nil, []string{"0 1 - id 0x10 cc Layer 10000 1 30000 1 1",
					"1 1 - id 0x10 cc Layer 40000 1 - - 0"}},
				{"object_snapshot", nil, []string{"0 0 20000 1 cc Layer Base 0", "1 1 40000 1 cc Layer - 1"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=4", "json_object_new/received=1",
				"json_object_snapshot/received=2", "json_object_snapshot/not_match=1", "json_object_delete/received=1"},
		},
		{
			name: "E12 clock sync",
			input: lines(`{"ph":"c","pid":1,"tid":1,"ts":100,"name":"clock_sync","args":{"sync_id":"abc"}}`,
				`{"ph":"c","pid":1,"tid":1,"ts":200,"name":"clock_sync","args":{"sync_id":"def","issue_ts":190}}`,
				`{"ph":"c","pid":1,"tid":1,"ts":300,"name":"clock_sync","args":{}}`),
			want: []want{{"clock_sync_marker", nil, []string{"0 abc 100000 - 1 c", "1 def 200000 190000 1 c"}}},
			stats: []string{"json_file/received=1", "json_event/received=3", "json_clock_sync/received=2",
				"json_clock_sync/invalid_data=1"},
		},
		{
			name: "E13 unsorted input",
			input: lines(`{"ph":"X","pid":1,"tid":1,"ts":50,"dur":10,"name":"late"}`,
				`{"ph":"B","pid":1,"tid":1,"ts":20,"name":"early"}`,
				`{"ph":"E","pid":1,"tid":1,"ts":50}`),
			want: []want{{"callstack", cs, []string{"0 20000 30000 1 - early 0 - S - S",
				"1 50000 10000 1 - late 0 - S - S"}}},
		},
		{
			name: "E14 partial array, trailing comma, {}",
			input: `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a"},{},
 {"ph":"X","pid":1,"tid":1,"ts":4,"dur":1,"name":"b"},{"ph":"X","pid":1,"tid":1,"ts":`,
			want: []want{{"callstack", cs, []string{"0 1000 2000 1 - a 0 - S - S", "1 4000 1000 1 - b 0 - S - S"}}},
			stats: []string{"json_file/received=1", "json_file/data_lost=1", "json_file/not_match=1",
				"json_event/received=2", "json_empty_event/received=1", "json_complete/received=2"},
		},
		{
			name: "E14 trailing comma without ]",
			input: `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a"},
 {"ph":"X","pid":1,"tid":1,"ts":4,"dur":1,"name":"b"},`,
			want: []want{{"callstack", cs, []string{"0 1000 2000 1 - a 0 - S - S", "1 4000 1000 1 - b 0 - S - S"}}},
			stats: []string{"json_file/received=1", "json_file/not_match=1", "json_event/received=2",
				"json_trailing_comma/received=1", "json_complete/received=2"},
		},
		{
			name: "E15 legacy async S/T/F across threads",
			input: lines(`{"ph":"S","pid":1,"tid":1,"ts":0,"name":"load","id":"0x5","cat":"c"}`,
				`{"ph":"T","pid":1,"tid":1,"ts":10,"name":"load","id":"0x5","args":{"step":"parse"}}`,
				`{"ph":"F","pid":1,"tid":2,"ts":30,"name":"load","id":"0x5"}`),
			want: []want{
				{"async_track", nil, []string{"0 legacy c load - id 0x5 -"}},
				{"callstack", cs, []string{"0 0 30000 1 c load 0 0 1 - 1", "1 10000 20000 1 c parse 1 0 1 0 1"}},
				{"callstack_extra", []string{"callstack_id", "async_track_id", "async_parent_id", "end_itid"},
					[]string{"0 0 - 2", "1 0 0 2"}},
			},
		},
		{
			name: "E16 process memory dump",
			input: `{"traceEvents":[{"ph":"v","pid":2,"tid":2,"ts":50,"name":"periodic_interval","id":"0x1",
 "args":{"dumps":{"level_of_detail":"light",
   "process_totals":{"resident_set_bytes":"1000"},
   "allocators":{"malloc":{"guid":"1","attrs":{"size":{"type":"scalar","units":"bytes","value":"400"}}}},
   "allocators_graph":[]}}}]}`,
			want: []want{
				{"memory_dump", nil, []string{"0 0x1 process 50000 1 1 light - -"}},
				{"memory_dump_value", nil, []string{"0 0 process_totals - - resident_set_bytes scalar bytes 4096 -",
					"1 0 allocator malloc 1 size scalar bytes 1024 -"}},
				{"trace_config", []string{"key", "value"}, []string{"container object", "compression none",
					"uncompressed_size 320"}},
			},
		},
		{
			name:  "E17 displayTimeUnit does not rescale",
			input: `{"displayTimeUnit":"ns","traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":2.5,"dur":0.0004,"name":"x"}]}`,
			want: []want{
				{"callstack", cs, []string{"0 2500 0 1 - x 0 - S - S"}},
				{"trace_config", []string{"key", "value"}, []string{"container object", "compression none",
					"uncompressed_size 100", "displayTimeUnit ns"}},
			},
			stats: []string{"json_file/received=1", "json_event/received=1", "json_complete/received=1",
				"json_display_time_unit/received=1"},
		},
		{
			name: "open point: a slice open above a closed one at the end keeps dur NULL",
			input: lines(`{"ph":"B","pid":1,"tid":1,"ts":1,"name":"outer"}`,
				`{"ph":"B","pid":1,"tid":1,"ts":2,"name":"inner"}`,
				`{"ph":"E","pid":1,"tid":1,"ts":3,"name":"outer"}`),
			want: []want{{"callstack", []string{"id", "dur", "name"}, []string{"0 2000 outer", "1 - inner"}}},
			stats: []string{"json_file/received=1", "json_event/received=3", "json_begin/received=2",
				"json_begin/not_match=1", "json_end/received=1"},
			rng: "1000 3000",
		},
		{
			name: "open point: dropped events stay out of trace_range and make no process",
			input: lines(`{"ph":"X","pid":1,"tid":1,"ts":10,"dur":1,"name":"a"}`,
				`{"ph":"f","pid":1,"tid":1,"ts":50,"name":"m","id":1}`,
				`{"ph":"D","pid":1,"tid":1,"ts":60,"name":"o","id":1}`,
				`{"ph":"C","pid":1,"ts":70,"name":"c","args":{"v":"x"}}`,
				`{"ph":"X","pid":2,"tid":2,"ts":-5,"dur":1,"name":"bad"}`),
			want: []want{
				{"process", []string{"pid"}, []string{"0", "1"}},
				{"measure_filter", nil, nil},
			},
			stats: []string{"json_file/received=1", "json_event/received=5", "json_complete/received=1",
				"json_complete/invalid_data=1", "json_counter/received=1", "json_counter/not_supported=1",
				"json_flow_end/received=1", "json_flow_end/not_match=1", "json_object_delete/received=1",
				"json_object_delete/not_match=1"},
			rng: "10000 11000",
		},
		{
			name:  "open point: fractional sample weights are kept",
			input: `{"traceEvents":[],"samples":[{"tid":3,"ts":1,"weight":0.5},{"tid":3,"ts":2,"weight":2}]}`,
			want: []want{
				{"stack_sample", []string{"id", "source", "ts", "itid", "weight"}, []string{"0 samples 1000 1 0.5",
					"1 samples 2000 1 2"}},
				{"thread", []string{"id", "tid", "ipid"}, []string{"0 0 0", "1 3 1"}},
			},
			rng: "1000 2000",
		},
		{
			name: "resync after an element whose brackets do not match (docs/format/traceevent.md#resynchronisation)",
			input: `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"},
{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"broken","args":{"x":[1,2}},
{"ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"name":"c"}]`,
			want: []want{{"callstack", []string{"id", "name"}, []string{"0 a", "1 c"}}},
			stats: []string{"json_file/received=1", "json_event/received=3", "json_event/invalid_data=1",
				"json_complete/received=2"},
		},
		{
			name: "an element whose brace never closes ends at the next member that is no key (docs/format/traceevent.md#resynchronisation)",
			input: `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"},
{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"unclosed",
{"ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"name":"lost to the resync"},
{"ph":"X","pid":1,"tid":1,"ts":4,"dur":1,"name":"d","args":{"k":[1,{"x":2}]}}]`,
			want: []want{{"callstack", []string{"id", "name"}, []string{"0 a", "1 d"}}},
			stats: []string{"json_file/received=1", "json_event/received=3", "json_event/invalid_data=1",
				"json_complete/received=2"},
		},
		{
			name: "other syntax errors in an element lose that element only",
			input: `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"},
{"ph":"X","pid":1,"tid":1,"ts":2,,"dur":1,"name":"double comma"},
{"ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"name":"c"}]`,
			want: []want{{"callstack", []string{"id", "name"}, []string{"0 a", "1 c"}}},
			stats: []string{"json_file/received=1", "json_event/received=3", "json_event/invalid_data=1",
				"json_complete/received=2"},
		},
		{
			name: "no next element after a broken one: reading stops, what came before is kept",
			input: `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"},
{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"broken","args":{"x":[1,2}}]`,
			want: []want{{"callstack", []string{"id", "name"}, []string{"0 a"}}},
			stats: []string{"json_file/received=1", "json_file/invalid_data=1", "json_event/received=2",
				"json_event/invalid_data=1", "json_complete/received=1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := importText(t, c.input, Options{})
			for _, w := range c.want {
				got := r.table(w.table, w.cols...)
				if strings.Join(got, "\n") != strings.Join(w.rows, "\n") {
					t.Errorf("%s:\ngot  %q\nwant %q", w.table, got, w.rows)
				}
			}
			if c.stats != nil {
				if got := r.stats(); strings.Join(got, " ") != strings.Join(c.stats, " ") {
					t.Errorf("stat:\ngot  %q\nwant %q", got, c.stats)
				}
			}
			if c.rng != "" {
				if got := r.traceRange(); got != c.rng {
					t.Errorf("trace_range %s, want %s", got, c.rng)
				}
			}
		})
	}
}

// TestArgsMerge checks argument flattening, types, and the merge of E
// arguments into their B (docs/format/traceevent.md#b-and-e, docs/format/traceevent.md#arguments).
func TestArgsMerge(t *testing.T) {
	r := importText(t, lines(
		`{"ph":"B","pid":1,"tid":1,"ts":1,"name":"a","args":{"k":1,"s":"x","o":{"f":1.5,"b":true,"n":null},"l":[7]}}`,
		`{"ph":"E","pid":1,"tid":1,"ts":2,"args":{"s":"y","new":18446744073709551616}}`,
		`{"ph":"B","pid":1,"tid":1,"ts":3,"name":"b"}`,
		`{"ph":"E","pid":1,"tid":1,"ts":4,"args":{"e":{}}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"name":"c","args":"__stripped__"}`,
	), Options{})
	want := []string{`0 k=1(0)`, `0 s="y"(1)`, `0 o.f=1.5(2)`, `0 o.b=1(3)`, `0 o.n=-(1)`, `0 l[0]=7(0)`,
		`0 new="18446744073709551616"(1)`, `1 e="{}"(1)`}
	if got := r.args(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("args:\ngot  %q\nwant %q", got, want)
	}
	if got := r.table("callstack", "name", "argsetid"); strings.Join(got, ",") != "a 0,b 1,c -" {
		t.Errorf("callstack argsetid %q", got)
	}
}

// cancelAtEOF cancels a context when its reader reaches the end of input:
// reading and sorting finish, and the cancellation lands in the merge phase.
type cancelAtEOF struct {
	r      io.Reader
	cancel func()
}

func (c cancelAtEOF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.cancel()
	}
	return n, err
}

// TestCancelInMergePhase: a cancellation after the whole file was read (the
// sorted events being merged and turned into rows) stops the import: Read
// returns context.Canceled and no event is processed. It once ran to the end
// (105 s on a 4.6 GB file after Ctrl-C).
func TestCancelInMergePhase(t *testing.T) {
	var events []string
	for i := range 20000 {
		events = append(events, fmt.Sprintf(`{"ph":"X","name":"s%d","pid":1,"tid":1,"ts":%d,"dur":1}`, i%7, 20000-i))
	}
	mem := rows.NewMemory()
	ts := schema.New()
	im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{}, Log: stat.NewLog(nil)},
		Options{SortBudget: 64 << 10}) // spills: the merge reads runs back
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := im.Read(ctx, cancelAtEOF{strings.NewReader(lines(events...)), cancel}, Input{Path: "t.json"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if start, end := im.env.Range.Bounds(); start != -1 {
		t.Errorf("events processed after the cancellation (trace range %d..%d)", start, end)
	}
}

// TestOutOfRangeIDs: a pid or tid too large for an int64 keeps its identity
// (a synthetic number and its text, like a string id) instead of becoming 0.
func TestOutOfRangeIDs(t *testing.T) {
	r := importText(t, lines(
		`{"ph":"X","name":"a","pid":99999999999999999999,"tid":1e30,"ts":1,"dur":1}`,
		`{"ph":"X","name":"b","pid":99999999999999999999,"tid":1e30,"ts":3,"dur":1}`,
		`{"ph":"X","name":"c","pid":7,"tid":7,"ts":5,"dur":1}`), Options{})
	if got := r.table("process", "id", "pid", "name"); strings.Join(got, ",") != "0 0 swapper,1 4294967296 99999999999999999999,2 7 -" {
		t.Errorf("process %q", got)
	}
	// Thread 1 is the process's main thread, thread 2 the one named 1e30.
	if got := r.table("thread", "id", "tid", "ipid"); strings.Join(got, ",") != "0 0 0,1 4294967296 1,2 4294967297 1,3 7 2" {
		t.Errorf("thread %q", got)
	}
	if got := r.log.Count(stat.JSONPidTid, stat.Received); got != 2 {
		t.Errorf("json_pid_tid received %d", got)
	}
}

// TestLoneSurrogates: a \u escape of half a surrogate pair becomes U+FFFD and
// is counted in json_string/invalid_data, as invalid UTF-8 is; a whole pair
// is not.
func TestLoneSurrogates(t *testing.T) {
	r := importText(t, lines(
		`{"ph":"X","name":"a\ud800b","pid":1,"tid":1,"ts":1,"dur":1}`,
		`{"ph":"X","name":"\udc00","pid":1,"tid":1,"ts":3,"dur":1}`,
		`{"ph":"X","name":"\ud83d\ude00","pid":1,"tid":1,"ts":5,"dur":1}`), Options{})
	if got := r.table("callstack", "name"); strings.Join(got, ",") != "a\uFFFDb,\uFFFD,😀" {
		t.Errorf("names %q", got)
	}
	if got := r.log.Count(stat.JSONString, stat.InvalidData); got != 2 {
		t.Errorf("json_string invalid_data %d, want 2", got)
	}
}

// TestEveryProblem imports a trace with an instance of most problems the
// trackers count (testdata/traceevent/problems.json, also an input of
// scripts/samedump) and checks every non-zero Trace Event stat cell.
func TestEveryProblem(t *testing.T) {
	r := importText(t, string(testutil.Fixture(t, "traceevent/problems.json")), Options{})
	want := []string{
		"json_file/received=1", "json_event/received=47", "json_pid_tid/received=2", "json_begin/received=2",
		"json_begin/not_match=1", "json_end/received=2", "json_end/not_match=1", "json_complete/received=6",
		"json_complete/not_match=1", "json_instant/received=1", "json_instant/not_supported=1",
		"json_counter/received=2", "json_counter/not_supported=1", "json_counter/invalid_data=1",
		"json_nestable_begin/received=1", "json_nestable_begin/not_match=1", "json_nestable_end/received=1",
		"json_nestable_end/not_match=1", "json_async_start/received=3", "json_async_start/data_lost=1",
		"json_async_start/not_match=2", "json_async_step_into/received=3",
		"json_async_step_into/not_match=1", "json_async_step_into/not_supported=1",
		"json_async_step_past/received=1", "json_async_step_past/not_supported=1",
		"json_async_finish/received=1", "json_async_finish/not_match=1", "json_flow_start/received=4",
		"json_flow_start/data_lost=1", "json_flow_start/not_match=1", "json_flow_step/received=1",
		"json_flow_step/not_match=1", "json_flow_end/received=3", "json_flow_end/not_match=1",
		"json_flow_end/not_supported=1", "json_flow_v2/received=4", "json_flow_v2/data_lost=1",
		"json_flow_v2/not_match=1", "json_flow_v2/invalid_data=1", "json_sample/received=3",
		"json_sample/not_match=3", "json_sample/invalid_data=1", "json_object_new/received=2",
		"json_object_new/not_match=1", "json_object_snapshot/received=2", "json_object_snapshot/not_match=1",
		"json_object_snapshot/invalid_data=1", "json_object_delete/received=1",
		"json_object_delete/not_match=1", "json_object_delete/invalid_data=1", "json_metadata/received=2",
		"json_metadata/not_supported=1", "json_metadata/invalid_data=1",
		"json_memory_dump_process/invalid_data=1", "json_clock_sync/invalid_data=1",
		"json_context_enter/invalid_data=1", "json_context_leave/received=1",
		"json_context_leave/not_match=1", "json_linked_id/invalid_data=1",
	}
	if got := r.stats(); !reflect.DeepEqual(got, want) {
		t.Errorf("stat cells\n%q\nwant\n%q", got, want)
	}
}

// TestPanicOnPipelineGoroutine makes the decoding of the third event panic,
// in the first pass (elements) and in the second (sorted records), before
// the decoder is given the item's event (a bad slice bound) and inside the
// decoder, which has overwritten the item's event (bytes that fault when
// read): Read returns an error naming the internal error and the event's
// offset, and the two events before it are imported.
func TestPanicOnPipelineGoroutine(t *testing.T) {
	in := lines(`{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"a"}`, `{"ph":"X","ts":2,"dur":1,"pid":1,"tid":1,"name":"b"}`,
		`{"ph":"X","ts":3,"dur":1,"pid":1,"tid":1,"name":"c"}`, `{"ph":"X","ts":4,"dur":1,"pid":1,"tid":1,"name":"d"}`)
	for _, tc := range []struct {
		name  string
		stage stage
		fault bool // inside the decoder, else before it
	}{
		{"elements, bad bound", elements, false},
		{"records, bad bound", records, false},
		{"elements, in the decoder", elements, true},
		{"records, in the decoder", records, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var bad []byte
			if tc.fault {
				bad = unreadable(t)
			}
			mem := rows.NewMemory()
			ts := schema.New()
			dict := tables.NewDict(mem, ts)
			im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: &rows.Range{}, Log: stat.NewLog(nil)}, Options{})
			im.decodeBatch = func(b *batch, w *worker, s stage) {
				if s == tc.stage && len(b.items) > 2 {
					if tc.fault {
						b.items[2].ref = bad // read by Decode or DecodeRecord
						defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
					} else {
						b.items[2].n, b.items[2].ref = -1, nil // decode slices the buffer with it: a bug
					}
				}
				b.decode(w, s)
			}
			err := im.Read(context.Background(), strings.NewReader(in), Input{Path: "in.json"})
			if !errors.Is(err, ErrInternal) || !strings.Contains(err.Error(), "in.json: internal error at offset 109") {
				t.Errorf("error %v", err)
			}
			im.Finish()
			var names []string
			for _, r := range mem.Rows["callstack"] {
				names = append(names, r[5].Text)
			}
			if strings.Join(names, ",") != "a,b" {
				t.Errorf("slices %q, want the 2 before the panic", names)
			}
		})
	}
}

// TestCounterSeriesLimit: counter series are bounded like threads: with
// --max-counters series made, samples of new series are dropped and counted
// (json_counter data_lost), with a warning naming the flag; the series kept
// go on and their samples are all there.
func TestCounterSeriesLimit(t *testing.T) {
	var events []string
	for i := range 1000 {
		events = append(events, fmt.Sprintf(`{"ph":"C","pid":1,"ts":%d,"name":"c","args":{"s%d":%d,"all":%d}}`, i, i, i, i))
	}
	mem := rows.NewMemory()
	ts := schema.New()
	var warn strings.Builder
	log := stat.NewLog(&warn)
	im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{}, Log: log},
		Options{MaxCounters: 10})
	if err := im.Read(context.Background(), strings.NewReader(lines(events...)), Input{Path: "many.json"}); err != nil {
		t.Fatal(err)
	}
	im.Finish()
	if n := len(mem.Rows["process_measure_filter"]); n != 10 {
		t.Errorf("%d series kept, want 10", n)
	}
	if n := len(mem.Rows["process_measure"]); n != 1000+9 { // "all" in every event, s0 to s8
		t.Errorf("%d samples, want 1009", n)
	}
	if n := log.Count(stat.JSONCounter, stat.DataLost); n != 991 {
		t.Errorf("json_counter data_lost %d, want 991", n)
	}
	if !strings.Contains(warn.String(), "many.json: json_counter data_lost: 991") ||
		!strings.Contains(warn.String(), "(--max-counters)") {
		t.Errorf("warnings %q", warn.String())
	}
}

// TestArgsRepeatedKeysAndUTF8: inside args, a repeated key keeps its first
// place with its last value (json_duplicate_key received), and invalid UTF-8
// in keys and strings is replaced (json_string invalid_data), in every table
// that stores arguments.
func TestArgsRepeatedKeysAndUTF8(t *testing.T) {
	r := importText(t, lines(
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"name\":\"a\",\"args\":{\"a\":1,\"b\":\"v\xff\",\"a\":2}}",
		"{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,\"ts\":2,\"name\":\"g\",\"args\":{\"k\xfe\":{\"x\":1,\"x\":3}}}",
		// The same arguments again: one set, counted again.
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,\"name\":\"a\",\"args\":{\"a\":1,\"b\":\"v\xff\",\"a\":2}}",
		"{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":5,\"name\":\"b\",\"args\":{\"c\":1,\"c\":2}}",
		"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":6,\"args\":{\"d\\ud800\":1}}"), Options{})
	if got, want := r.args(), []string{"0 a=2(0)", "0 b=\"v\uFFFD\"(1)", "1 k\uFFFD.x=3(0)",
		"2 c=2(0)", "2 d\uFFFD=1(0)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("args %q, want %q", got, want)
	}
	stats := strings.Join(r.stats(), " ")
	for _, want := range []string{"json_duplicate_key/received=4", "json_string/invalid_data=4"} {
		if !strings.Contains(stats, want) {
			t.Errorf("stats %s, want %s", stats, want)
		}
	}
	for _, row := range r.mem.Rows["data_dict"] {
		if !utf8.ValidString(row[1].Text) {
			t.Errorf("data_dict %d: invalid UTF-8 %q", row[0].Int, row[1].Text)
		}
	}
}

// TestArgsProblemsCountedOncePerEvent: the decoding workers flatten the
// arguments of X, instant, n, T and p events the first time one of them sees
// their text (with several workers, not always for the first event of that
// text in processing order), the importer the rest: whichever did, what
// flattening tolerated is counted once per event, and identical lists share
// one set.
func TestArgsProblemsCountedOncePerEvent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // several decoding workers
	const n = 3 * batchItems
	var evs []string
	for i := range n {
		args := "{\"a\":1,\"s\":\"v\xff\",\"a\":2}"
		if i%3 == 0 {
			args = fmt.Sprintf("{\"n\":%d}", i%7)
		}
		ph := [...]string{"X", "I", "n", "X"}[i%4]
		evs = append(evs, fmt.Sprintf("{\"ph\":%q,\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"id\":1,\"s\":\"t\",\"name\":\"a\",\"args\":%s}",
			ph, i, args))
	}
	r := importText(t, lines(evs...), Options{})
	bad := 0
	for i := range n {
		if i%3 != 0 {
			bad++
		}
	}
	stats := strings.Join(r.stats(), " ")
	for _, want := range []string{fmt.Sprintf("json_duplicate_key/received=%d", bad),
		fmt.Sprintf("json_string/invalid_data=%d", bad)} {
		if !strings.Contains(stats, want) {
			t.Errorf("stats %s, want %s", stats, want)
		}
	}
	if got, want := r.args(), []string{"0 n=0(0)", "1 a=2(0)", "1 s=\"v\uFFFD\"(1)", "2 n=3(0)", "3 n=6(0)",
		"4 n=2(0)", "5 n=5(0)", "6 n=1(0)", "7 n=4(0)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("args %q, want %q", got, want)
	}
}

// TestIDsAndConfigUTF8: invalid UTF-8 in ids (id, id2, bind_id, args.linked_id)
// and in the top-level members that become trace_config rows is replaced by
// U+FFFD (one for each run of bad bytes) wherever it is stored, as in args,
// and counted once per text
// (json_string invalid_data); ids that differ only in their invalid bytes
// are one id.
func TestIDsAndConfigUTF8(t *testing.T) {
	const bad = "\xff\xfe"
	r := importText(t, "{\"traceEvents\":"+lines(
		`{"ph":"X","pid":1,"tid":1,"ts":0,"dur":20,"name":"a"}`,
		`{"ph":"s","pid":1,"tid":1,"ts":1,"name":"f","cat":"c","id":"fl`+bad+`"}`,
		`{"ph":"f","pid":1,"tid":1,"ts":2,"name":"f","cat":"c","id":"fl`+"\xfd"+`","bp":"e"}`,
		`{"ph":"b","pid":1,"tid":1,"ts":3,"name":"as","cat":"c","id2":{"local":"lo`+bad+`"}}`,
		`{"ph":"N","pid":1,"tid":1,"ts":5,"name":"ob","id":"ob`+bad+`"}`,
		`{"ph":"(","pid":1,"tid":1,"ts":7,"name":"cx","id":"cx`+bad+`"}`,
		`{"ph":"=","pid":1,"tid":1,"ts":8,"name":"ln","id":"ln","args":{"linked_id":"lk`+bad+`"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":9,"dur":1,"name":"v1","bind_id":"bi`+bad+`","flow_out":true}`,
		`{"ph":"X","pid":1,"tid":1,"ts":11,"dur":1,"name":"v2","bind_id":"bi`+bad+`","flow_in":true}`)+
		`,"displayTimeUnit":"ns`+bad+`","otherData":{"v":"x`+bad+`"},"metadata":{"m`+bad+`":1}}`, Options{})
	const r1 = "\uFFFD"
	checkTables(t, r, []tableRows{
		{"flow", []string{"id", "flow_key"}, []string{"0 fl" + r1, "1 bi" + r1}},
		{"flow_event", []string{"phase", "flow_key", "flow_id"}, []string{"s fl" + r1 + " -", "f fl" + r1 + " 0"}},
		{"async_track", []string{"id_kind", "raw_id"}, []string{"id2.local lo" + r1}},
		{"object_instance", []string{"raw_id"}, []string{"ob" + r1}},
		{"context_event", []string{"raw_id"}, []string{"cx" + r1}},
		{"linked_id", []string{"raw_id", "linked_raw_id"}, []string{"ln lk" + r1}},
		{"trace_config", []string{"key", "value"}, []string{"container object", "compression none",
			"displayTimeUnit ns" + r1, "otherData.v x" + r1, "metadata.m" + r1 + " 1"}},
	}, func(s string) bool { return strings.HasPrefix(s, "uncompressed_size ") })
	// id: s, f, N, (; id2; bind_id twice; linked_id; displayTimeUnit,
	// otherData.v, the metadata key.
	checkInvalidText(t, r, 11)
}

// TestConfigLoneSurrogates: a lone surrogate escape in the key or value of
// a trace_config row becomes U+FFFD and is counted once per text
// (json_string invalid_data), as invalid UTF-8 is; a member name's counts in
// each row below it; a surrogate pair is not counted.
func TestConfigLoneSurrogates(t *testing.T) {
	r := importText(t, `{"traceEvents":[],"displayTimeUnit":"ns\ud800","controllerTraceDataKey":"k\udfff",`+
		`"otherData":{"v\ud800":"x","w":"y\udc00","ok":"\ud83d\ude00"},"metadata":{"m\ud800":{"a":1,"b":"c"}}}`, Options{})
	const r1 = "\uFFFD"
	got := slices.DeleteFunc(r.table("trace_config", "key", "value"), func(s string) bool { return strings.HasPrefix(s, "uncompressed_size ") })
	if want := []string{"container object", "compression none", "displayTimeUnit ns" + r1, "controllerTraceDataKey k" + r1,
		"otherData.v" + r1 + " x", "otherData.w y" + r1, "otherData.ok 😀", "metadata.m" + r1 + ".a 1", "metadata.m" + r1 + ".b c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("trace_config %q, want %q", got, want)
	}
	if n := r.log.Count(stat.JSONString, stat.InvalidData); n != 6 {
		t.Errorf("json_string invalid_data %d, want 6 (%v)", n, r.stats())
	}
}

// TestConfigOtherKeys: a top-level member the importer does not know gets
// a trace_config row (json_top_level received): its name decoded as the
// known members' are (invalid UTF-8 and lone surrogate escapes replaced by
// U+FFFD and counted once per text), its value its raw JSON text, strings
// with their quotes (invalid UTF-8 replaced and counted, escapes kept).
func TestConfigOtherKeys(t *testing.T) {
	const r1 = "\uFFFD"
	for _, tc := range []struct {
		name, member string
		row          string // key and value of the row
		bad          int64  // json_string invalid_data
	}{
		{"string as written", `"x":"a\"b\n\u00e9"`, `x "a\"b\n\u00e9"`, 0},
		{"empty string", `"x":""`, `x ""`, 0},
		{"lone surrogates kept as escapes", `"x":"a\udfff\ud800"`, `x "a\udfff\ud800"`, 0},
		{"bytes", "\"x\":\"\xff\\ud800\"", `x "` + r1 + `\ud800"`, 1},
		{"surrogate pair", `"x":"\ud83d\ude00"`, `x "\ud83d\ude00"`, 0},
		{"number", `"x":1.50`, "x 1.50", 0},
		{"literal", `"x":null`, "x null", 0},
		{"object as written", `"x":{"k":"a\ud800", "n":[1,2]}`, `x {"k":"a\ud800", "n":[1,2]}`, 0},
		{"object with bytes", "\"x\":[\"\xfe\"]", `x ["` + r1 + `"]`, 1},
		{"escaped name", `"x\u0079":1`, "xy 1", 0},
		{"name and value", "\"x\\ud800\":\"\xfe\"", "x" + r1 + ` "` + r1 + `"`, 2},
		{"name with bytes and surrogate", "\"x\xff\\ud800\":true", "x" + r1 + r1 + " true", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := importText(t, `{"traceEvents":[],`+tc.member+`}`, Options{})
			got := r.table("trace_config", "key", "value")
			if len(got) != 4 || got[3] != tc.row {
				t.Errorf("trace_config %q, want the 4th row %q", got, tc.row)
			}
			checkInvalidText(t, r, tc.bad)
			if n := r.log.Count(stat.JSONTopLevel, stat.Received); n != 1 {
				t.Errorf("json_top_level received %d, want 1", n)
			}
		})
	}
}

// TestIDsLoneSurrogates: a lone surrogate escape in an id (id, id2, bind_id,
// sf, esf, args.linked_id) becomes U+FFFD, as invalid UTF-8 does, and is
// counted once per text (json_string invalid_data), as in a name; a
// surrogate pair, an escaped backslash before "u" and a U+FFFD written as
// \ufffd are not counted.
func TestIDsLoneSurrogates(t *testing.T) {
	r := importText(t, `{"stackFrames":{"k\ud800":{"name":"fr"}},"traceEvents":`+lines(
		`{"ph":"X","pid":1,"tid":1,"ts":0,"dur":20,"name":"a"}`,
		`{"ph":"s","pid":1,"tid":1,"ts":1,"name":"f","cat":"c","id":"fl\ud800"}`,
		`{"ph":"f","pid":1,"tid":1,"ts":2,"name":"f","cat":"c","id":"fl\udfff","bp":"e"}`,
		`{"ph":"b","pid":1,"tid":1,"ts":3,"name":"as","cat":"c","id2":{"local":"lo\udc00\ud800"}}`,
		`{"ph":"b","pid":1,"tid":1,"ts":3,"name":"ag","cat":"c","id2":{"global":"gl\udbff"}}`,
		// Not decoded as text, so nothing replaced and nothing counted: an
		// array id (no usable id) and id2's local member beside a global one.
		`{"ph":"b","pid":1,"tid":1,"ts":4,"name":"ar","cat":"c","id":["ar\ud800"]}`,
		`{"ph":"b","pid":1,"tid":1,"ts":4,"name":"gp","cat":"c","id2":{"global":"g2","local":"l\ud800"}}`,
		// Nor an object id, an id2 that is not an object, or an id2 beside
		// an id (which wins).
		`{"ph":"b","pid":1,"tid":1,"ts":4,"name":"io","cat":"c","id":{"global":"gl\udbff"}}`,
		`{"ph":"b","pid":1,"tid":1,"ts":4,"name":"is","cat":"c","id2":"s\udbff"}`,
		`{"ph":"b","pid":1,"tid":1,"ts":4,"name":"ib","cat":"c","id":"both","id2":{"global":"s\udbff"}}`,
		`{"ph":"N","pid":1,"tid":1,"ts":5,"name":"ob","id":"ob\ud83d\ude00"}`,
		`{"ph":"(","pid":1,"tid":1,"ts":7,"name":"cx","id":"cx\\ud800"}`,
		`{"ph":"=","pid":1,"tid":1,"ts":8,"name":"ln","id":"ln\ufffd","args":{"linked_id":"lk\ud800"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":9,"dur":1,"name":"v1","bind_id":"bi\ud800","flow_out":true,"sf":"k\ud800","esf":"k\udfff"}`,
		`{"ph":"X","pid":1,"tid":1,"ts":11,"dur":1,"name":"v2","bind_id":"bi\udc01","flow_in":true}`)+`}`, Options{})
	const r1 = "\uFFFD"
	checkTables(t, r, []tableRows{
		{"flow", []string{"id", "flow_key"}, []string{"0 fl" + r1, "1 bi" + r1}},
		{"flow_event", []string{"phase", "flow_key", "flow_id"}, []string{"s fl" + r1 + " -", "f fl" + r1 + " 0"}},
		{"async_track", []string{"id_kind", "raw_id"}, []string{"id2.local lo" + r1 + r1, "id2.global gl" + r1, "id2.global g2", "id both"}},
		{"object_instance", []string{"raw_id"}, []string{"ob😀"}},
		{"context_event", []string{"raw_id"}, []string{`cx\ud800`}},
		{"linked_id", []string{"raw_id", "linked_raw_id"}, []string{"ln" + r1 + " lk" + r1}},
		{"stack_frame", []string{"id", "frame_key"}, []string{"0 k" + r1}},
		{"callstack_extra", []string{"callstack_id", "stack_frame_id", "end_stack_frame_id"}, []string{"1 - -", "2 - -", "3 - -", "4 - -", "5 0 0"}}, // the async slices; v1 (a's, v2's: none)
	}, nil)
	// The stackFrames key; id: s, f; id2 twice; linked_id; bind_id twice;
	// sf; esf.
	checkInvalidText(t, r, 10)
}

// tableRows are the rows r.table gives for some columns of a table.
type tableRows struct {
	table string
	cols  []string
	want  []string
}

// checkTables compares r's tables with cases, leaving out the rows drop
// reports true for (nil: none).
func checkTables(t *testing.T, r *imported, cases []tableRows, drop func(string) bool) {
	t.Helper()
	for _, c := range cases {
		got := r.table(c.table, c.cols...)
		if drop != nil {
			got = slices.DeleteFunc(got, drop)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q, want %q", c.table, got, c.want)
		}
	}
}

// checkInvalidText checks the count of texts with invalid UTF-8 or a lone
// surrogate replaced (json_string, invalid_data).
func checkInvalidText(t *testing.T, r *imported, want int64) {
	t.Helper()
	if n := r.log.Count(stat.JSONString, stat.InvalidData); n != want {
		t.Errorf("json_string invalid_data %d, want %d (%v)", n, want, r.stats())
	}
}

// TestEscapedTopLevelNames: the members treated by name are known by their
// decoded names, as JSON.parse (catapult, DevTools) knows them, wherever
// they are; Perfetto v58 reads no event of a "traceEv\u0065nts"
// (docs/compat.md).
func TestEscapedTopLevelNames(t *testing.T) {
	const ev = `{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a","sf":"7"}`
	for _, tc := range []struct {
		name, in string
		table    string
		cols     []string
		want     []string // "%d" standing for the input's size
		stat     string   // one of the stat cells, "" for none
	}{
		{"traceEvents", `{"traceEv\u0065nts":[` + ev + `]}`, "callstack", []string{"ts", "dur", "name"},
			[]string{"1000 2000 a"}, "json_complete/received=1"},
		{"stackFrames", `{"traceEvents":[` + ev + `],"st\u0061ckFrames":{"7":{"name":"f"}}}`, "stack_frame",
			[]string{"id", "frame_key", "name"}, []string{"0 7 f"}, "json_stack_frames/received=1"},
		{"samples", `{"traceEvents":[],"stackFrames":{"7":{}},"sampl\u0065s":[{"tid":1,"ts":3,"sf":"7"}]}`, "stack_sample",
			[]string{"source", "ts", "frame_id"}, []string{"samples 3000 0"}, "json_samples/received=1"},
		{"displayTimeUnit", `{"display\u0054imeUnit":"us","traceEvents":[]}`, "trace_config", []string{"key", "value"},
			[]string{"container object", "compression none", "uncompressed_size %d", "displayTimeUnit us"},
			"json_display_time_unit/not_supported=1"},
		{"metadata and otherData", `{"traceEvents":[],"m\u0065tadata":{"a":1},"oth\u0065rData":{"b":"x"}}`, "trace_config",
			[]string{"key", "value"}, []string{"container object", "compression none", "uncompressed_size %d",
				"metadata.a 1", "otherData.b x"}, ""},
		{"controllerTraceDataKey", `{"traceEvents":[],"controll\u0065rTraceDataKey":"k"}`, "trace_config",
			[]string{"key", "value"}, []string{"container object", "compression none", "uncompressed_size %d",
				"controllerTraceDataKey k"}, ""},
		{"systemTraceEvents", `{"syst\u0065mTraceEvents":"line 1\nline 2\n","traceEvents":[]}`, "system_trace_events",
			[]string{"kind", "seq", "data"}, []string{"text 0 line 1\nline 2\n"}, "json_system_trace_events/received=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := importText(t, tc.in, Options{})
			want := slices.Clone(tc.want)
			for i, w := range want {
				if strings.Contains(w, "%d") {
					want[i] = fmt.Sprintf(w, len(tc.in))
				}
			}
			if got := r.table(tc.table, tc.cols...); !slices.Equal(got, want) {
				t.Errorf("%s %q, want %q", tc.table, got, want)
			}
			if n := r.log.Count(stat.JSONTopLevel, stat.Received); n != 0 {
				t.Errorf("json_top_level received %d, want 0", n)
			}
			if tc.stat != "" && !slices.Contains(r.stats(), tc.stat) {
				t.Errorf("stats %q, want %s", r.stats(), tc.stat)
			}
		})
	}
}

// TestTopLevelNameSpellings: top-level names are compared decoded, as
// JSON.parse compares them: two spellings of one name are one member, one
// trace_config row with the later value in the place of the first, counted
// once (json_top_level received); names with lone surrogate escapes are
// compared as written (two different ones are two members, as for
// JSON.parse), and a decoded name is not decoded again.
func TestTopLevelNameSpellings(t *testing.T) {
	const r1 = "\uFFFD"
	for _, tc := range []struct {
		name, members string
		rows          []string // after container, compression, uncompressed_size
		received, bad int64    // json_top_level received, json_string invalid_data
	}{
		{"escape later", `"xy":1,"x\u0079":2`, []string{"xy 2"}, 1, 0},
		{"escape first", `"x\u0079":1,"xy":2`, []string{"xy 2"}, 1, 0},
		{"three spellings, others between", `"b":0,"x\u0079":1,"a":5,"\u0078y":2,"xy":3`,
			[]string{"b 0", "xy 3", "a 5"}, 3, 0},
		{"surrogate pair and the character", `"\ud83d\ude00":1,"` + "\U0001F600" + `":2`, []string{"\U0001F600 2"}, 1, 0},
		{"escaped backslash", `"x\\u0079":1,"xy":2`, []string{`x\u0079 1`, "xy 2"}, 2, 0},
		{"one lone surrogate twice", `"k\ud800":1,"k\ud800":2`, []string{"k" + r1 + " 2"}, 1, 1},
		{"two lone surrogates", `"k\ud800":1,"k\udc00":2`, []string{"k" + r1 + " 1", "k" + r1 + " 2"}, 2, 2},
		{"lone surrogate and its escaped spelling", `"k\ud800":1,"k\\ud800":2`, []string{"k" + r1 + " 1", `k\ud800 2`}, 2, 1},
		// Invalid UTF-8 in a name is replaced and counted, and a name that
		// starts with the byte 0xFF is not taken for another.
		{"invalid UTF-8 first", `"ab":0,"` + "\xff" + `ab":1`, []string{"ab 0", r1 + "ab 1"}, 2, 1},
		{"invalid UTF-8 and a lone surrogate", `"k\ud800":2,"` + "\xff" + `k\\ud800":3`,
			[]string{"k" + r1 + " 2", r1 + `k\ud800 3`}, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := importText(t, `{"traceEvents":[],`+tc.members+`}`, Options{})
			if got := r.table("trace_config", "key", "value"); len(got) < 3 || !slices.Equal(got[3:], tc.rows) {
				t.Errorf("trace_config %q, want after the first 3 %q", got, tc.rows)
			}
			if n := r.log.Count(stat.JSONTopLevel, stat.Received); n != tc.received {
				t.Errorf("json_top_level received %d, want %d", n, tc.received)
			}
			checkInvalidText(t, r, tc.bad)
		})
	}
}
