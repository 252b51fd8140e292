package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/stat"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Header clock snapshot of the test captures.
const (
	bootNs = 1_000_000_000_000
	realNs = 1_795_000_000_000_000_000
)

func testClocks(mono uint64) [htrace.NumClocks]uint64 {
	var c [htrace.NumClocks]uint64
	c[htrace.ClockBoottime], c[htrace.ClockRealtime], c[htrace.ClockMonotonic] = bootNs, realNs, mono
	return c
}

// capture writes an htrace file with fn and returns its path.
func capture(t *testing.T, clocks [htrace.NumClocks]uint64, fn func(s *arktstest.Session)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.htrace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := arktstest.NewSession(f, clocks)
	if err != nil {
		t.Fatal(err)
	}
	s.Time = realNs + 2_000_000_000
	s.Step = 1_000_000
	fn(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func convert(t *testing.T, in string, opts Options) (string, *Summary) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.db")
	opts.Output = out
	var warn strings.Builder
	opts.Warnings = &warn
	sum, err := Run(context.Background(), []string{in}, opts)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, warn.String())
	}
	return out, sum
}

// checkLeft checks that dir holds want entries (the run's output and files
// the test made there, no scratch file left behind).
func checkLeft(t *testing.T, dir string, want int) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != want {
		t.Errorf("%d files left in %s, want %d: %v", len(entries), dir, want, entries)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// nodeSnapshot holds what an independent decode (encoding/json) of a real
// snapshot says the tables must contain.
type nodeSnapshot struct {
	Snapshot struct {
		Meta struct {
			NodeFields []string `json:"node_fields"`
		} `json:"meta"`
		NodeCount int `json:"node_count"`
		EdgeCount int `json:"edge_count"`
	} `json:"snapshot"`
	Nodes   []int64  `json:"nodes"`
	Edges   []int64  `json:"edges"`
	Strings []string `json:"strings"`
}

// edgeIDs computes every edge's (from id, to id) from the arrays.
func (s *nodeSnapshot) edgeIDs() []string {
	stride := len(s.Snapshot.Meta.NodeFields)
	var out []string
	e := 0
	for i := 0; i < len(s.Nodes); i += stride {
		for k := int64(0); k < s.Nodes[i+4]; k++ {
			out = append(out, fmt.Sprintf("%d|%d", s.Nodes[i+2], s.Nodes[s.Edges[3*e+2]+2]))
			e++
		}
	}
	return out
}

// TestNodeCapture wraps two copies of a real node heap snapshot (cut into
// chunks of varying size) and a real CPU profile into one htrace file, and
// checks each file's rows against an independent decode.
func TestNodeCapture(t *testing.T) {
	text := testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")
	prof := testutil.Fixture(t, "node/profile.cpuprofile")
	var snap nodeSnapshot
	must(t, json.Unmarshal(text, &snap))
	var profHead struct {
		StartTime int64 `json:"startTime"`
	}
	must(t, json.Unmarshal(prof, &profHead))
	mono := uint64(profHead.StartTime)*1000 - 3_000_000_000
	var times []uint64 // realtime of the records that bound the heap files
	in := capture(t, testClocks(mono), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 77, Type: hiprofpb.ArkTSConfig_SNAPSHOT, Interval: 5, EnableCpuProfiler: true, CpuProfilerInterval: 500}))
		must(t, s.CPUStart())
		for k := 0; k < 2; k++ {
			s.ChunkSizes = func(i int) int { return 1000 + (i*7919+k*104729)%60000 }
			must(t, s.Message(`{"method":"HeapProfiler.reportHeapSnapshotProgress","params":{"done":0,"total":9}}`))
			times = append(times, s.Time)
			must(t, s.Chunks(text))
			times = append(times, s.Time)
			must(t, s.Message(arktstest.Marker(1)))
		}
		must(t, s.CPUProfile(prof))
	})
	out, sum := convert(t, in, Options{})
	db := testutil.OpenDB(t, out)
	toBoot := func(real uint64) string { return strconv.FormatUint(real+bootNs-realNs, 10) }
	wantFiles := []string{
		"0|Snapshot0|" + toBoot(times[0]) + "|" + toBoot(times[1]),
		"1|Snapshot1|" + toBoot(times[2]) + "|" + toBoot(times[3]),
	}
	if got := testutil.Query(t, db, "SELECT id, file_name, start_time, end_time FROM js_heap_files"); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("js_heap_files = %v, want %v", got, wantFiles)
	}
	wantEdges := snap.edgeIDs()
	for file := 0; file < 2; file++ {
		counts := testutil.Query(t, db, `SELECT (SELECT count(*) FROM js_heap_nodes WHERE file_id=?1),
			(SELECT count(*) FROM js_heap_edges WHERE file_id=?1), (SELECT count(*) FROM js_heap_string WHERE file_id=?1)`, file)
		if want := fmt.Sprintf("%d|%d|%d", snap.Snapshot.NodeCount, snap.Snapshot.EdgeCount, len(snap.Strings)); counts[0] != want {
			t.Errorf("file %d: nodes|edges|strings = %s, want %s", file, counts[0], want)
		}
		got := testutil.Query(t, db, "SELECT from_node_id, to_node_id FROM js_heap_edges WHERE file_id=? ORDER BY rowid", file)
		if !reflect.DeepEqual(got, wantEdges) {
			t.Errorf("file %d: edge ids differ from an independent computation", file)
		}
	}
	// CPU: samples converted from MONOTONIC, inside the capture.
	cpu := testutil.Query(t, db, "SELECT min(start_time), max(end_time), count(*) FROM js_cpu_profiler_sample")[0]
	first := testutil.Query(t, db, "SELECT start_time FROM js_cpu_profiler_sample WHERE id=0")[0]
	var deltas struct {
		TimeDeltas []int64 `json:"timeDeltas"`
	}
	must(t, json.Unmarshal(prof, &deltas))
	wantFirst := strconv.FormatInt((profHead.StartTime+deltas.TimeDeltas[0])*1000+bootNs-int64(mono), 10)
	if first != wantFirst {
		t.Errorf("first sample at %s, want %s (%s)", first, wantFirst, cpu)
	}
	if got := testutil.Query(t, db, `SELECT count(*) FROM js_cpu_profiler_node n
		JOIN data_dict f ON f.id = n.function_index JOIN data_dict u ON u.id = n.url_index`); got[0] != "24" {
		t.Errorf("CPU nodes joined with data_dict: %v", got)
	}
	checks := map[string]string{
		"SELECT * FROM js_config":   "77|0|5|0|0|1|500",
		"SELECT count(*) FROM stat": "500",
		"SELECT count FROM stat WHERE event_name='trace_js_memory' AND stat_type='received'":        "2",
		"SELECT count FROM stat WHERE event_name='trace_event_clock_sync' AND stat_type='received'": "1",
		"SELECT sum(count) FROM stat WHERE stat_type<>'received'":                                   "0",
		"SELECT group_concat(clock_id||':'||ts||':'||clock_name) FROM clock_snapshot":               fmt.Sprintf("1:%d:boottime,2:%d:realtime,4:%d:monotonic", uint64(bootNs), uint64(realNs), mono),
		"SELECT * FROM datasource_clockid":                                                          "0|arkts-plugin|2",
		"SELECT * FROM data_dict WHERE id=0":                                                        "0|",
		"SELECT count(*) FROM meta":                                                                 "9",
		"SELECT value FROM meta WHERE name='source_type'":                                           "proto-based-trace",
		"SELECT start_ts <= (SELECT min(start_time) FROM js_heap_files) AND end_ts >= (SELECT max(end_time) FROM js_cpu_profiler_sample) FROM trace_range": "1",
	}
	for q, want := range checks {
		if got := testutil.Query(t, db, q); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %v, want %s", q, got, want)
		}
	}
	if sum.Rows["js_heap_nodes"] != 2*int64(snap.Snapshot.NodeCount) || sum.Problems != 0 {
		t.Errorf("summary %+v", sum)
	}
	// Analysis: every node has its stats row, the root retains the whole heap,
	// the class summary covers every object, and the two identical snapshots
	// compare equal.
	analysis := map[string]string{
		"SELECT count(*) FROM js_heap_node_stats WHERE file_id = 1":                                                                                                 strconv.Itoa(snap.Snapshot.NodeCount),
		"SELECT count(*) FROM js_heap_node_stats WHERE dominator_id = id AND file_id = 0":                                                                           "1",
		"SELECT (SELECT retained_size FROM js_heap_node_stats WHERE file_id = 0 AND node_index = 0) = (SELECT sum(self_size) FROM js_heap_nodes WHERE file_id = 0)": "1",
		"SELECT (SELECT sum(shallow_size) FROM js_heap_class WHERE file_id = 0) = (SELECT sum(self_size) FROM js_heap_nodes WHERE file_id = 0)":                     "1",
		"SELECT count(*) FROM js_heap_class_diff":                                                                                                                   "0",
		"SELECT count(*) > 10 FROM js_heap_class_summary WHERE file_id = 0":                                                                                         "1",
		"SELECT name FROM js_cpu_profiler_function ORDER BY self_time DESC LIMIT 1":                                                                                 "fib",
		"SELECT sum(self_time) = (SELECT sum(dur) FROM js_cpu_profiler_sample) FROM js_cpu_profiler_function":                                                       "1",
		"SELECT total_time = (SELECT sum(dur) FROM js_cpu_profiler_sample) FROM js_cpu_profiler_node_time WHERE function_id = 1":                                    "1",
	}
	for q, want := range analysis {
		if got := testutil.Query(t, db, q); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %v, want %s", q, got, want)
		}
	}
}

// TestNodeTimeline wraps a real allocation-tracking timeline, with the tracking
// events node emitted, into a timeline-mode capture.
func TestNodeTimeline(t *testing.T) {
	text := testutil.Fixture(t, "node/timeline.heaptimeline.gz")
	var events []json.RawMessage
	must(t, json.Unmarshal(testutil.Fixture(t, "node/events.json"), &events))
	var evs []string
	for _, e := range events {
		evs = append(evs, string(e))
	}
	var start uint64
	in := capture(t, testClocks(900_000_000_000), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 77, Type: hiprofpb.ArkTSConfig_TIMELINE, TrackAllocations: true}))
		start = s.Time
		must(t, s.Timeline(text, evs))
	})
	out, _ := convert(t, in, Options{})
	db := testutil.OpenDB(t, out)
	var tl struct {
		Samples   []int64 `json:"samples"`
		Infos     []int64 `json:"trace_function_infos"`
		TraceTree []any   `json:"trace_tree"`
	}
	must(t, json.Unmarshal(text, &tl))
	var count func([]any) int
	count = func(l []any) int {
		n := 0
		for i := 0; i+4 < len(l); i += 5 {
			c, _ := l[i+4].([]any)
			n += 1 + count(c)
		}
		return n
	}
	want := []string{fmt.Sprintf("Timeline|%d|%d|%d|%d", start+bootNs-realNs, len(tl.Samples)/2, len(tl.Infos)/6, count(tl.TraceTree))}
	got := testutil.Query(t, db, `SELECT file_name, start_time, (SELECT count(*) FROM js_heap_sample),
		(SELECT count(*) FROM js_heap_trace_function_info), (SELECT count(*) FROM js_heap_trace_node) FROM js_heap_files`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Every trace node's parent exists in the same file, and the root has -1.
	if got := testutil.Query(t, db, `SELECT count(*) FROM js_heap_trace_node c WHERE parent_id <> -1 AND NOT EXISTS
		(SELECT 1 FROM js_heap_trace_node p WHERE p.file_id = c.file_id AND p.id = c.parent_id)`); got[0] != "0" {
		t.Errorf("%s trace nodes with a missing parent", got[0])
	}
	// Allocation stacks: nodes point at trace nodes that exist.
	if got := testutil.Query(t, db, `SELECT count(*) FROM js_heap_nodes n WHERE trace_node_id <> 0 AND NOT EXISTS
		(SELECT 1 FROM js_heap_trace_node t WHERE t.file_id = n.file_id AND t.id = n.trace_node_id)`); got[0] != "0" {
		t.Errorf("%s nodes with an unknown trace_node_id", got[0])
	}
}

// referenceSession is a small capture built from the reference tests' data: a
// snapshot (two chunks), a second snapshot, and the CPU profile.
func referenceSession(t *testing.T, s *arktstest.Session) {
	meta := `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
		`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","slicedstring","symbol","bigint"],"string","number","number","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},` +
		`"node_count":3,"edge_count":5,"trace_function_count":0},` + "\n"
	snap1 := meta + `"nodes":[9,1,1,0,1,0,0,` + "\n" + `1,3,3,432,3,0,0,` + "\n" + `8,4,9949,40,1,0,0],` + "\n" +
		`"edges":[5,3,7,2,4,14,2,4,0,1,0,14,3,2,0],` + "\n" +
		`"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],"strings":["<dummy>","","GC roots","TaggedDict[52]","JSFunction"]}`
	snap2 := strings.Replace(snap1, "432", "1000", 1)
	prof := `{"tid":1394,"startTime":8013755173,"endTime":8034596087,"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3,4]},` +
		`{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":113097,"children":[]},` +
		`{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[]},` +
		`{"id":4,"callFrame":{"functionName":"anonymous","scriptId":"1","url":"entry/ets/pages/index_.js","lineNumber":2922,"columnNumber":36},"hitCount":1}],` +
		`"samples":[2,3,4,2,2,2,2,3,3,3,3,4,4,4],"timeDeltas":[99,72,215,637,96,288,36,89,94,54,26,598,784,522]}`
	must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 1734, Type: hiprofpb.ArkTSConfig_SNAPSHOT, Interval: 10, EnableCpuProfiler: true, CpuProfilerInterval: 1000}))
	must(t, s.CPUStart())
	s.ChunkSize = 150
	must(t, s.Snapshot([]byte(snap1)))
	must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "memory-plugin", Data: []byte{1}}))
	must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "no-such-plugin", Data: []byte{1}}))
	must(t, s.Snapshot([]byte(snap2)))
	must(t, s.CPUProfile([]byte(prof)))
}

// TestGolden dumps every table of the reference session; the golden file
// (testdata/golden/reference_session.txt) is the reviewed expectation.
func TestGolden(t *testing.T) {
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })
	out, _ := convert(t, in, Options{})
	db := testutil.OpenDB(t, out)
	dump := testutil.Dump(t, db, map[string]bool{"meta": true, "source": true})
	dump += "== source, without path\n" + strings.Join(testutil.Query(t, db,
		"SELECT id, format, compression, bytes, sha256, heap_file_ids, cpu_profile_ids FROM source"), "\n") + "\n"
	// Only non-zero stat rows are interesting; the 500-row layout is checked elsewhere.
	dump += "== stat, non-zero\n" + strings.Join(testutil.Query(t, db, "SELECT * FROM stat WHERE count > 0"), "\n") + "\n"
	dump = strings.Replace(dump, "== stat (500 rows)\n"+strings.Join(testutil.Query(t, db, "SELECT * FROM stat"), "\n")+"\n", "== stat (500 rows)\n", 1)
	testutil.Golden(t, "reference_session.txt", dump, *update)
	schema := strings.Join(testutil.Query(t, db, "SELECT sql FROM sqlite_master ORDER BY rowid"), ";\n") + ";\n"
	testutil.Golden(t, "schema.sql", schema, *update)
}

func TestCompatTimingAndNoMeta(t *testing.T) {
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })
	out, _ := convert(t, in, Options{CompatTiming: true, NoMeta: true})
	db := testutil.OpenDB(t, out)
	// 8013755173 µs MONOTONIC → BOOTTIME: + (1000 s − 8000 s).
	if got := testutil.Query(t, db, "SELECT start_time, dur FROM js_cpu_profiler_sample WHERE id IN (0, 5)"); !reflect.DeepEqual(got,
		[]string{"1013755173000|72000", "1013757378000|1306000"}) {
		t.Errorf("compat samples %v", got)
	}
	if got := testutil.Query(t, db, "SELECT count(*) FROM sqlite_master WHERE name='meta'"); got[0] != "0" {
		t.Error("meta table written with NoMeta")
	}
}

func TestFailures(t *testing.T) {
	dir := t.TempDir()
	notHTrace := filepath.Join(dir, "notes.txt")
	must(t, os.WriteFile(notHTrace, []byte("# tracer: nop\nhello"), 0o644))
	otherOnly := capture(t, [htrace.NumClocks]uint64{}, func(s *arktstest.Session) {
		must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "cpu-plugin", Data: []byte{1}, TvSec: 1}))
	})
	existing := filepath.Join(dir, "existing.db")
	must(t, os.WriteFile(existing, []byte("keep me"), 0o644))
	tests := []struct {
		name, in, out, want string
	}{
		{"not an htrace file", notHTrace, existing, `notes.txt: unsupported input: not an htrace file, heap snapshot, CPU profile, Trace Event JSON or ArkTS .rawheap (a .rawheap of ArkWeb or JSVM is V8's own format, which is not read) (it starts with "# tracer: nop\nhe")`},
		{"no ArkTS data", otherOnly, existing, "nothing usable in the input"},
		{"missing input", filepath.Join(dir, "nope.htrace"), existing, "open input:"},
		{"output is the input", otherOnly, otherOnly, "is the input"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), []string{tt.in}, Options{Output: tt.out, Warnings: io.Discard})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("existing output changed: %q", b)
	}
	checkLeft(t, dir, 2)
	_, err := Run(context.Background(), []string{otherOnly}, Options{Output: filepath.Join(dir, "x.db"), Warnings: io.Discard})
	if !errors.Is(err, ErrNothingUsable) {
		t.Errorf("error %v, want ErrNothingUsable", err)
	}
}

func TestCancelLeavesNoFile(t *testing.T) {
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Run(ctx, []string{in}, Options{Output: filepath.Join(dir, "out.db"), Warnings: io.Discard})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	checkLeft(t, dir, 0)
}

// TestSkippedPlugins: records of plugins tracestreamer does not read are
// counted in stat and reported once per plugin name on stderr.
func TestSkippedPlugins(t *testing.T) {
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 1, Type: hiprofpb.ArkTSConfig_SNAPSHOT}))
		for range 3 {
			must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "cpu-plugin", Data: []byte{1}}))
		}
		for i := range 70 {
			must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: fmt.Sprintf("custom-%02d", i), Data: []byte{1}}))
		}
	})
	out := filepath.Join(t.TempDir(), "out.db")
	var warn strings.Builder
	if _, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: &warn}); err != nil {
		t.Fatal(err)
	}
	db := testutil.OpenDB(t, out)
	if got := testutil.Query(t, db, "SELECT stat_type, count FROM stat WHERE event_name = 'other' AND count > 0"); !reflect.DeepEqual(got,
		[]string{"not_supported|3", "invalid_data|70"}) {
		t.Errorf("stat %v", got)
	}
	for _, want := range []string{
		in + `: 3 records of the hiprofiler plugin "cpu-plugin" skipped: not supported yet`,
		in + `: 1 records of an unknown plugin "custom-00" skipped`,
		"tracestreamer: warning: 59 more other/invalid_data warnings not shown (see table stat)",
	} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, warn.String())
		}
	}
}

// committedCtx reports the run cancelled once its output exists: a Ctrl-C
// that lands between the commit's rename and the summary, without timing.
type committedCtx struct {
	context.Context
	out string
}

func (c committedCtx) Err() error {
	if _, err := os.Stat(c.out); err == nil {
		return context.Canceled
	}
	return c.Context.Err()
}

// TestSummaryAfterCommit: a run cancelled after its output is committed
// succeeds and still prints the summary of the warnings it did not show.
func TestSummaryAfterCommit(t *testing.T) {
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 1, Type: hiprofpb.ArkTSConfig_SNAPSHOT}))
		for i := range 70 {
			must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: fmt.Sprintf("custom-%02d", i), Data: []byte{1}}))
		}
	})
	out := filepath.Join(t.TempDir(), "out.db")
	var warn strings.Builder
	_, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: &warn,
		ctxHook: func(run context.Context) context.Context { return committedCtx{run, out} }})
	if err != nil {
		t.Fatal(err)
	}
	const want = "tracestreamer: warning: 60 more other/invalid_data warnings not shown (see table stat)"
	if !strings.Contains(warn.String(), want) {
		t.Errorf("warnings lack %q:\n%s", want, warn.String())
	}
}

// TestProgressPhases: a run ends in the committing phase; reading with every
// byte read counts as processing.
func TestProgressPhases(t *testing.T) {
	p := &Progress{}
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })
	if _, err := Run(context.Background(), []string{in}, Options{Output: filepath.Join(t.TempDir(), "o.db"),
		Warnings: io.Discard, Progress: p}); err != nil {
		t.Fatal(err)
	}
	if got := p.Phase(); got != PhaseCommitting || p.Done() != p.Total() || p.Total() == 0 {
		t.Errorf("phase %q, %d of %d bytes", got, p.Done(), p.Total())
	}
	p.setPhase(PhaseReading)
	if got := p.Phase(); got != PhaseProcessing {
		t.Errorf("reading with every byte read: phase %q", got)
	}
}

// TestGuard: a panic in an input's parser becomes a counted warning naming the
// input and how far it was read, and the run goes on.
func TestGuard(t *testing.T) {
	var warn strings.Builder
	r := &run{log: stat.NewLog(&warn)}
	read := int64(1234)
	err := r.guard("x.json", formatTraceEvent, &read, func() error { panic("index out of range [7] with length 3") })
	if err != nil || r.log.Count(stat.JSONFile, stat.InvalidData) != 1 ||
		warn.String() != "tracestreamer: warning: x.json: internal error after 1234 bytes (please report it); "+
			"the rest of this input is skipped: index out of range [7] with length 3\n" {
		t.Errorf("error %v, warnings %q", err, warn.String())
	}
	if err := r.guard("y", formatHTrace, &read, func() error { return io.ErrUnexpectedEOF }); err != io.ErrUnexpectedEOF {
		t.Errorf("an error is passed on: %v", err)
	}
}
