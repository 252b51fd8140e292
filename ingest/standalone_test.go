package ingest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/proto/hiprofpb"
)

// writeFile writes b under dir as name, compressed as the extension says.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	switch {
	case strings.HasSuffix(name, ".gz"):
		zw := gzip.NewWriter(&out)
		zw.Write(b)
		zw.Close()
	case strings.HasSuffix(name, ".zz"):
		zw := zlib.NewWriter(&out)
		zw.Write(b)
		zw.Close()
	case strings.HasSuffix(name, ".zip"):
		zw := zip.NewWriter(&out)
		w, _ := zw.Create(strings.TrimSuffix(name, ".zip"))
		w.Write(b)
		zw.Close()
	default:
		out.Write(b)
	}
	path := filepath.Join(dir, name)
	must(t, os.WriteFile(path, out.Bytes(), 0o644))
	return path
}

func convertAll(t *testing.T, inputs ...string) (string, *Summary, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.db")
	var warn strings.Builder
	sum, err := Run(context.Background(), inputs, Options{Output: out, Warnings: &warn})
	if err != nil {
		t.Fatalf("Run(%v): %v\n%s", inputs, err, warn.String())
	}
	return out, sum, warn.String()
}

// TestStandaloneFormats reads every standalone format captured with node, plain
// and compressed, recognised by content whatever the file is called.
func TestStandaloneFormats(t *testing.T) {
	dir := t.TempDir()
	snap := testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")
	timeline := testutil.Fixture(t, "node/timeline.heaptimeline.gz")
	prof := testutil.Fixture(t, "node/profile.cpuprofile")
	legacy := testutil.Fixture(t, "node/profile.legacy.cpuprofile")
	tests := []struct {
		name, file string
		data       []byte
		format     string
		compress   string
		want       string // query result
		query      string
	}{
		{"heap snapshot", "a.heapsnapshot", snap, "heapsnapshot", "none", "Snapshot0|47953", "SELECT file_name, (SELECT count(*) FROM js_heap_nodes) FROM js_heap_files"},
		{"gzip heap snapshot", "a.heapsnapshot.gz", snap, "heapsnapshot", "gzip", "Snapshot0|47953", "SELECT file_name, (SELECT count(*) FROM js_heap_nodes) FROM js_heap_files"},
		{"zlib heap snapshot named .bin", "a.bin.zz", snap, "heapsnapshot", "zlib", "Snapshot0|47953", "SELECT file_name, (SELECT count(*) FROM js_heap_nodes) FROM js_heap_files"},
		{"zip heap snapshot", "a.heapsnapshot.zip", snap, "heapsnapshot", "zip", "Snapshot0|47953", "SELECT file_name, (SELECT count(*) FROM js_heap_nodes) FROM js_heap_files"},
		{"heap timeline", "b.heaptimeline", timeline, "heapsnapshot", "none", "Timeline|56", "SELECT file_name, (SELECT count(*) FROM js_heap_trace_function_info) FROM js_heap_files"},
		{"gzip heap timeline", "b.heaptimeline.gz", timeline, "heapsnapshot", "gzip", "Timeline|56", "SELECT file_name, (SELECT count(*) FROM js_heap_trace_function_info) FROM js_heap_files"},
		{"cpu profile", "c.cpuprofile", prof, "cpuprofile", "none", "24|333", "SELECT count(*), (SELECT count(*) FROM js_cpu_profiler_sample) FROM js_cpu_profiler_node"},
		{"gzip cpu profile", "c.cpuprofile.gz", prof, "cpuprofile", "gzip", "24|333", "SELECT count(*), (SELECT count(*) FROM js_cpu_profiler_sample) FROM js_cpu_profiler_node"},
		{"legacy cpu profile", "d.cpuprofile", legacy, "cpuprofile", "none", "24|333", "SELECT count(*), (SELECT count(*) FROM js_cpu_profiler_sample) FROM js_cpu_profiler_node"},
		{"gzip legacy cpu profile", "d.json.gz", legacy, "cpuprofile", "gzip", "24|333", "SELECT count(*), (SELECT count(*) FROM js_cpu_profiler_sample) FROM js_cpu_profiler_node"},
	}
	for _, tt := range tests {
		path := writeFile(t, dir, tt.file, tt.data)
		out, _, warn := convertAll(t, path)
		db := testutil.OpenDB(t, out)
		if got := testutil.Query(t, db, tt.query); len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: %v, want %s (warnings %q)", tt.name, got, tt.want, warn)
		}
		info, _ := os.Stat(path)
		src := testutil.Query(t, db, "SELECT format, compression, bytes, length(sha256) FROM source")
		if want := []string{tt.format + "|" + tt.compress + "|" + strconv.FormatInt(info.Size(), 10) + "|64"}; !reflect.DeepEqual(src, want) {
			t.Errorf("%s: source %v, want %v", tt.name, src, want)
		}
		if got := testutil.Query(t, db, "SELECT value FROM meta WHERE name='source_type'"); got[0] != "txt-based-trace" {
			t.Errorf("%s: source_type %v", tt.name, got)
		}
	}
}

// TestLegacyMatchesCurrent: the legacy form of a profile gives the same rows as
// the current form it was made from.
func TestLegacyMatchesCurrent(t *testing.T) {
	dir := t.TempDir()
	cur, _, _ := convertAll(t, writeFile(t, dir, "c.cpuprofile", testutil.Fixture(t, "node/profile.cpuprofile")))
	old, _, _ := convertAll(t, writeFile(t, dir, "l.cpuprofile", testutil.Fixture(t, "node/profile.legacy.cpuprofile")))
	for _, q := range []string{
		"SELECT n.function_id, f.data, n.script_id, u.data, n.line_number, n.column_number, n.hit_count, n.children, n.parent_id FROM js_cpu_profiler_node n JOIN data_dict f ON f.id = n.function_index JOIN data_dict u ON u.id = n.url_index ORDER BY n.rowid",
		// Both end at their file's modification time, but the legacy endTime is
		// rounded to ms: compare times from the first sample on.
		"SELECT id, function_id, start_time - (SELECT min(start_time) FROM js_cpu_profiler_sample), dur FROM js_cpu_profiler_sample",
	} {
		a, b := testutil.Query(t, testutil.OpenDB(t, cur), q), testutil.Query(t, testutil.OpenDB(t, old), q)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\ncurrent %v\nlegacy  %v", q, a[:min(3, len(a))], b[:min(3, len(b))])
		}
	}
}

// TestManyInputs converts an htrace capture, a standalone snapshot and a
// standalone CPU profile into one database.
func TestManyInputs(t *testing.T) {
	dir := t.TempDir()
	htrace := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })
	snap := writeFile(t, dir, "b.heapsnapshot.gz", testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))
	prof := writeFile(t, dir, "c.cpuprofile.gz", testutil.Fixture(t, "node/profile.cpuprofile"))
	out, sum, warn := convertAll(t, htrace, snap, prof)
	db := testutil.OpenDB(t, out)
	if got := testutil.Query(t, db, "SELECT id, file_name FROM js_heap_files"); !reflect.DeepEqual(got,
		[]string{"0|Snapshot0", "1|Snapshot1", "2|Snapshot2"}) {
		t.Errorf("heap files %v", got)
	}
	if got := testutil.Query(t, db, "SELECT id, format, compression, heap_file_ids, cpu_profile_ids FROM source"); !reflect.DeepEqual(got,
		[]string{"0|htrace|none|0,1|0", "1|heapsnapshot|gzip|2|", "2|cpuprofile|gzip||1"}) {
		t.Errorf("source %v", got)
	}
	// Every CPU node and sample row belongs to exactly one profile, and through
	// it to its input.
	got := testutil.Query(t, db, `SELECT p.id, s.path, count(*) FROM js_cpu_profile p JOIN source s ON s.id = p.source_id
		JOIN js_cpu_profiler_node n ON n.rowid BETWEEN p.first_node_rowid AND p.first_node_rowid + p.node_count - 1
		GROUP BY p.id ORDER BY p.id`)
	if !reflect.DeepEqual(got, []string{"0|" + htrace + "|4", "1|" + prof + "|24"}) {
		t.Errorf("profiles → nodes %v", got)
	}
	got = testutil.Query(t, db, `SELECT p.id, count(*) FROM js_cpu_profile p JOIN js_cpu_profiler_sample s
		ON s.id BETWEEN p.first_sample_id AND p.first_sample_id + p.sample_count - 1 GROUP BY p.id`)
	if !reflect.DeepEqual(got, []string{"0|6", "1|333"}) {
		t.Errorf("profiles → samples %v", got)
	}
	// The reference session holds one record of a hiprofiler plugin and one of
	// an unknown one: each name is reported once.
	wantWarn := "tracestreamer: warning: " + htrace + `: 1 records of the hiprofiler plugin "memory-plugin" skipped: not supported yet` + "\n" +
		"tracestreamer: warning: " + htrace + `: 1 records of an unknown plugin "no-such-plugin" skipped` + "\n"
	if sum.Rows["js_heap_nodes"] != 6+47953 || warn != wantWarn {
		t.Errorf("rows %d, warnings %q", sum.Rows["js_heap_nodes"], warn)
	}
	if got := testutil.Query(t, db, "SELECT value FROM meta WHERE name='source_name'"); got[0] != htrace+","+snap+","+prof {
		t.Errorf("meta source_name %v", got)
	}
}

// TestSameRowsStandaloneAndHTrace: a snapshot and a profile give identical
// table contents, apart from times, read standalone or from an htrace file.
func TestSameRowsStandaloneAndHTrace(t *testing.T) {
	dir := t.TempDir()
	snapText := testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")
	prof := testutil.Fixture(t, "node/profile.cpuprofile")
	in := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Type: hiprofpb.ArkTSConfig_SNAPSHOT, EnableCpuProfiler: true}))
		must(t, s.CPUStart())
		must(t, s.Snapshot(snapText))
		must(t, s.CPUProfile(prof))
	})
	viaHTrace, _, _ := convertAll(t, in)
	profPath := writeFile(t, dir, "p.cpuprofile", prof)
	const mtime = 1_800_000_000_123_456_789 // ns, CLOCK_REALTIME
	must(t, os.Chtimes(profPath, time.Unix(0, mtime), time.Unix(0, mtime)))
	standalone, _, _ := convertAll(t, writeFile(t, dir, "s.heapsnapshot", snapText), profPath)
	a, b := testutil.OpenDB(t, viaHTrace), testutil.OpenDB(t, standalone)
	for _, q := range []string{
		"SELECT id, file_name, self_size FROM js_heap_files",
		"SELECT * FROM js_heap_nodes", "SELECT * FROM js_heap_edges", "SELECT * FROM js_heap_string",
		"SELECT * FROM js_heap_info", "SELECT * FROM js_heap_location",
		"SELECT n.function_id, f.data, n.script_id, u.data, n.line_number, n.column_number, n.hit_count, n.children, n.parent_id FROM js_cpu_profiler_node n JOIN data_dict f ON f.id = n.function_index JOIN data_dict u ON u.id = n.url_index",
		"SELECT id, function_id, dur FROM js_cpu_profiler_sample",
	} {
		ra, rb := testutil.Query(t, a, q), testutil.Query(t, b, q)
		if len(ra) == 0 || !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s: %d rows via htrace, %d standalone, or different", q, len(ra), len(rb))
		}
	}
	// Standalone times: the profile is shifted onto the wall clock so that its
	// endTime (173023620 µs) is the file's modification time; its first sample
	// (startTime 172766915 µs + timeDeltas[0] 5708 µs) lies 250.997 ms before.
	if got := testutil.Query(t, b, "SELECT start_time FROM js_cpu_profiler_sample WHERE id = 0"); got[0] != strconv.FormatInt(mtime-250_997_000, 10) {
		t.Errorf("standalone first sample at %v, want the file's mtime - 250997000 ns", got)
	}
}

// TestStandalonePlacement: standalone heap files and profiles end at their
// file's modification time (a snapshot lasts 1 ns, a timeline as long as its
// samples), and a run of standalone files gets the js_config row SmartPerf-Host
// needs to draw them.
func TestStandalonePlacement(t *testing.T) {
	dir := t.TempDir()
	const t1, t2, t3 = 1_800_000_000_000_000_000, 1_800_000_010_000_000_000, 1_800_000_020_000_000_000
	file := func(name, fixture string, mtime int64) string {
		p := writeFile(t, dir, name, testutil.Fixture(t, fixture))
		must(t, os.Chtimes(p, time.Unix(0, mtime), time.Unix(0, mtime)))
		return p
	}
	snap := file("a.heapsnapshot", "node/snapshot.heapsnapshot.gz", t1)
	timeline := file("b.heaptimeline", "node/timeline.heaptimeline.gz", t2)
	prof := file("c.cpuprofile", "node/profile.cpuprofile", t3)
	tests := []struct {
		name             string
		inputs           []string
		files, config    []string
		rangeStart, rEnd int64
	}{
		// The timeline's last sample is at 313916 µs.
		{"all three", []string{snap, timeline, prof},
			[]string{"0|Snapshot0|1799999999999999999|1800000000000000000", "1|Timeline|1800000009686084000|1800000010000000000"},
			[]string{"0|1|NULL|NULL|1|1|NULL"}, t1 - 1, t3 - 149_000}, // the last sample run ends 149 µs before endTime
		{"snapshot only", []string{snap}, []string{"0|Snapshot0|1799999999999999999|1800000000000000000"},
			[]string{"0|0|NULL|NULL|0|0|NULL"}, t1 - 1, t1},
		{"profile only", []string{prof}, nil, []string{"0|-1|NULL|NULL|0|1|NULL"}, t3 - 250_997_000, t3 - 149_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _ := convertAll(t, tt.inputs...)
			db := testutil.OpenDB(t, out)
			if got := testutil.Query(t, db, "SELECT id, file_name, start_time, end_time FROM js_heap_files"); !reflect.DeepEqual(got, tt.files) && len(got)+len(tt.files) > 0 {
				t.Errorf("heap files %v, want %v", got, tt.files)
			}
			if got := testutil.Query(t, db, "SELECT * FROM js_config"); !reflect.DeepEqual(got, tt.config) {
				t.Errorf("js_config %v, want %v", got, tt.config)
			}
			want := fmt.Sprintf("%d|%d", tt.rangeStart, tt.rEnd)
			if got := testutil.Query(t, db, "SELECT * FROM trace_range"); got[0] != want {
				t.Errorf("trace_range %v, want %s", got, want)
			}
		})
	}
}

func TestUnknownInputs(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "p.cpuprofile", testutil.Fixture(t, "node/profile.cpuprofile"))
	tests := []struct{ name, file, data, want string }{
		{"other JSON", "x.json", `{"foo":1,"bar":[1,2]}`, "x.json: unsupported input: not an htrace file, heap snapshot, CPU profile, Trace Event JSON or ArkTS .rawheap"},
		{"empty", "e.cpuprofile", ``, "e.cpuprofile: unsupported input"},
		{"zip of two", "two.zip", "", "zip archive holds 2 files"},
	}
	for _, tt := range tests {
		var path string
		if tt.name == "zip of two" {
			var b bytes.Buffer
			zw := zip.NewWriter(&b)
			for _, n := range []string{"a", "b"} {
				w, _ := zw.Create(n)
				w.Write([]byte("{}"))
			}
			zw.Close()
			path = filepath.Join(dir, tt.file)
			must(t, os.WriteFile(path, b.Bytes(), 0o644))
		} else {
			path = writeFile(t, dir, tt.file, []byte(tt.data))
		}
		out := filepath.Join(dir, "out.db")
		_, err := Run(context.Background(), []string{good, path}, Options{Output: out, Warnings: io.Discard})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: output written", tt.name)
		}
	}
}

// TestStandaloneProblems: a truncated snapshot among good inputs is dropped and
// counted; samples naming unknown nodes are counted.
func TestStandaloneProblems(t *testing.T) {
	dir := t.TempDir()
	snap := testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")
	cut := writeFile(t, dir, "cut.heapsnapshot", snap[:len(snap)/2])
	good := writeFile(t, dir, "good.heapsnapshot.gz", snap)
	prof := writeFile(t, dir, "p.cpuprofile", []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},`+
		`{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":3,"columnNumber":4}}],`+
		`"startTime":100,"endTime":200,"samples":[2,2,7,2],"timeDeltas":[10,-5,20,10]}`))
	// Modified at its endTime (200 µs after the epoch), the profile keeps its times.
	must(t, os.Chtimes(prof, time.Unix(0, 200_000), time.Unix(0, 200_000)))
	out, sum, warn := convertAll(t, cut, good, prof)
	db := testutil.OpenDB(t, out)
	if got := testutil.Query(t, db, "SELECT id, file_name FROM js_heap_files"); !reflect.DeepEqual(got, []string{"0|Snapshot0"}) {
		t.Errorf("heap files %v", got)
	}
	if got := testutil.Query(t, db, "SELECT count(*) FROM js_heap_nodes WHERE file_id <> 0"); got[0] != "0" {
		t.Errorf("rows of the dropped snapshot remain: %v", got)
	}
	if !strings.Contains(warn, "cut.heapsnapshot: heap snapshot dropped") || !strings.Contains(warn, "p.cpuprofile: CPU profile: 1 samples name node ids that are not in the profile\n") {
		t.Errorf("warnings %q", warn)
	}
	// hitCount derived from the samples; samples in time order (delta -5).
	if got := testutil.Query(t, db, "SELECT function_id, hit_count FROM js_cpu_profiler_node"); !reflect.DeepEqual(got, []string{"1|0", "2|3"}) {
		t.Errorf("hit counts %v", got)
	}
	if got := testutil.Query(t, db, "SELECT function_id, start_time, end_time FROM js_cpu_profiler_sample"); !reflect.DeepEqual(got,
		[]string{"2|105000|125000", "7|125000|135000", "2|135000|145000"}) {
		t.Errorf("samples %v", got)
	}
	if sum.Problems < 2 {
		t.Errorf("problems %d", sum.Problems)
	}
}

// TestUTF8ByteOrderMark: a standalone file that starts with a UTF-8 byte order
// mark (as some Windows editors save JSON) is recognised and read.
func TestUTF8ByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	bom := []byte("\xef\xbb\xbf")
	prof := writeFile(t, dir, "p.cpuprofile", append(bom, testutil.Fixture(t, "node/profile.cpuprofile")...))
	_, sum, warn := convertAll(t, prof)
	if sum.Rows["js_cpu_profiler_node"] != 24 || warn != "" {
		t.Errorf("rows %v, warnings %q", sum.Rows, warn)
	}
}

// TestCPUProfileBombBounded: a .cpuprofile.gz of a few hundred KB whose text
// is 300 MB (white space around a small profile, one of whose names needs
// the ArkTS repair) is converted allocating far less than its text, from a
// file (read again for the repair) and from standard input (kept deflated).
// Read with io.ReadAll, it cost over 300 MB.
func TestCPUProfileBombBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 MB texts")
	}
	const size = 300 << 20
	node := `{"id":%d,"callFrame":{"functionName":"%s","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1,"children":[%s]}`
	tests := []struct {
		name, fn  string
		stdin     bool
		wantWarn  string
		wantNames []string
	}{
		{"white space", "f", false, "", []string{"(root)", "f"}},
		{"repaired", `say "hi"`, false, "CPU profile repaired: 1 function or module names", []string{"(root)", `say "hi"`}},
		{"repaired from stdin", `say "hi"`, true, "CPU profile repaired: 1 function or module names", []string{"(root)", `say "hi"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bomb.cpuprofile.gz")
			f, err := os.Create(path)
			must(t, err)
			zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
			fmt.Fprintf(zw, `{"nodes":[`+node+`,`+node+`],`, 1, "(root)", "2", 2, tt.fn, "")
			spaces := bytes.Repeat([]byte{' '}, 1<<20)
			for i := 0; i < size>>20; i++ {
				zw.Write(spaces)
			}
			zw.Write([]byte(`"startTime":0,"endTime":9,"samples":[2,2,1],"timeDeltas":[1,2,3]}`))
			must(t, zw.Close())
			must(t, f.Close())
			inputs, opts := []string{path}, Options{}
			if tt.stdin {
				in, err := os.Open(path)
				must(t, err)
				defer in.Close()
				inputs, opts.Stdin = []string{"-"}, in
			}
			var warn strings.Builder
			opts.Output, opts.Warnings = filepath.Join(t.TempDir(), "out.db"), &warn
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = Run(context.Background(), inputs, opts)
			runtime.ReadMemStats(&after)
			must(t, err)
			// What was allocated bounds how much the heap grew at its peak.
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d MB of text: %.1f MB allocated", size>>20, float64(alloc)/(1<<20))
			if alloc > 64<<20 {
				t.Errorf("allocated %d bytes for a %d-byte text", alloc, size)
			}
			if tt.wantWarn == "" && warn.Len() > 0 || !strings.Contains(warn.String(), tt.wantWarn) {
				t.Errorf("warnings %q, want %q", warn.String(), tt.wantWarn)
			}
			db := testutil.OpenDB(t, opts.Output)
			if got := testutil.Query(t, db, "SELECT f.data FROM js_cpu_profiler_node n JOIN data_dict f ON f.id = n.function_index ORDER BY n.function_id"); !reflect.DeepEqual(got, tt.wantNames) {
				t.Errorf("names %q, want %q", got, tt.wantNames)
			}
			if got := testutil.Query(t, db, "SELECT count(*) FROM js_cpu_profiler_sample"); !reflect.DeepEqual(got, []string{"2"}) {
				t.Errorf("sample runs %v", got)
			}
		})
	}
}

// TestCPUProfileLongNameBounded: a function name of 300 MB (a 0.3 MB .gz)
// is cut to its first 32 MiB, counted as trace_js_cpu_profiler data_lost
// with a warning, and read in memory bounded by the cut, not the name
// (whole, it took 1.3 GB).
func TestCPUProfileLongNameBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 300 MB text")
	}
	const size = 300 << 20
	path := filepath.Join(t.TempDir(), "long.cpuprofile.gz")
	f, err := os.Create(path)
	must(t, err)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	fmt.Fprint(zw, `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},`+
		`{"id":2,"callFrame":{"functionName":"`)
	name := bytes.Repeat([]byte{'a'}, 1<<20)
	for range size >> 20 {
		zw.Write(name)
	}
	fmt.Fprint(zw, `","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1}],"startTime":0,"endTime":9,"samples":[2,2],"timeDeltas":[1,2]}`)
	must(t, zw.Close())
	must(t, f.Close())
	var warn strings.Builder
	opts := Options{Output: filepath.Join(t.TempDir(), "out.db"), Warnings: &warn}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Run(context.Background(), []string{path}, opts)
	runtime.ReadMemStats(&after)
	must(t, err)
	t.Logf("%d MB name: %d MB allocated", size>>20, (after.TotalAlloc-before.TotalAlloc)>>20)
	// The 32 MiB kept passes through a few copies on its way to the
	// database (298 MB allocated in all); whole, the name took 2 735 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 480<<20 {
		t.Errorf("allocated %d MB for a %d MB name", alloc>>20, size>>20)
	}
	want := fmt.Sprintf("long.cpuprofile.gz: CPU profile: 1 names, URLs or script ids longer than %d bytes were cut to their first %d\n", 32<<20, 32<<20)
	if !strings.HasSuffix(warn.String(), want) {
		t.Errorf("warnings %q, want one ending %q", warn.String(), want)
	}
	db := testutil.OpenDB(t, opts.Output)
	if got := testutil.Query(t, db, "SELECT length(f.data) FROM js_cpu_profiler_node n JOIN data_dict f ON f.id = n.function_index ORDER BY n.function_id"); !reflect.DeepEqual(got, []string{"6", fmt.Sprint(32 << 20)}) {
		t.Errorf("name lengths %v", got)
	}
	if got := testutil.Query(t, db, "SELECT count FROM stat WHERE event_name = 'trace_js_cpu_profiler' AND stat_type = 'data_lost'"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("data_lost %v, want 1", got)
	}
}

// TestLongNumbers: a number longer than jsonscan.MaxNumber in a heap
// snapshot's nodes is read as 0 and counted, in one in a CPU profile's
// callFrame the profile is dropped with an error naming its offset; each
// costs one pass (a 300 MB number took 40 minutes, read again from its
// start after every read) and no buffer of its size.
func TestLongNumbers(t *testing.T) {
	dir := t.TempDir()
	digits := strings.Repeat("7", 1<<20)
	snap := writeFile(t, dir, "n.heapsnapshot.gz", []byte(`{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],`+
		`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"],"string","number","number","number","number","number"],`+
		`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]},`+
		`"node_count":2,"edge_count":1,"trace_function_count":0},"nodes":[9,0,1,0,1,0,0,3,1,`+digits+`,10,0,0,0],"edges":[1,0,7],"strings":["root","a"]}`))
	prof := writeFile(t, dir, "p.cpuprofile", []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},`+
		`{"id":2,"callFrame":{"functionName":"f","scriptId":`+digits+`,"url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1}],"startTime":0,"endTime":9,"samples":[2,2],"timeDeltas":[1,2]}`))
	out, _, warn := convertAll(t, snap, prof)
	for _, want := range []string{
		"n.heapsnapshot.gz: 1 values that are not 64-bit integers were read as 0 (the first at offset 590)\n",
		"p.cpuprofile: CPU profile dropped: nodes: node 1: callFrame: scriptId: offset 194: number longer than 65536 bytes\n",
	} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings %q, want %q", warn, want)
		}
	}
	db := testutil.OpenDB(t, out)
	if got := testutil.Query(t, db, "SELECT id, self_size FROM js_heap_nodes ORDER BY node_index"); !reflect.DeepEqual(got, []string{"1|0", "0|10"}) {
		t.Errorf("nodes %v", got)
	}
	if got := testutil.Query(t, db, "SELECT count(*) FROM js_cpu_profiler_node"); got[0] != "0" {
		t.Errorf("profile nodes %v, want none", got)
	}
}
