package parquetexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"tracestreamer/ingest"
	"tracestreamer/internal/testutil"
)

// convert makes a database from fixtures, as the command would.
func convert(t *testing.T, name string, fixtures ...string) string {
	t.Helper()
	dir := t.TempDir()
	var in []string
	for _, f := range fixtures {
		b := testutil.Fixture(t, f) // gunzipped
		p := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".gz"))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, p)
	}
	out := filepath.Join(dir, name+".db")
	if _, err := ingest.Run(context.Background(), in, ingest.Options{Output: out, Warnings: io.Discard}); err != nil {
		t.Fatal(err)
	}
	return out
}

// readParquet returns a part file's column names, their physical and logical
// types, and its rows.
func readParquet(t *testing.T, path string) (cols []string, types []string, rows []parquet.Row) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range pf.Schema().Fields() {
		cols = append(cols, field.Name())
		typ := field.Type().Kind().String()
		if lt := field.Type().LogicalType(); lt != nil && lt.String() == "STRING" {
			typ += " STRING"
		}
		if field.Optional() {
			typ += " optional"
		}
		types = append(types, typ)
	}
	r := parquet.NewReader(f)
	defer r.Close()
	for {
		row := make(parquet.Row, 0, len(cols))
		row, err := readRow(r, row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	return cols, types, rows
}

func readRow(r *parquet.Reader, row parquet.Row) (parquet.Row, error) {
	buf := []parquet.Row{row}
	n, err := r.ReadRows(buf)
	if n == 1 {
		return buf[0], nil
	}
	if err == nil {
		err = io.EOF
	}
	return nil, err
}

// same compares a SQLite value with a Parquet one.
func same(s any, p parquet.Value) bool {
	if s == nil || p.IsNull() {
		return s == nil && p.IsNull()
	}
	switch p.Kind() {
	case parquet.Int64:
		v, ok := s.(int64)
		return ok && v == p.Int64()
	case parquet.Double:
		switch v := s.(type) {
		case float64:
			return v == p.Double()
		case int64:
			return float64(v) == p.Double()
		}
		return false
	case parquet.ByteArray:
		switch v := s.(type) {
		case string:
			return v == string(p.ByteArray())
		case []byte:
			return string(v) == string(p.ByteArray())
		case int64:
			return fmt.Sprint(v) == string(p.ByteArray())
		case float64:
			// A REAL in a column that also holds text: SQLite's text for it.
			f, err := strconv.ParseFloat(string(p.ByteArray()), 64)
			return err == nil && f == v
		}
	}
	return false
}

// TestEveryRowReadsBack exports three kinds of database into one dataset and
// reads every table and view back from Parquet: the same columns in the same
// order, the types their values call for, and every value the same as
// SQLite's.
func TestEveryRowReadsBack(t *testing.T) {
	dbs := map[string]string{
		"heap":    convert(t, "heap", "node/snapshot.heapsnapshot.gz", "node/profile.cpuprofile"),
		"leaks":   convert(t, "leaks", "leak/baseline.heapsnapshot.gz", "leak/target.heapsnapshot.gz", "leak/final.heapsnapshot.gz"),
		"trace":   convert(t, "trace", "chromium/trace.json.gz"),
		"problem": convert(t, "problem", "traceevent/problems.json"),
	}
	dir := t.TempDir()
	checked := map[string]bool{}
	for _, name := range []string{"heap", "leaks", "trace", "problem"} {
		sum, err := Export(context.Background(), dir, dbs[name], Options{RowGroupBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		db := testutil.OpenDB(t, dbs[name])
		var total int64
		for _, tbl := range sum.Tables {
			scols, srows := testutil.Values(t, db, "SELECT * FROM "+quote(tbl.Name))
			pcols, ptypes, prows := readParquet(t, filepath.Join(dir, tbl.Name, "trace="+sum.Trace, "part-0.parquet"))
			if !slices.Equal(scols, pcols) {
				t.Fatalf("%s %s: columns %v, SQLite %v", name, tbl.Name, pcols, scols)
			}
			if int64(len(prows)) != tbl.Rows || len(prows) != len(srows) {
				t.Fatalf("%s %s: %d rows read, %d written, SQLite has %d", name, tbl.Name, len(prows), tbl.Rows, len(srows))
			}
			for i := range srows {
				for j := range scols {
					if !same(srows[i][j], prows[i][j]) {
						t.Fatalf("%s %s row %d column %s: SQLite %#v, Parquet %v (%s)", name, tbl.Name, i, scols[j],
							srows[i][j], prows[i][j], ptypes[j])
					}
				}
			}
			checked[tbl.Name] = true
			total += tbl.Rows
			if tbl.Name == "js_heap_node_stats" && ptypes[0] != "INT64 optional" {
				t.Errorf("js_heap_node_stats.file_id is %s", ptypes[0])
			}
			if tbl.Name == "js_heap_class" && ptypes[2] != "BYTE_ARRAY STRING optional" {
				t.Errorf("js_heap_class.name is %s", ptypes[2])
			}
			if tbl.Name == "args" && name == "trace" && ptypes[3] != "DOUBLE optional" {
				t.Errorf("args.value of a trace with fractional arguments is %s", ptypes[3])
			}
		}
		if total != sum.Rows() || total == 0 {
			t.Errorf("%s: %d rows, summary %d", name, total, sum.Rows())
		}
	}
	// Tables and views of each kind of trace, and tracestreamer's views.
	for _, want := range []string{"js_heap_nodes", "js_heap_edges", "js_heap_string", "js_heap_node_stats",
		"js_heap_class_summary", "js_heap_leak", "js_heap_leak_path", "js_heap_leak_cluster",
		"js_cpu_profiler_node", "js_cpu_profiler_function", "callstack", "args", "args_view", "thread", "stat", "meta"} {
		if !checked[want] {
			t.Errorf("table %s was not exported", want)
		}
	}
	if checked["js_heap_retainer"] {
		t.Error("view js_heap_retainer was exported")
	}
	// One row per trace in table traces.
	ents, _ := os.ReadDir(filepath.Join(dir, "traces"))
	if len(ents) != len(dbs) {
		t.Errorf("%d trace partitions, want %d", len(ents), len(dbs))
	}
}

// TestReexportReplaces: the same trace exported again (even from another
// conversion of the same inputs) replaces its partitions; another trace adds
// its own and leaves the others alone.
func TestReexportReplaces(t *testing.T) {
	dir := t.TempDir()
	a := convert(t, "a", "node/profile.cpuprofile")
	a2 := convert(t, "a2", "node/profile.cpuprofile")
	b := convert(t, "b", "node/trace.json")
	when := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	first, err := Export(context.Background(), dir, a, Options{Now: func() time.Time { return when }})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Export(context.Background(), dir, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bFile := filepath.Join(dir, "callstack", "trace="+other.Trace, "part-0.parquet")
	before, err := os.ReadFile(bFile)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Export(context.Background(), dir, a2, Options{Now: func() time.Time { return when.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	if again.Trace != first.Trace || other.Trace == first.Trace {
		t.Fatalf("trace ids %s, %s, %s: the same inputs must give the same id, others another", first.Trace, again.Trace, other.Trace)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "js_cpu_profiler_node", "trace=*", "*"))
	if len(parts) != 1 {
		t.Errorf("js_cpu_profiler_node has %v, want one part file", parts)
	}
	_, _, rows := readParquet(t, filepath.Join(dir, "js_cpu_profiler_node", "trace="+first.Trace, "part-0.parquet"))
	db := testutil.OpenDB(t, a)
	if want := testutil.Query(t, db, "SELECT count(*) FROM js_cpu_profiler_node"); fmt.Sprint(len(rows)) != want[0] {
		t.Errorf("%d rows after the second export, SQLite %s", len(rows), want[0])
	}
	after, _ := os.ReadFile(bFile)
	if !bytes.Equal(before, after) {
		t.Error("exporting trace a rewrote trace b's partition")
	}
	cols, _, trows := readParquet(t, filepath.Join(dir, "traces", "trace="+first.Trace, "part-0.parquet"))
	if len(trows) != 1 {
		t.Fatalf("traces partition of a: %d rows", len(trows))
	}
	rec := map[string]string{}
	for i, c := range cols {
		rec[c] = trows[0][i].String()
	}
	var sources []source
	json.Unmarshal([]byte(rec["sources"]), &sources)
	if rec["exported_at"] != "2026-11-24T13:00:00Z" || rec["formats"] != "cpuprofile" || len(sources) != 1 ||
		sources[0].SHA256[:16] == "" || !strings.HasPrefix(rec["sha256"], first.Trace) || rec["db_path"] != a2 {
		t.Errorf("traces row %v", rec)
	}
	var meta map[string]string
	if err := json.Unmarshal([]byte(rec["meta"]), &meta); err != nil || meta["source_type"] == "" {
		t.Errorf("meta %q: %v", rec["meta"], err)
	}
}

// TestNotADatabase: a file that is no SQLite database is an error naming it,
// and nothing is written.
func TestNotADatabase(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.db")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("not sqlite"))
	w.Close()
	os.WriteFile(bad, gz.Bytes(), 0o644)
	out := filepath.Join(dir, "ds")
	_, err := Export(context.Background(), out, bad, Options{})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error %v, want one naming %s", err, bad)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}

// BenchmarkExport exports the leak fixture's database (three snapshots, 0.9 M
// rows) and reports rows per second.
func BenchmarkExport(b *testing.B) {
	t := &testing.T{}
	benchExport(b, convert(t, "leaks", "leak/baseline.heapsnapshot.gz", "leak/target.heapsnapshot.gz",
		"leak/final.heapsnapshot.gz"))
}

// BenchmarkExportDB exports the database named by TRACESTREAMER_EXPORT_DB
// (skipped without it): for measuring on the large databases of make bench.
func BenchmarkExportDB(b *testing.B) {
	db := os.Getenv("TRACESTREAMER_EXPORT_DB")
	if db == "" {
		b.Skip("TRACESTREAMER_EXPORT_DB is not set")
	}
	benchExport(b, db)
}

func benchExport(b *testing.B, db string) {
	b.ResetTimer()
	var rows int64
	for i := 0; i < b.N; i++ {
		sum, err := Export(context.Background(), b.TempDir(), db, Options{})
		if err != nil {
			b.Fatal(err)
		}
		rows += sum.Rows()
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// TestCancelLeavesDatasetAlone: an export stopped half-way (here: cancelled
// before its first large table is done) leaves the trace's earlier partitions
// as they were and no temporary file behind.
func TestCancelLeavesDatasetAlone(t *testing.T) {
	dir := t.TempDir()
	db := convert(t, "snap", "node/snapshot.heapsnapshot.gz")
	first, err := Export(context.Background(), dir, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		files := map[string]string{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				files[strings.TrimPrefix(p, dir)] = fmt.Sprintf("%x", sha256Sum(b))
			}
			return nil
		})
		return files
	}
	before := snapshot()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Export(ctx, dir, db, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled export: %v", err)
	}
	after := snapshot()
	if len(before) != len(after) || len(before) < len(first.Tables) {
		t.Fatalf("%d files before, %d after", len(before), len(after))
	}
	for name, sum := range before {
		if after[name] != sum {
			t.Errorf("%s changed", name)
		}
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// TestForeignNames: tables and views of a database tracestreamer did not
// write, with quotes, spaces, commas and path-like names and columns of mixed
// values, are exported with their names (a comma in a column name becomes
// "_"; a table's folder never leads out of the dataset) and types chosen from
// their values.
func TestForeignNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "foreign.db")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Exec(`CREATE TABLE "my ""table"""(a, "b c" INT, d TEXT);
		INSERT INTO "my ""table""" VALUES (1, 2, 'x'), (2.5, NULL, 3), ('z', 4, NULL);
		CREATE VIEW v AS SELECT "b c" * 2, substr(d, 1, 1) FROM "my ""table""";
		CREATE TABLE "../up"(x INT); INSERT INTO "../up" VALUES (1);
		CREATE TABLE ".."(x INT); INSERT INTO ".." VALUES (1);`)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(dir, "ds")
	sum, err := Export(context.Background(), ds, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tbl := range sum.Tables {
		cols, types, rows := readParquet(t, filepath.Join(ds, folderName(tbl.Name), "trace="+sum.Trace, "part-0.parquet"))
		got[tbl.Name] = fmt.Sprint(cols, types, len(rows))
	}
	want := map[string]string{
		`my "table"`: `[a b c d] [BYTE_ARRAY STRING optional INT64 optional BYTE_ARRAY STRING optional] 3`,
		"v":          `["b c" * 2 substr(d_ 1_ 1)] [INT64 optional BYTE_ARRAY STRING optional] 3`,
		"../up":      `[x] [INT64 optional] 1`,
		"..":         `[x] [INT64 optional] 1`,
	}
	// Tables whose names look like paths stay inside the dataset.
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the export wrote beside the dataset: %v", ents)
	}
	for _, f := range []string{".._up", "_.."} {
		if _, err := os.Stat(filepath.Join(ds, f)); err != nil {
			t.Error(err)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("exported %v\nwant %v", got, want)
	}
}

// TestAwkwardRelations: names that would clash, long texts that end row
// groups early, and a view SQLite takes forever to read, which a cancellation
// interrupts.
func TestAwkwardRelations(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, ddl string) string {
		path := filepath.Join(dir, name)
		w, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Exec(ddl); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Columns named "-", "" and twice "a_b" once commas are replaced.
	names := mk("names.db", `CREATE TABLE t(x INT, "a,b" INT, a_b INT); INSERT INTO t VALUES (1, 2, 3);
		CREATE VIEW v AS SELECT x AS "-", x AS "", "a,b", a_b FROM t;
		CREATE TABLE long(s TEXT);
		WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200)
		INSERT INTO long SELECT printf('%.*c', 100000, 'x') FROM c;`)
	ds := filepath.Join(dir, "ds")
	sum, err := Export(context.Background(), ds, names, Options{RowGroupBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	cols, _, rows := readParquet(t, filepath.Join(ds, "v", "trace="+sum.Trace, "part-0.parquet"))
	if fmt.Sprint(cols) != "[_- _ a_b a_b_2]" || len(rows) != 1 || rows[0][3].Int64() != 3 {
		t.Errorf("view columns %q, rows %v", cols, rows)
	}
	f, err := os.Open(filepath.Join(ds, "long", "trace="+sum.Trace, "part-0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	// 200 texts of 100 000 bytes: batches end past 16 MiB of text (168
	// rows), and each ends a row group past 256 KiB.
	if n := len(pf.RowGroups()); n != 2 {
		t.Errorf("%d row groups for 20 MB of text, want 2", n)
	}
	f.Close()

	// Two tables whose folders would be one.
	clash := mk("clash.db", `CREATE TABLE "a/b"(x INT); INSERT INTO "a/b" VALUES (1);
		CREATE TABLE "A_b"(x INT); INSERT INTO "A_b" VALUES (2);`)
	if _, err := Export(context.Background(), filepath.Join(dir, "ds2"), clash, Options{}); err == nil ||
		!strings.Contains(err.Error(), `tables "a/b" and "A_b" would share the folder A_b`) {
		t.Errorf("clashing folders: %v", err)
	}

	// A view that takes SQLite minutes to find empty: a cancellation stops it.
	slow := mk("slow.db", `CREATE VIEW slow AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c
		WHERE i < 10000000000) SELECT i FROM c WHERE i < 0`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Export(ctx, filepath.Join(dir, "ds3"), slow, Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow view: %v", err)
	}
}
