package traceevent

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// TestTrackerTextsUTF8 gives each text a tracker decodes from inside an
// element (stack frames, V8 profile nodes, memory dumps, object snapshots,
// top-level samples, sf) invalid UTF-8 in turn: the row holds U+FFFD in its
// place and (json_string, invalid_data) counts the text once
// (docs/format/traceevent.md#text).
func TestTrackerTextsUTF8(t *testing.T) {
	const bad, r1 = "\xff", "\uFFFD"
	events := func(evs ...string) string { return `{"traceEvents":` + lines(evs...) + `}` }
	dump := func(dumps string) string {
		return events(`{"ph":"v","pid":1,"tid":1,"ts":1,"id":"d","args":{"dumps":` + dumps + `}}`)
	}
	edge := func(members string) string { return dump(`{"allocators_graph":[{` + members + `}]}`) }
	alloc := func(allocs string) string { return dump(`{"allocators":` + allocs + `}`) }
	frames := func(fs string) string { return `{"stackFrames":` + fs + `,"traceEvents":[]}` }
	node := func(callFrame string) string {
		return events(`{"ph":"P","pid":1,"tid":1,"ts":1,"id":"1","name":"ProfileChunk","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":` + callFrame + `}]}}}}`)
	}
	snapshot := func(snap string) string {
		return events(`{"ph":"O","pid":1,"tid":1,"ts":1,"id":"o","name":"ob","args":{"snapshot":` + snap + `}}`)
	}
	valueCols := []string{"source", "path", "guid", "attr", "type", "units", "str_value"}
	frameCols := []string{"source", "frame_key", "name", "category", "url", "script_id"}
	for _, c := range []struct {
		name, in, table string
		cols            []string
		want            []string
		n               int64 // json_string invalid_data
	}{
		{"edge source", edge(`"source":"s` + bad + `","target":"t","type":"ownership"`), "memory_dump_edge",
			[]string{"source_guid", "target_guid", "type"}, []string{"s" + r1 + " t ownership"}, 1},
		{"edge target", edge(`"source":"s","target":"t` + bad + `","type":"ownership"`), "memory_dump_edge",
			[]string{"source_guid", "target_guid", "type"}, []string{"s t" + r1 + " ownership"}, 1},
		{"edge type", edge(`"source":"s","target":"t","type":"o` + bad + `"`), "memory_dump_edge",
			[]string{"source_guid", "target_guid", "type"}, []string{"s t o" + r1}, 1},
		{"level_of_detail", dump(`{"level_of_detail":"d` + bad + `"}`), "memory_dump",
			[]string{"level_of_detail", "extra_json"}, []string{"d" + r1 + " -"}, 1},
		{"extra_json key and value", dump(`{"x` + bad + `":["y` + bad + `"]}`), "memory_dump",
			[]string{"level_of_detail", "extra_json"}, []string{`- {"x` + r1 + `":["y` + r1 + `"]}`}, 2},
		{"process_totals member", dump(`{"process_totals":{"a` + bad + `":"10"}}`), "memory_dump_value",
			[]string{"source", "attr", "int_value"}, []string{"process_totals a" + r1 + " 16"}, 1},
		{"allocator name", alloc(`{"p` + bad + `":{"guid":"g","attrs":{"a":{"type":"scalar","units":"u","value":"1"}}}}`),
			"memory_dump_value", valueCols, []string{"allocator p" + r1 + " g a scalar u -"}, 1},
		{"allocator guid", alloc(`{"p":{"guid":"g` + bad + `","attrs":{"a":{"type":"scalar","units":"u","value":"1"},"b":{"type":"scalar"}}}}`),
			"memory_dump_value", valueCols, []string{"allocator p g" + r1 + " a scalar u -", "allocator p g" + r1 + " b scalar - -"}, 1},
		{"attribute name", alloc(`{"p":{"guid":"g","attrs":{"a` + bad + `":{"type":"scalar","units":"u","value":"1"}}}}`),
			"memory_dump_value", valueCols, []string{"allocator p g a" + r1 + " scalar u -"}, 1},
		{"attribute type", alloc(`{"p":{"guid":"g","attrs":{"a":{"type":"s` + bad + `","units":"u","value":"1"}}}}`),
			"memory_dump_value", valueCols, []string{"allocator p g a s" + r1 + " u -"}, 1},
		{"attribute units", alloc(`{"p":{"guid":"g","attrs":{"a":{"type":"scalar","units":"u` + bad + `","value":"1"}}}}`),
			"memory_dump_value", valueCols, []string{"allocator p g a scalar u" + r1 + " -"}, 1},
		{"string value", alloc(`{"p":{"guid":"g","attrs":{"a":{"type":"string","value":"v` + bad + `"}}}}`),
			"memory_dump_value", valueCols, []string{"allocator p g a string - v" + r1}, 1},
		{"frame key", frames(`{"k` + bad + `":{"name":"n"}}`), "stack_frame", frameCols, []string{"stackFrames k" + r1 + " n - - -"}, 1},
		{"frame name", frames(`{"k":{"name":"n` + bad + `"}}`), "stack_frame", frameCols, []string{"stackFrames k n" + r1 + " - - -"}, 1},
		{"frame category", frames(`{"k":{"name":"n","category":"c` + bad + `"}}`), "stack_frame", frameCols, []string{"stackFrames k n c" + r1 + " - -"}, 1},
		// The parent's key is replaced as the frame's is: they match.
		{"frame parent", frames(`{"p` + bad + `":{"name":"a"},"k":{"name":"b","parent":"p` + bad + `"}}`), "stack_frame",
			[]string{"frame_key", "parent_id"}, []string{"p" + r1 + " -", "k 0"}, 2},
		// An M event's frames are its args, counted once as such.
		{"metadata frame", events(`{"ph":"M","pid":1,"tid":1,"name":"stackFrames","args":{"stackFrames":{"k":{"name":"n` + bad + `"}}}}`),
			"stack_frame", frameCols, []string{"metadata k n" + r1 + " - - -"}, 1},
		{"callFrame functionName", node(`{"functionName":"f` + bad + `","url":"u","scriptId":"7"}`), "stack_frame", frameCols,
			[]string{"v8_profile 1 f" + r1 + " - u 7"}, 1},
		{"callFrame url", node(`{"functionName":"f","url":"u` + bad + `","scriptId":7}`), "stack_frame", frameCols,
			[]string{"v8_profile 1 f - u" + r1 + " 7"}, 1},
		{"callFrame scriptId", node(`{"functionName":"f","url":"u","scriptId":"s` + bad + `"}`), "stack_frame", frameCols,
			[]string{"v8_profile 1 f - u s" + r1}, 1},
		{"callFrame lone surrogate", node(`{"functionName":"f\ud800","url":"u"}`), "stack_frame", frameCols,
			[]string{"v8_profile 1 f" + r1 + " - u -"}, 1},
		{"callFrame U+FFFD as written", node(`{"functionName":"f` + r1 + `","url":"u\ufffd"}`), "stack_frame", frameCols,
			[]string{"v8_profile 1 f" + r1 + " - u" + r1 + " -"}, 0},
		{"snapshot cat", snapshot(`{"cat":"c` + bad + `"}`), "object_snapshot", []string{"cat", "base_type"}, []string{"c" + r1 + " -"}, 1},
		{"snapshot base_type", snapshot(`{"base_type":"b` + bad + `"}`), "object_snapshot", []string{"cat", "base_type"}, []string{"- b" + r1}, 1},
		{"sf", `{"stackFrames":{"k":{"name":"n"}},"traceEvents":[{"ph":"P","pid":1,"tid":1,"ts":1,"name":"x","sf":"k` + bad + `"}]}`,
			"stack_sample", []string{"source", "name", "frame_id"}, []string{"trace_event x -"}, 1},
		{"top-level sample name", `{"traceEvents":[],"samples":[{"ts":1,"tid":1,"name":"n` + bad + `"}]}`,
			"stack_sample", []string{"source", "name", "frame_id"}, []string{"samples n" + r1 + " -"}, 1},
		{"top-level sample sf", `{"stackFrames":{"k":{"name":"n"}},"traceEvents":[],"samples":[{"ts":1,"tid":1,"name":"s","sf":"k` + bad + `"}]}`,
			"stack_sample", []string{"source", "name", "frame_id"}, []string{"samples s -"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := importText(t, c.in, Options{})
			checkTables(t, r, []tableRows{{c.table, c.cols, c.want}}, nil)
			checkInvalidText(t, r, c.n)
		})
	}
}

// TestTrackerTextsWarning: a text replaced in a tracker is warned about with
// the file and the offset of its element, as the element's own strings are.
func TestTrackerTextsWarning(t *testing.T) {
	ev := `{"ph":"v","pid":1,"tid":1,"ts":1,"id":"d","args":{"dumps":{"allocators_graph":[{"source":"s` + "\xff" + `","target":"t"}]}}}`
	text := `{"traceEvents":[{"ph":"i","pid":1,"tid":1,"ts":0,"name":"a"},` + ev + `]}`
	var out bytes.Buffer
	mem, ts := rows.NewMemory(), schema.New()
	dict := tables.NewDict(mem, ts)
	im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: &rows.Range{}, Log: stat.NewLog(&out)}, Options{})
	if err := im.Read(context.Background(), strings.NewReader(text), Input{Path: "dumps.json"}); err != nil {
		t.Fatal(err)
	}
	im.Finish()
	want := fmt.Sprintf("dumps.json: json_string invalid_data: 1 (first at byte %d)", strings.Index(text, ev))
	if !strings.Contains(out.String(), want) {
		t.Errorf("warnings:\n%s\nwant %q", out.String(), want)
	}
}

// TestTopLevelWarnings: problems found in the top-level stackFrames and
// samples members are warned about at the offset of the frame's value or
// the sample entry they are in, those of the members that become
// trace_config rows at the offset of the member's value, wherever the member
// is, when they are the first of their cell counted.
func TestTopLevelWarnings(t *testing.T) {
	const events = `"traceEvents":[{"ph":"i","pid":1,"tid":1,"ts":0,"name":"a\ud800"}]`
	const plain = `"traceEvents":[{"ph":"i","pid":1,"tid":1,"ts":0,"name":"a"}]`
	for _, tc := range []struct {
		name, in string
		at       string // the text the warning's offset must point at
		want     string // the warning, "%d" standing for the offset
	}{
		{"frame key, before the events", `{"stackFrames":{"1":{"name":"a"},"k\ud800": {"name":"f"}},` + plain + `}`,
			`{"name":"f"}`, "json_string invalid_data: 1 (first at byte %d)"},
		// The lowest offset of the cell's counts, though the events are
		// counted first.
		{"frame key and event", `{"stackFrames":{"k\ud800":{"name":"f"}},` + events + `}`,
			`{"name":"f"}`, "json_string invalid_data: 2 (first at byte %d)"},
		{"frame name, after the events", `{"traceEvents":[],` + "\n" + `"stackFrames" : {"1":{"name":"a"},"2":{"name":"b` +
			"\xff" + `"}}}`, `{"name":"b`, "json_string invalid_data: 1 (first at byte %d)"},
		{"sample text", `{` + events + `,"samples":[{"tid":1,"ts":1}, {"tid":1,"ts":2,"name":"s\udc00"}]}`,
			`{"ph":"i"`, "json_string invalid_data: 2 (first at byte %d)"},
		{"sample text first", `{"traceEvents":[],"samples":[{"tid":1,"ts":1}, {"tid":1,"ts":2,"name":"s\udc00"}]}`,
			`{"tid":1,"ts":2`, "json_string invalid_data: 1 (first at byte %d)"},
		{"sample without ts", `{"samples":[{"tid":1,"ts":1},{"tid":1}],` + events + `}`,
			`{"tid":1}`, "json_samples invalid_data: 1 (first at byte %d)"},
		{"sample naming no frame", `{"traceEvents":[],"stackFrames":{"1":{"name":"a"}},"samples":` +
			`[{"tid":1,"ts":1,"sf":1},{"tid":1,"ts":2,"sf":"9"}]}`, `{"tid":1,"ts":2`,
			"json_samples not_match: 1 (first at byte %d)"},
		{"displayTimeUnit", `{"traceEvents":[],"displayTimeUnit": "us"}`, `"us"`,
			"json_display_time_unit not_supported: 1 (first at byte %d)"},
		{"metadata leaf", `{"metadata":{"a":1,"b":"x\ud800"},` + plain + `}`, `{"a":1`,
			"json_string invalid_data: 1 (first at byte %d)"},
		{"controllerTraceDataKey", `{` + plain + `,"controllerTraceDataKey":"k` + "\xff" + `"}`, `"k`,
			"json_string invalid_data: 1 (first at byte %d)"},
		{"other member", `{"traceEvents":[],"x":{"y":"\ud800"},"z":"` + "\xfe" + `"}`, `"` + "\xfe",
			"json_string invalid_data: 1 (first at byte %d)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			mem, ts := rows.NewMemory(), schema.New()
			dict := tables.NewDict(mem, ts)
			im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: &rows.Range{}, Log: stat.NewLog(&out)}, Options{})
			if err := im.Read(context.Background(), strings.NewReader(tc.in), Input{Path: "top.json"}); err != nil {
				t.Fatal(err)
			}
			im.Finish()
			at := strings.Index(tc.in, tc.at)
			if at < 0 {
				t.Fatalf("%q not in the input", tc.at)
			}
			want := "top.json: " + fmt.Sprintf(tc.want, at) + "\n"
			if !strings.Contains(out.String(), want) {
				t.Errorf("warnings:\n%s\nwant %q", out.String(), want)
			}
		})
	}
}
