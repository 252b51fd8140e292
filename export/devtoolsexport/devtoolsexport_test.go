package devtoolsexport_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tracestreamer/export/devtoolsexport"
	"tracestreamer/heapfile"
	"tracestreamer/ingest"
	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// convert imports inputs into a new database, without the heap analysis, and
// returns its path; the inputs must give no warning.
func convert(t *testing.T, inputs ...string) string {
	t.Helper()
	return convertAnalysed(t, false, inputs...)
}

// convertAnalysed is convert, with the heap analysis when analyse is set.
func convertAnalysed(t *testing.T, analyse bool, inputs ...string) string {
	t.Helper()
	out, warn := convertWarn(t, analyse, inputs...)
	if warn != "" {
		t.Fatalf("import %v warned:\n%s", inputs, warn)
	}
	return out
}

func convertWarn(t *testing.T, analyse bool, inputs ...string) (string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.db")
	var warn strings.Builder
	opts := ingest.Options{Output: out, Warnings: &warn, NoAnalysis: !analyse}
	if _, err := ingest.Run(context.Background(), inputs, opts); err != nil {
		t.Fatalf("import %v: %v\n%s", inputs, err, warn.String())
	}
	return out, warn.String()
}

// skipUnderRace skips a test that reads tens of thousands of rows through
// SQLite many times: under the race detector (modernc's SQLite instrumented)
// it takes many minutes, and it runs no goroutines of its own. make test runs
// it without the detector.
func skipUnderRace(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("slow under the race detector; make test runs it without")
	}
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.WriteFile(p, b, 0o644))
	return p
}

// rowsOf are the queries whose results must be the same after export and
// import: every js_heap_* and js_cpu_* table, with file names, times and
// the ids of other tables (data_dict, source) left out or resolved. Sample
// run times are taken from the start of their profile, heap files' times are
// left out: a standalone file is placed at its modification time.
var rowsOf = map[string]string{
	"js_heap_files": `SELECT id, self_size FROM js_heap_files ORDER BY rowid`,
	// The counts written are those of the rows (node's timeline states 50
	// function infos and carries 56).
	"js_heap_info": `SELECT file_id, key, type, CASE key
		WHEN 'node_count' THEN (SELECT count(*) FROM js_heap_nodes n WHERE n.file_id = i.file_id)
		WHEN 'edge_count' THEN (SELECT count(*) FROM js_heap_edges e WHERE e.file_id = i.file_id)
		WHEN 'trace_function_count' THEN (SELECT count(*) FROM js_heap_trace_function_info f WHERE f.file_id = i.file_id)
		ELSE int_value END, str_value FROM js_heap_info i ORDER BY rowid`,
	"js_heap_nodes":               `SELECT * FROM js_heap_nodes ORDER BY rowid`,
	"js_heap_edges":               `SELECT * FROM js_heap_edges ORDER BY rowid`,
	"js_heap_string":              `SELECT * FROM js_heap_string ORDER BY rowid`,
	"js_heap_location":            `SELECT * FROM js_heap_location ORDER BY rowid`,
	"js_heap_sample":              `SELECT * FROM js_heap_sample ORDER BY rowid`,
	"js_heap_trace_function_info": `SELECT * FROM js_heap_trace_function_info ORDER BY rowid`,
	"js_heap_trace_node":          `SELECT * FROM js_heap_trace_node ORDER BY rowid`,
	"js_heap_native_size":         `SELECT * FROM js_heap_native_size ORDER BY rowid`,
	"js_heap_node_stats":          `SELECT * FROM js_heap_node_stats ORDER BY rowid`,
	"js_heap_class":               `SELECT * FROM js_heap_class ORDER BY rowid`,
	"js_cpu_profile": `SELECT id, first_node_rowid, node_count, first_sample_id, sample_count, end_time - start_time
		FROM js_cpu_profile ORDER BY rowid`,
	"js_cpu_profiler_node": `SELECT n.function_id, f.data, n.script_id, u.data, n.line_number, n.column_number, n.hit_count,
		n.children, typeof(n.children), n.parent_id FROM js_cpu_profiler_node n JOIN data_dict f ON f.id = n.function_index
		JOIN data_dict u ON u.id = n.url_index ORDER BY n.rowid`,
	"js_cpu_profiler_sample": `SELECT s.id, s.function_id, s.start_time - p.start_time, s.end_time - p.start_time, s.dur
		FROM js_cpu_profiler_sample s JOIN js_cpu_profile p ON s.id BETWEEN p.first_sample_id AND p.first_sample_id + p.sample_count - 1
		ORDER BY s.rowid`,
	"js_cpu_profiler_node_time": `SELECT * FROM js_cpu_profiler_node_time ORDER BY rowid`,
}

// TestRoundTrip imports every bundled heap snapshot, timeline and CPU
// profile (standalone, and inside an htrace capture with an ArkTS-layout
// snapshot), exports the database, imports the exported files and compares
// the rows of every js_heap_* and js_cpu_* table. Snapshots captured with V8
// must come back byte for byte; node's timeline comes back with its true
// trace_function_count (it states 50, carries 56) and is otherwise the same.
func TestRoundTrip(t *testing.T) {
	skipUnderRace(t)
	snap := testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")
	timeline := testutil.Fixture(t, "node/timeline.heaptimeline.gz")
	prof := testutil.Fixture(t, "node/profile.cpuprofile")
	legacy := testutil.Fixture(t, "node/profile.legacy.cpuprofile")
	arkSnap := arkTSLayout(t, snap)
	tests := []struct {
		name   string
		inputs func(t *testing.T, dir string) []string
		files  []string // the files written
		same   map[string][]byte
	}{
		{"node", func(t *testing.T, dir string) []string {
			return []string{write(t, dir, "s.heapsnapshot", snap), write(t, dir, "t.heaptimeline", timeline),
				write(t, dir, "p.cpuprofile", prof), write(t, dir, "l.cpuprofile", legacy)}
		}, []string{"Snapshot0.heapsnapshot", "Timeline1.heaptimeline", "Profile0.cpuprofile", "Profile1.cpuprofile"},
			map[string][]byte{"Snapshot0.heapsnapshot": snap, "Timeline1.heaptimeline": bytes.Replace(timeline,
				[]byte(`"trace_function_count":50}`), []byte(`"trace_function_count":56}`), 1)}},
		{"leak", func(t *testing.T, dir string) []string {
			var in []string
			for _, n := range []string{"baseline", "target", "final"} {
				in = append(in, write(t, dir, n+".heapsnapshot", testutil.Fixture(t, "leak/"+n+".heapsnapshot.gz")))
			}
			return in
		}, []string{"Snapshot0.heapsnapshot", "Snapshot1.heapsnapshot", "Snapshot2.heapsnapshot"},
			map[string][]byte{"Snapshot0.heapsnapshot": testutil.Fixture(t, "leak/baseline.heapsnapshot.gz"),
				"Snapshot1.heapsnapshot": testutil.Fixture(t, "leak/target.heapsnapshot.gz"),
				"Snapshot2.heapsnapshot": testutil.Fixture(t, "leak/final.heapsnapshot.gz")}},
		{"htrace", func(t *testing.T, dir string) []string {
			return []string{capture(t, dir, snap, arkSnap, prof)}
		}, []string{"Snapshot0.heapsnapshot", "Snapshot1.heapsnapshot", "Profile0.cpuprofile"},
			map[string][]byte{"Snapshot0.heapsnapshot": snap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db := convertAnalysed(t, true, tt.inputs(t, dir)...)
			out := filepath.Join(dir, "out")
			files, err := devtoolsexport.Export(context.Background(), out, db)
			must(t, err)
			var names, paths []string
			for _, f := range files {
				names = append(names, filepath.Base(f.Path))
				paths = append(paths, f.Path)
				if st, err := os.Stat(f.Path); err != nil || st.Size() != f.Bytes {
					t.Errorf("%s: %v, size %d bytes said", f.Path, err, f.Bytes)
				}
			}
			if !reflect.DeepEqual(names, tt.files) {
				t.Fatalf("files %q, want %q", names, tt.files)
			}
			for name, want := range tt.same {
				got, err := os.ReadFile(filepath.Join(out, name))
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes differ from the %d bytes V8 wrote", name, len(got), len(want))
				}
			}
			if tt.name == "htrace" {
				// The ArkTS-layout snapshot's nodes come back whole, native
				// sizes included, and the table holds each non-zero one.
				got, err := os.ReadFile(filepath.Join(out, "Snapshot1.heapsnapshot"))
				must(t, err)
				var ours, theirs struct{ Nodes []int64 }
				must(t, json.Unmarshal(got, &ours))
				must(t, json.Unmarshal(arkSnap, &theirs))
				if !reflect.DeepEqual(ours.Nodes, theirs.Nodes) {
					t.Errorf("Snapshot1's nodes differ from the ArkTS-layout snapshot's")
				}
				var n, sum int64
				for i := 7; i < len(theirs.Nodes); i += 8 {
					if v := theirs.Nodes[i]; v != 0 {
						n, sum = n+1, sum+v
					}
				}
				want := []string{fmt.Sprintf("%d|%d", n, sum)}
				if got := testutil.Query(t, testutil.OpenDB(t, db), `SELECT count(*), sum(native_size)
					FROM js_heap_native_size WHERE file_id = 1`); n < 1000 || !reflect.DeepEqual(got, want) {
					t.Errorf("js_heap_native_size of the ArkTS-layout snapshot: %q, want %q", got, want)
				}
			}
			again := convertAnalysed(t, true, paths...)
			a, b := testutil.OpenDB(t, db), testutil.OpenDB(t, again)
			for table, q := range rowsOf {
				want, got := testutil.Query(t, a, q), testutil.Query(t, b, q)
				if len(want) == 0 && table != "js_heap_location" && table != "js_heap_sample" &&
					!strings.HasPrefix(table, "js_heap_trace") && !(tt.name == "leak" && strings.HasPrefix(table, "js_cpu")) &&
					!(tt.name != "htrace" && table == "js_heap_native_size") {
					t.Errorf("%s: no rows", table)
				}
				if !reflect.DeepEqual(got, want) {
					line, g, w, _ := testutil.FirstDiff(strings.Join(got, "\n"), strings.Join(want, "\n"))
					t.Errorf("%s: %d rows after the round trip, %d before; row %d: %q, was %q", table, len(got), len(want),
						line, g, w)
				}
			}
		})
	}
}

// arkTSLayout rewrites a V8 snapshot with ArkTS's 8-field nodes (a
// native_size after detachedness, edges' to_node counting 8 fields a node).
func arkTSLayout(t *testing.T, snap []byte) []byte {
	var doc map[string]json.RawMessage
	must(t, json.Unmarshal(snap, &doc))
	var nodes, edges []int64
	must(t, json.Unmarshal(doc["nodes"], &nodes))
	must(t, json.Unmarshal(doc["edges"], &edges))
	var n8 []int64
	for i := 0; i+7 <= len(nodes); i += 7 {
		n8 = append(n8, nodes[i:i+7]...)
		n8 = append(n8, nodes[i+3]/2) // a native size
	}
	for i := 2; i < len(edges); i += 3 {
		edges[i] = edges[i] / 7 * 8
	}
	b, _ := json.Marshal(n8)
	doc["nodes"] = b
	b, _ = json.Marshal(edges)
	doc["edges"] = b
	meta := strings.Replace(string(doc["snapshot"]), `"detachedness"]`, `"detachedness","native_size"]`, 1)
	if meta == string(doc["snapshot"]) {
		t.Fatal("no node_fields to extend")
	}
	doc["snapshot"] = json.RawMessage(meta)
	out, err := json.Marshal(doc)
	must(t, err)
	return out
}

// capture writes an htrace file of an ArkTS session: a CPU profile and two
// snapshots.
func capture(t *testing.T, dir string, snap1, snap2, prof []byte) string {
	path := filepath.Join(dir, "in.htrace")
	f, err := os.Create(path)
	must(t, err)
	defer f.Close()
	var clocks [htrace.NumClocks]uint64
	clocks[htrace.ClockBoottime], clocks[htrace.ClockRealtime], clocks[htrace.ClockMonotonic] =
		1_000_000_000_000, 1_795_000_000_000_000_000, 5_000_000_000
	s, err := arktstest.NewSession(f, clocks)
	must(t, err)
	s.Time = 1_795_000_002_000_000_000
	s.Step = 1_000_000
	must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 7, Type: hiprofpb.ArkTSConfig_SNAPSHOT, EnableCpuProfiler: true}))
	must(t, s.CPUStart())
	must(t, s.Snapshot(snap1))
	must(t, s.Snapshot(snap2))
	must(t, s.CPUProfile(prof))
	must(t, s.Close())
	return path
}

// TestNoOverwrite: an export whose files exist already writes nothing.
func TestNoOverwrite(t *testing.T) {
	dir := t.TempDir()
	db := convert(t, write(t, dir, "p.cpuprofile", testutil.Fixture(t, "node/profile.cpuprofile")),
		write(t, dir, "s.heapsnapshot", testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")))
	out := filepath.Join(dir, "out")
	must(t, os.MkdirAll(out, 0o755))
	write(t, out, "Profile0.cpuprofile", []byte("mine"))
	_, err := devtoolsexport.Export(context.Background(), out, db)
	if err == nil || !strings.Contains(err.Error(), "Profile0.cpuprofile exists already") {
		t.Fatalf("err = %v", err)
	}
	left, _ := os.ReadDir(out)
	if b, _ := os.ReadFile(filepath.Join(out, "Profile0.cpuprofile")); len(left) != 1 || string(b) != "mine" {
		t.Errorf("folder holds %d files, Profile0.cpuprofile %q", len(left), b)
	}
}

// TestNothingToExport: a database of a Trace Event file has no heap file and
// no profile.
func TestNothingToExport(t *testing.T) {
	dir := t.TempDir()
	db, _ := convertWarn(t, false, write(t, dir, "e.json", testutil.Fixture(t, "node/trace.json")))
	_, err := devtoolsexport.Export(context.Background(), filepath.Join(dir, "out"), db)
	if err == nil || !strings.Contains(err.Error(), "no heap file and no CPU profile") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the folder was made")
	}
}

// TestRowsOutOfFileOrder: the export finds a file's rows by binary search on
// rowid, assuming the files' rows follow each other; rows of the three
// snapshots interleaved, or rowids with gaps, must still give the files
// written from the importer's database.
func TestRowsOutOfFileOrder(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	var in []string
	for _, n := range []string{"baseline", "target", "final"} {
		in = append(in, write(t, dir, n+".heapsnapshot", testutil.Fixture(t, "leak/"+n+".heapsnapshot.gz")))
	}
	orig := convert(t, in...)
	want, err := devtoolsexport.Export(context.Background(), filepath.Join(dir, "want"), orig)
	must(t, err)
	for _, tt := range []struct {
		name string
		sql  []string
	}{
		{"interleaved", []string{
			// Row k of every file, then row k+1 of every file, and so on.
			`CREATE TABLE x AS SELECT file_id, file_index, string FROM (SELECT *, row_number() OVER
				(PARTITION BY file_id ORDER BY rowid) AS k FROM js_heap_string) ORDER BY k, file_id`,
			`DELETE FROM js_heap_string`, `INSERT INTO js_heap_string SELECT * FROM x ORDER BY rowid`, `DROP TABLE x`}},
		{"gaps", []string{
			`UPDATE js_heap_edges SET rowid = rowid + 100000000 WHERE file_id = 2`,
			`UPDATE js_heap_nodes SET rowid = rowid + 100000000 WHERE file_id >= 1`}},
		{"foreign rows", []string{
			`INSERT INTO js_heap_nodes (file_id, node_index, type, name, id, self_size, edge_count, trace_node_id, detachedness)
				VALUES (7, 0, 0, 0, 1, 0, 0, 0, 0)`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "x.db")
			b, err := os.ReadFile(orig)
			must(t, err)
			must(t, os.WriteFile(db, b, 0o644))
			rw, err := sql.Open("sqlite", db)
			must(t, err)
			for _, q := range tt.sql {
				if _, err := rw.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			must(t, rw.Close())
			got, err := devtoolsexport.Export(context.Background(), filepath.Join(t.TempDir(), "got"), db)
			must(t, err)
			if len(got) != len(want) {
				t.Fatalf("%d files, want %d", len(got), len(want))
			}
			for i := range got {
				g, err := os.ReadFile(got[i].Path)
				must(t, err)
				w, err := os.ReadFile(want[i].Path)
				must(t, err)
				if !bytes.Equal(g, w) {
					t.Errorf("%s: %d bytes, want %d", filepath.Base(got[i].Path), len(g), len(w))
				}
			}
		})
	}
}

// TestRawheapAsTranslator: a .rawheap dump (dynamic V1 and V2 of each header
// form, a static one, a hybrid pair) imported and exported is the snapshot
// rawheap_translator makes of it, member by member, native_size included
// (only the line breaks of the header differ, and the nodes whose id an
// earlier node has carry their synthetic id). The dumps with native sizes
// (JS_NATIVE_POINTER objects) keep every one: their sum in the export is the
// translator's.
func TestRawheapAsTranslator(t *testing.T) {
	read := func(name string) []byte { return testutil.Fixture(t, "rawheap/"+name) }
	for _, c := range []struct {
		name       string
		inputs     []string
		translated string
		nativeSum  int64 // the sum of the translator's native_size values
		renamed    int   // nodes whose repeated id is replaced by a synthetic one
	}{
		{"dynamic", []string{"hybrid.dyn"}, "hybrid.dyn", 0, 4},
		{"V1", []string{"v1"}, "v1", 5344, 47},
		{"V1 2024", []string{"v1-2024"}, "v1-2024", 5344, 47},
		{"V2", []string{"v2"}, "v2", 5344, 4},
		{"V2 2026", []string{"v2-2026"}, "v2-2026", 5344, 181},
		{"static", []string{"static-node"}, "static-node", 0, 0},
		{"hybrid pair", []string{"hybrid.dyn", "hybrid.sta"}, "hybrid", 0, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var in []string
			for _, f := range c.inputs {
				in = append(in, write(t, dir, f+".rawheap", read(f+".rawheap.gz")))
			}
			db, _ := convertWarn(t, false, in...)
			files, err := devtoolsexport.Export(context.Background(), filepath.Join(dir, "out"), db)
			must(t, err)
			if len(files) != 1 {
				t.Fatalf("%d files", len(files))
			}
			got, err := os.ReadFile(files[0].Path)
			must(t, err)
			var ours, theirs map[string]any
			must(t, json.Unmarshal(got, &ours))
			must(t, json.Unmarshal(read(c.translated+".translated.heapsnapshot.gz"), &theirs))
			if len(ours) != len(theirs) {
				t.Errorf("%d members, the translator's %d", len(ours), len(theirs))
			}
			// The nodes whose id an earlier node has get a synthetic id
			// (heapfile/ids.go): the export writes the stored id.
			if n := renameRepeatedIDs(t, theirs); n != c.renamed {
				t.Errorf("%d nodes repeat an id, want %d", n, c.renamed)
			}
			for k, v := range theirs {
				if !reflect.DeepEqual(ours[k], v) {
					t.Errorf("%s differs from the translator's", k)
				}
			}
			nodes := ours["nodes"].([]any)
			if len(nodes) < 20000 {
				t.Errorf("only %d node values", len(nodes))
			}
			var sum int64
			for i := 7; i < len(nodes); i += 8 {
				sum += int64(nodes[i].(float64))
			}
			if sum != c.nativeSum {
				t.Errorf("native_size sums to %d, want %d", sum, c.nativeSum)
			}
		})
	}
}

// renameRepeatedIDs gives the nodes of a parsed .heapsnapshot (heap file 0)
// whose id an earlier node has the synthetic id tracestreamer stores, and
// returns how many it renamed.
func renameRepeatedIDs(t *testing.T, snap map[string]any) int {
	t.Helper()
	fields := snap["snapshot"].(map[string]any)["meta"].(map[string]any)["node_fields"].([]any)
	idField := -1
	for i, f := range fields {
		if f == "id" {
			idField = i
		}
	}
	if idField < 0 {
		t.Fatal("no id node field")
	}
	nodes := snap["nodes"].([]any)
	seen := map[float64]bool{}
	n := 0
	for i := 0; i+len(fields) <= len(nodes); i += len(fields) {
		id := nodes[i+idField].(float64)
		if seen[id] {
			nodes[i+idField] = float64(heapfile.SyntheticID(0, int64(i/len(fields))))
			n++
		}
		seen[id] = true
	}
	return n
}
