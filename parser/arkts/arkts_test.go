package arkts

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"tracestreamer/heapfile"
	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// msg is one ArkTSResult message with its record time (ns, already BOOTTIME).
type msg struct {
	ts   int64
	text string
}

type harness struct {
	m    *rows.Memory
	p    *Parser
	log  *stat.Log
	rng  *rows.Range
	dict *tables.Dict
	heap *heapfile.Files
	cpu  *cpuprofile.Writer
}

// feed drives a Parser as the reference's tests drive its handler: a config
// record, messages with explicit times, then the end of input. No clock
// snapshot, so times are not converted.
func feed(t *testing.T, heapType hiprofpb.ArkTSConfig_HeapType, opts Options, msgs ...msg) *harness {
	t.Helper()
	h := &harness{m: rows.NewMemory(), log: stat.NewLog(nil), rng: &rows.Range{}}
	ts := schema.New()
	h.dict = tables.NewDict(h.m, ts)
	h.heap = heapfile.New(h.m, ts, h.log, heapfile.Options{Analyse: true})
	h.cpu = cpuprofile.NewWriter(h.m, ts, h.dict, h.rng)
	h.p = New(Env{Sink: h.m, Tables: ts, Range: h.rng, Log: h.log, Heap: h.heap, CPU: h.cpu}, opts)
	h.p.SetInput("test", 0)
	if heapType != noConfig {
		cfg, err := proto.Marshal(&hiprofpb.ArkTSConfig{Pid: 1734, Type: heapType, CpuProfilerInterval: 1000})
		if err != nil {
			t.Fatal(err)
		}
		h.p.Config(cfg, "config")
	}
	for i, m := range msgs {
		data, err := proto.Marshal(&hiprofpb.ArkTSResult{Result: []byte(m.text)})
		if err != nil {
			t.Fatal(err)
		}
		h.p.Result(context.Background(), data, m.ts, htrace.Clock{}, fmt.Sprintf("message %d", i))
	}
	h.p.Finish()
	h.heap.Flush()
	h.cpu.Flush()
	h.dict.Flush()
	return h
}

// noConfig makes feed send no config record.
const noConfig hiprofpb.ArkTSConfig_HeapType = -99

// Snapshot text of the reference heap tests (docs/format/heapsnapshot.md#snapshot-and-meta).
const refMeta = `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
	`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","slicedstring","symbol","bigint"],"string","number","number","number","number","number"],` +
	`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],` +
	`"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"],` +
	`"sample_fields":["timestamp_us","last_assigned_id"],"location_fields":["object_index","script_id","line","column"]},`

func refSnapshot(counts, nodes, edges, rest string) string {
	return refMeta + counts + "},\n\"nodes\":" + nodes + ",\n\"edges\":" + edges + "," + rest + "}"
}

// split cuts a snapshot text into two chunk messages, the first ending after
// the third node's self_size as in the reference tests.
func split(t *testing.T, text string, at string) (string, string) {
	t.Helper()
	i := strings.Index(text, at)
	if i < 0 {
		t.Fatalf("%q not in snapshot", at)
	}
	i += len(at)
	return string(arktstest.ChunkMessage([]byte(text[:i]))), string(arktstest.ChunkMessage([]byte(text[i:])))
}

const (
	nodesA   = "[9,25571,1,0,3575,0,0,\n1,3,3,432,52,0,0,\n8,9,9949,40,1,0,0]"
	nodesB   = "[9,25571,1,0,1,0,0,\n1,3,3,432,3,0,0,\n8,9,9949,40,1,0,0]"
	edges5   = "[5,25572,1,5,25572,1,5,25572,1,5,25572,1,5,25572,1]"
	emptyRst = `"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],"strings":[]`
	progress = `{"method":"HeapProfiler.reportHeapSnapshotProgress","params":{"done":0,"total":21288}}`
)

func filesRows(h *harness) []string {
	var out []string
	for _, r := range h.m.Rows["js_heap_files"] {
		out = append(out, fmt.Sprintf("%d %s %d %d %d", r[0].Int, r[1].Text, r[2].Int, r[3].Int, r[4].Int))
	}
	return out
}

// TestReferenceSnapshot repeats the reference's test snapshotParserNodesByJsmemory
// (docs/format/arkts.md#markers).
func TestReferenceSnapshot(t *testing.T) {
	c1, c2 := split(t, refSnapshot(`"node_count":32837,"edge_count":152856,"trace_function_count":0`, nodesA, "[]", emptyRst), "9949,40")
	h := feed(t, hiprofpb.ArkTSConfig_SNAPSHOT, Options{},
		msg{10000, progress}, msg{11000, c1}, msg{12000, c2}, msg{13000, `{"id":1,"result":{}}`})
	if got, want := filesRows(h), []string{"0 Snapshot0 11000 13000 472"}; !reflect.DeepEqual(got, want) {
		t.Errorf("js_heap_files = %q, want %q", got, want)
	}
	if got := testutil.IntRows(h.m, "js_heap_nodes"); len(got) != 3 || !reflect.DeepEqual(got[0], []int64{0, 0, 9, 25571, 1, 0, 3575, 0, 0}) {
		t.Errorf("nodes = %v", got)
	}
	if n := len(h.m.Rows["js_heap_info"]); n != 32 {
		t.Errorf("%d js_heap_info rows, want 32", n)
	}
	if got := h.log.Count(stat.JSMemory, stat.Received); got != 1 {
		t.Errorf("trace_js_memory received = %d", got)
	}
	if s, e := h.rng.Bounds(); s != 11000 || e != 13000 {
		t.Errorf("trace range [%d, %d], want [11000, 13000]", s, e)
	}
	if got := testutil.IntRows(h.m, "js_config"); !reflect.DeepEqual(got, [][]int64{{1734, 0, 0, 0, 0, 0, 1000}}) {
		t.Errorf("js_config = %v", got)
	}
}

// TestReferenceEdges repeats the reference's edge tests (docs/format/heapsnapshot.md#from_node_id) with the corrected
// expectation: from_node_id 1, 3, 3, 3, 9949 in both modes.
func TestReferenceEdges(t *testing.T) {
	text := refSnapshot(`"node_count":3,"edge_count":5,"trace_function_count":0`, nodesB, edges5, emptyRst)
	c1, c2 := split(t, text, "9949,40")
	for _, mode := range []hiprofpb.ArkTSConfig_HeapType{hiprofpb.ArkTSConfig_SNAPSHOT, hiprofpb.ArkTSConfig_TIMELINE} {
		first := `{"id":1,"result":{}}`
		last := `{"id":2,"result":{}}`
		if mode == hiprofpb.ArkTSConfig_SNAPSHOT {
			first, last = progress, `{"id":1,"result":{}}`
		}
		h := feed(t, mode, Options{}, msg{10000, first}, msg{11000, c1}, msg{12000, c2}, msg{13000, last})
		edges := testutil.IntRows(h.m, "js_heap_edges")
		if len(edges) != 5 || !reflect.DeepEqual(edges[0][:5], []int64{0, 0, 5, 25572, 1}) {
			t.Fatalf("mode %v: edges %v", mode, edges)
		}
		if got := testutil.Ints(h.m, "js_heap_edges", 5, -999); !reflect.DeepEqual(got, []int64{1, 3, 3, 3, 9949}) {
			t.Errorf("mode %v: from_node_id = %v, want [1 3 3 3 9949]", mode, got)
		}
	}
}

// TestReferenceTimeline repeats the reference's timeline tests (docs/format/arkts.md#markers,
// docs/format/heapsnapshot.md#samples, docs/format/heapsnapshot.md#trace_tree).
func TestReferenceTimeline(t *testing.T) {
	samples := "[0,42570\n, 200631,42571\n, 401040,42572\n, 601899,42573\n, 804764,42574\n, 1006866,42575\n, 1207797,42576]"
	tree := `[1,0,53,996,[2,1,571,26580,[],3,2,5,248,[4,3,27,2684,[5,4,1352,68984,[6,5,20,920,[]],` +
		`7,6,5,144,[],8,7,18,636,[9,8,5,120,[10,9,1,28,[]]]]],11,10,10,348,[12,11,11,576,` +
		`[13,12,21,632,[14,14,0,0,[15,13,2,28,[]],16,15,5,188,[17,16,7,196,[]]]]],` +
		`18,17,10,560,[19,9,2,28,[],20,18,172,7896,[21,19,4,3196,[]]]]]`
	rest := `"trace_function_infos":[0,181,1601,0,0,0],"trace_tree":` + tree + `,"samples":` + samples +
		`,"locations":[],"strings":["<dummy>","","GC roots","TaggedDict[52]","JSFunction"]`
	c1, c2 := split(t, refSnapshot(`"node_count":32837,"edge_count":152856,"trace_function_count":1`, nodesA, "[]", rest), "9949,40")
	h := feed(t, hiprofpb.ArkTSConfig_TIMELINE, Options{},
		msg{10000, `{"id":1,"result":{}}`}, msg{11000, c1}, msg{12000, c2}, msg{13000, `{"id":2,"result":{}}`})
	if got, want := filesRows(h), []string{"0 Timeline 10000 13000 472"}; !reflect.DeepEqual(got, want) {
		t.Errorf("js_heap_files = %q, want %q", got, want)
	}
	if got := testutil.IntRows(h.m, "js_heap_sample"); len(got) != 7 || !reflect.DeepEqual(got[3], []int64{0, 601899, 42573}) {
		t.Errorf("samples = %v", got)
	}
	nodes := testutil.IntRows(h.m, "js_heap_trace_node")
	if len(nodes) != 21 || !reflect.DeepEqual(nodes[10], []int64{0, 11, 10, 10, 348, 1}) ||
		!reflect.DeepEqual(nodes[20], []int64{0, 21, 19, 4, 3196, 20}) {
		t.Errorf("trace nodes = %v", nodes)
	}
	if got := testutil.IntRows(h.m, "js_heap_trace_function_info"); !reflect.DeepEqual(got, [][]int64{{0, 0, 0, 181, 1601, 0, 0, 0}}) {
		t.Errorf("function infos = %v", got)
	}
}

// refProfile is the CPU profile of the reference's CPU tests (docs/format/cpuprofile.md#current-format).
const refProfile = `{"tid":1394,"startTime":8013755173,"endTime":8034596087,"gcTime":0,"cInterpreterTime":0,"asmInterpreterTime":0,"aotTime":0,"builtinTime":0,"napiTime":0,"arkuiEngineTime":0,"runtimeTime":0,"otherTime":20840914,` +
	`"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3,4]},` +
	`{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":113097,"children":[]},` +
	`{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[]},` +
	`{"id":4,"callFrame":{"functionName":"anonymous","scriptId":"1","url":"D:/workspace_ohos_system/Music/entry/build/default/intermediates/assets_jsbundle/default/ets/pages/index_.js","lineNumber":2922,"columnNumber":36},"hitCount":1,"children":[]}],` +
	`"samples":[2,3,4,2,2,2,2,3,3,3,3,4,4,4],"timeDeltas":[99,72,215,637,96,288,36,89,94,54,26,598,784,522]}`

// TestReferenceCPUProfile repeats the reference's CPU profile tests
// (docs/format/cpuprofile.md#js_cpu_profiler_node, docs/format/cpuprofile.md#compat-timing).
func TestReferenceCPUProfile(t *testing.T) {
	msgs := []msg{{10000, `{"id":3,"result":{}}`}, {13000, `{"id":3,"result":{"profile":` + refProfile + `}}`}}
	h := feed(t, hiprofpb.ArkTSConfig_INVALID, Options{}, msgs...)
	nodes := h.m.Rows["js_cpu_profiler_node"]
	if len(nodes) != 4 {
		t.Fatalf("%d node rows", len(nodes))
	}
	dict := map[int64]string{}
	for _, r := range h.m.Rows["data_dict"] {
		dict[r[0].Int] = r[1].Text
	}
	type row struct {
		id         int64
		fn, script string
		url        string
		line, col  int64
		hits       int64
		children   string
		parent     int64
	}
	var got []row
	for _, r := range nodes {
		got = append(got, row{r[0].Int, dict[r[1].Int], r[2].Text, dict[r[3].Int], r[4].Int, r[5].Int, r[6].Int, r[7].Text, r[8].Int})
	}
	url := "D:/workspace_ohos_system/Music/entry/build/default/intermediates/assets_jsbundle/default/ets/pages/index_.js"
	want := []row{
		{1, "(root)", "0", "", -1, -1, 0, "2,3,4", 0},
		{2, "(program)", "0", "", -1, -1, 113097, "", 1},
		{3, "(idle)", "0", "", -1, -1, 0, "", 1},
		{4, "anonymous", "1", url, 2922, 36, 1, "", 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nodes:\n%v\nwant\n%v", got, want)
	}
	if nodes[0][3].Int != 0 {
		t.Errorf("url_index of the empty URL = %d, want 0", nodes[0][3].Int)
	}
	// V8 timing: every time 99 µs (timeDeltas[0]) after the reference's.
	wantSamples := [][]int64{
		{0, 2, 8013755272000, 8013755344000, 72000},
		{1, 3, 8013755344000, 8013755559000, 215000},
		{2, 4, 8013755559000, 8013756196000, 637000},
		{3, 2, 8013756196000, 8013756705000, 509000},
		{4, 3, 8013756705000, 8013757477000, 772000},
		{5, 4, 8013757477000, 8013758882000, 1405000},
	}
	if got := testutil.IntRows(h.m, "js_cpu_profiler_sample"); !reflect.DeepEqual(got, wantSamples) {
		t.Errorf("samples:\n%v\nwant\n%v", got, wantSamples)
	}
	// CPU sample times extend the trace range (reference quirk Q8 fixed).
	if s, e := h.rng.Bounds(); s != 10000 || e != 8013758882000 {
		t.Errorf("trace range [%d, %d]", s, e)
	}
	compat := feed(t, hiprofpb.ArkTSConfig_INVALID, Options{CompatTiming: true}, msgs...)
	wantCompat := [][]int64{
		{0, 2, 8013755173000, 8013755245000, 72000},
		{1, 3, 8013755245000, 8013755460000, 215000},
		{2, 4, 8013755460000, 8013756097000, 637000},
		{3, 2, 8013756097000, 8013756606000, 509000},
		{4, 3, 8013756606000, 8013757378000, 772000},
		{5, 4, 8013757378000, 8013758684000, 1306000},
	}
	if got := testutil.IntRows(compat.m, "js_cpu_profiler_sample"); !reflect.DeepEqual(got, wantCompat) {
		t.Errorf("compat samples:\n%v\nwant\n%v", got, wantCompat)
	}
	if len(h.m.Rows["js_heap_files"]) != 0 {
		t.Errorf("heap files in INVALID mode: %v", h.m.Rows["js_heap_files"])
	}
}

// TestCPUProfileRouting (docs/format/arkts.md#message-routing): no "profile" key → nothing,
// and messages the reference misroutes by substring.
func TestCPUProfileRouting(t *testing.T) {
	tests := []struct {
		name      string
		message   string
		wantNodes int
	}{
		{"data instead of profile", `{"id":3,"result":{"data":` + refProfile + `}}`, 0},
		{"function called chunk", `{"id":3,"result":{"profile":` + strings.Replace(refProfile, `"anonymous"`, `"chunk"`, 1) + `}}`, 4},
		{"chunk-vendors url", `{"id":3,"result":{"profile":` + strings.Replace(refProfile, "index_.js", "chunk-vendors.js", 1) + `}}`, 4},
		{"moduleName", `{"id":3,"result":{"profile":` + strings.Replace(refProfile, `"functionName":"anonymous",`, `"functionName":"anonymous","moduleName":"entry",`, 1) + `}}`, 4},
		{"result not last, spaces, newline", `{ "result" : {"profile":` + refProfile + `} , "id" : 3 }` + "\n", 4},
		{"consoleProfileFinished event", `{"method":"Profiler.consoleProfileFinished","params":{"id":"1","profile":` + refProfile + `}}`, 0},
	}
	for _, tt := range tests {
		h := feed(t, hiprofpb.ArkTSConfig_INVALID, Options{}, msg{1, `{"id":3,"result":{}}`}, msg{2, tt.message})
		if got := len(h.m.Rows["js_cpu_profiler_node"]); got != tt.wantNodes {
			t.Errorf("%s: %d nodes, want %d", tt.name, got, tt.wantNodes)
		}
	}
	h := feed(t, hiprofpb.ArkTSConfig_INVALID, Options{}, msg{1, `{"id":3,"result":{"profile":` +
		strings.Replace(refProfile, `"samples":[2,3,4,2,2,2,2,3,3,3,3,4,4,4],"timeDeltas":[99,72,215,637,96,288,36,89,94,54,26,598,784,522]`,
			`"samples":[],"timeDeltas":[]`, 1) + `}}`})
	if len(h.m.Rows["js_cpu_profiler_node"]) != 4 || len(h.m.Rows["js_cpu_profiler_sample"]) != 0 {
		t.Errorf("empty samples: %d nodes, %d samples; want 4, 0 (no bogus row)",
			len(h.m.Rows["js_cpu_profiler_node"]), len(h.m.Rows["js_cpu_profiler_sample"]))
	}
}

// TestChunkBoundaries cuts one snapshot into two chunks at every byte position,
// including inside string escapes (\" and \u00e9) and inside numbers, and
// checks each gives the same rows as the uncut text.
func TestChunkBoundaries(t *testing.T) {
	text := refSnapshot(`"node_count":3,"edge_count":5,"trace_function_count":0`, nodesB, edges5,
		`"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],"strings":["a\"b","caf\u00e9 \\ \ud83d\ude00","x"]`)
	whole := feed(t, hiprofpb.ArkTSConfig_SNAPSHOT, Options{}, msg{1, string(arktstest.ChunkMessage([]byte(text)))}, msg{2, arktstest.Marker(1)})
	if got := whole.m.Rows["js_heap_string"]; len(got) != 3 || got[1][2].Text != "café \\ 😀" || got[0][2].Text != `a"b` {
		t.Fatalf("strings = %v", got)
	}
	for cut := 1; cut < len(text); cut++ {
		h := feed(t, hiprofpb.ArkTSConfig_SNAPSHOT, Options{},
			msg{1, string(arktstest.ChunkMessage([]byte(text[:cut])))},
			msg{2, string(arktstest.ChunkMessage([]byte(text[cut:])))},
			msg{3, arktstest.Marker(1)})
		for _, tab := range []string{"js_heap_nodes", "js_heap_edges", "js_heap_string", "js_heap_info"} {
			if !reflect.DeepEqual(h.m.Rows[tab], whole.m.Rows[tab]) {
				t.Fatalf("cut at %d (%q|%q): %s differs", cut, text[max(0, cut-5):cut], text[cut:min(len(text), cut+5)], tab)
			}
		}
	}
}

// TestSeveralSnapshots: each snapshot's edge ids come from its own nodes
// (reference quirk Q1), even when the layout changes (ArkTS native_size).
func TestSeveralSnapshots(t *testing.T) {
	s1 := refSnapshot(`"node_count":2,"edge_count":2,"trace_function_count":0`, "[3,1,11,16,1,0,0, 3,2,13,24,1,0,0]", "[2,1,7, 2,2,0]", emptyRst)
	s2 := strings.Replace(refSnapshot(`"node_count":3,"edge_count":3,"trace_function_count":0`,
		"[3,1,21,8,2,0,0,100, 3,2,23,8,0,0,0,0, 3,2,25,8,1,0,0,0]", "[2,1,8, 2,2,16, 2,3,0]", emptyRst),
		`"detachedness"]`, `"detachedness","native_size"]`, 1)
	h := feed(t, hiprofpb.ArkTSConfig_SNAPSHOT, Options{},
		msg{1, string(arktstest.ChunkMessage([]byte(s1)))}, msg{2, arktstest.Marker(1)},
		msg{3, string(arktstest.ChunkMessage([]byte(s2)))}, msg{4, arktstest.Marker(1)},
		msg{5, string(arktstest.ChunkMessage([]byte(s1)))}, msg{6, arktstest.Marker(1)})
	if got, want := filesRows(h), []string{"0 Snapshot0 1 2 40", "1 Snapshot1 3 4 24", "2 Snapshot2 5 6 40"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	want := [][]int64{
		{0, 0, 2, 1, 7, 11, 13}, {0, 1, 2, 2, 0, 13, 11},
		{1, 0, 2, 1, 8, 21, 23}, {1, 1, 2, 2, 16, 21, 25}, {1, 2, 2, 3, 0, 25, 21},
		{2, 0, 2, 1, 7, 11, 13}, {2, 1, 2, 2, 0, 13, 11},
	}
	if got := testutil.IntRows(h.m, "js_heap_edges"); !reflect.DeepEqual(got, want) {
		t.Errorf("edges:\n%v\nwant\n%v", got, want)
	}
}

// TestFaultyHeapData: a garbage chunk drops only its snapshot; an end marker
// without chunks and a snapshot cut off by the end of input leave no heap file.
func TestFaultyHeapData(t *testing.T) {
	good := refSnapshot(`"node_count":3,"edge_count":5,"trace_function_count":0`, nodesB,
		"[5,25572,7,5,25572,14,5,25572,0,5,25572,0,5,25572,7]", emptyRst)
	bad := strings.Replace(good, "25572,14,5", "25572,14,@", 1)
	h := feed(t, hiprofpb.ArkTSConfig_SNAPSHOT, Options{},
		msg{1, string(arktstest.ChunkMessage([]byte(good)))}, msg{2, arktstest.Marker(1)},
		msg{3, string(arktstest.ChunkMessage([]byte(bad)))}, msg{4, arktstest.Marker(1)},
		msg{5, arktstest.Marker(1)},
		msg{6, string(arktstest.ChunkMessage([]byte(good)))}, msg{7, arktstest.Marker(1)},
		msg{8, string(arktstest.ChunkMessage([]byte(good[:100])))})
	if got, want := filesRows(h), []string{"0 Snapshot0 1 2 472", "1 Snapshot1 6 7 472"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if n := len(h.m.Rows["js_heap_nodes"]); n != 6 {
		t.Errorf("%d node rows, want 6 (the bad snapshot's rows rolled back)", n)
	}
	for i, r := range h.m.Rows["js_heap_edges"] {
		if want := int64(i / 5); r[0].Int != want {
			t.Errorf("edge row %d has file_id %d, want %d", i, r[0].Int, want)
		}
	}
	if got := h.log.Count(stat.JSMemory, stat.InvalidData); got != 2 {
		t.Errorf("invalid_data = %d, want 2 (bad snapshot, marker without chunks)", got)
	}
	if got := h.log.Count(stat.JSMemory, stat.DataLost); got != 1 {
		t.Errorf("data_lost = %d, want 1 (snapshot open at end of input)", got)
	}
}

// TestTimelineWithoutConfig: with no config record, {"id":1} before chunks is a
// timeline start (reference quirk Q16).
func TestTimelineWithoutConfig(t *testing.T) {
	text := refSnapshot(`"node_count":3,"edge_count":5,"trace_function_count":0`, nodesB, edges5, emptyRst)
	h := feed(t, noConfig, Options{}, msg{10, arktstest.Marker(1)},
		msg{20, `{"method":"HeapProfiler.heapStatsUpdate","params":{"statsUpdate":[0,41663,3043024]}}`},
		msg{30, string(arktstest.ChunkMessage([]byte(text)))}, msg{40, arktstest.Marker(2)})
	if got, want := filesRows(h), []string{"0 Timeline 10 40 472"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
}

func TestSingleInstantRange(t *testing.T) {
	h := feed(t, hiprofpb.ArkTSConfig_INVALID, Options{}, msg{5000, `{"id":3,"result":{}}`})
	if s, e := h.rng.Bounds(); s != 4999 || e != 5001 {
		t.Errorf("range [%d, %d], want [4999, 5001]", s, e)
	}
}

func TestRoute(t *testing.T) {
	tests := []struct {
		in   string
		kind kind
		id   int64
	}{
		{`{"id":1,"result":{}}`, kindMarker, 1},
		{`{"id": 2, "result": {}}`, kindMarker, 2},
		{`{"result":{},"id":3}`, kindMarker, 3},
		{`{"id":1,"result":{"x":1}}`, kindOther, 1},
		{`{"method":"HeapProfiler.lastSeenObjectId","params":{"lastSeenObjectId":83517,"timestamp":1.5}}`, kindOther, 0},
		{`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"{\"a\":1}"}}`, kindChunk, 0},
		{`{"params":{"chunk":"x"},"method":"HeapProfiler.addHeapSnapshotChunk"}`, kindChunk, 0},
		{`{"method":"Other.event","params":{"chunk":"x"}}`, kindOther, 0},
		{`{"id":3,"result":{"profile":{"nodes":[]}}}`, kindProfile, 3},
		{`not json`, kindInvalid, 0},
		{`{"id":1,"result":{}} trailing`, kindInvalid, 0},
		{`[]`, kindInvalid, 0},
	}
	for _, tt := range tests {
		m := route([]byte(tt.in), nil)
		if m.kind != tt.kind || m.id != tt.id {
			t.Errorf("route(%s) = kind %d id %d, want %d %d", tt.in, m.kind, m.id, tt.kind, tt.id)
		}
	}
	if m := route([]byte(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"{\"a\":\"\\u00e9\"}"}}`), nil); string(m.chunk) != `{"a":"\u00e9"}` {
		t.Errorf("chunk text = %q", m.chunk)
	}
}
