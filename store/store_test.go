package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // database/sql driver, to read results back

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

func openRead(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openChecked is openRead of a database that must pass PRAGMA
// integrity_check.
func openChecked(t *testing.T, path string) *sql.DB {
	t.Helper()
	db := openRead(t, path)
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("%s: integrity_check: %q, %v", path, ok, err)
	}
	return db
}

// createDB creates a database of every table in a test folder, and an Async
// sink (4 batches deep) writing to it.
func createDB(t *testing.T) (db *DB, a *Async, ts *schema.Tables, dest string) {
	t.Helper()
	ts = schema.New()
	dest = filepath.Join(t.TempDir(), "out.db")
	db, err := Create(dest, ts.DDL())
	if err != nil {
		t.Fatal(err)
	}
	return db, NewAsync(db, 4), ts, dest
}

// createOverPrecious is createDB over an existing destination holding
// "precious", with an Async sink of depth 2: for the tests that check a run
// given up leaves it as it was.
func createOverPrecious(t *testing.T) (db *DB, a *Async, ts *schema.Tables, dest string) {
	t.Helper()
	ts = schema.New()
	dest = filepath.Join(t.TempDir(), "out.db")
	if err := os.WriteFile(dest, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := Create(dest, ts.DDL())
	if err != nil {
		t.Fatal(err)
	}
	return db, NewAsync(db, 2), ts, dest
}

// assertUntouched fails t unless dest (made by createOverPrecious) still
// holds "precious" and is the only entry of its folder: a run given up left
// the destination as it was and no file of its own.
func assertUntouched(t *testing.T, dest string) {
	t.Helper()
	if b, _ := os.ReadFile(dest); string(b) != "precious" {
		t.Errorf("the destination changed: %.20q", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dest)); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// writeDB creates a database of every table, lets fill write rows to it
// through an Async sink, commits it and opens it for reading.
func writeDB(t *testing.T, fill func(a *Async, ts *schema.Tables)) *sql.DB {
	t.Helper()
	db, a, ts, dest := createDB(t)
	fill(a, ts)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	return openRead(t, dest)
}

func TestInsertCommitReadBack(t *testing.T) {
	db, a, ts, dest := createDB(t)
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	const n = 2500 // several full statements and a remainder
	for i := range n {
		nodes.Ints(0, int64(i), 3, 7, int64(i)*2, 16, 1, 0, -1)
	}
	nodes.Flush()
	strs := rows.NewAppender(a, ts.JSHeapString)
	for i, s := range []string{"<dummy>", "", "GC roots", "größe ✓ 😀", "a\x00b"} {
		strs.Row([]int64{0, int64(i)}, s)
	}
	strs.Flush()
	edges := rows.NewAppender(a, ts.JSHeapEdges)
	edges.Int(rows.I(0))
	edges.Int(rows.I(0))
	edges.Int(rows.I(2))
	edges.Int(rows.I(5))
	edges.Int(rows.I(7))
	edges.Int(rows.I(1))
	edges.Int(rows.Int{})
	edges.End()
	edges.Flush()
	cpu := rows.NewAppender(a, ts.JSCPUProfilerNode)
	cpu.Row([]int64{1, 2, 3, -1, -1, 0, 0}, "0", "2,3")
	cpu.Row([]int64{2, 2, 3, -1, -1, 0, 1}, "0", "5")
	cpu.Flush()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Fatalf("destination exists before Commit: %v", err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	r := openRead(t, dest)
	var count, sumID int64
	if err := r.QueryRow("SELECT count(*), sum(id) FROM js_heap_nodes").Scan(&count, &sumID); err != nil {
		t.Fatal(err)
	}
	if count != n || sumID != int64(n*(n-1)) {
		t.Errorf("nodes: count %d sum(id) %d, want %d %d", count, sumID, n, n*(n-1))
	}
	var last int64
	r.QueryRow("SELECT detachedness FROM js_heap_nodes WHERE rowid = 2500").Scan(&last)
	if last != -1 {
		t.Errorf("detachedness = %d, want -1", last)
	}
	var got []string
	rs, err := r.Query("SELECT string FROM js_heap_string ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var s string
		rs.Scan(&s)
		got = append(got, s)
	}
	want := []string{"<dummy>", "", "GC roots", "größe ✓ 😀", "a\x00b"}
	if len(got) != len(want) {
		t.Fatalf("strings %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("string %d = %q, want %q", i, got[i], want[i])
		}
	}
	var toID sql.NullInt64
	r.QueryRow("SELECT to_node_id FROM js_heap_edges").Scan(&toID)
	if toID.Valid {
		t.Errorf("to_node_id = %v, want NULL", toID)
	}
	var typ1, typ2 string
	r.QueryRow("SELECT typeof(children) FROM js_cpu_profiler_node WHERE function_id=1").Scan(&typ1)
	r.QueryRow("SELECT typeof(children) FROM js_cpu_profiler_node WHERE function_id=2").Scan(&typ2)
	if typ1 != "text" || typ2 != "integer" {
		t.Errorf("children types %s %s, want text integer (INT affinity)", typ1, typ2)
	}
	var ddl string
	r.QueryRow("SELECT sql FROM sqlite_master WHERE name='js_heap_location'").Scan(&ddl)
	wantDDL := "CREATE TABLE js_heap_location(\n  file_id INT,\n  object_index INT,\n  script_id INT,\n  line INT,\n  \"column\" INT\n)"
	if ddl != wantDDL {
		t.Errorf("schema:\n%s\nwant:\n%s", ddl, wantDDL)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".out.db.tracestreamer-*.tmp"))
	if len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestRollbackAndAbort(t *testing.T) {
	db, a, ts, dest := createOverPrecious(t)
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	nodes.Ints(0, 0, 0, 0, 1, 0, 0, 0, 0)
	nodes.Flush()
	m := a.Mark([]*schema.Table{ts.JSHeapNodes})
	for i := range 5000 {
		nodes.Ints(1, int64(i), 0, 0, 1, 0, 0, 0, 0)
	}
	nodes.Flush()
	a.Rollback(m)
	nodes.Ints(1, 0, 0, 0, 42, 0, 0, 0, 0)
	nodes.Flush()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got := db.Count(ts.JSHeapNodes); got != 2 {
		t.Errorf("count after rollback = %d, want 2", got)
	}
	db.Abort()
	assertUntouched(t, dest)
}

// TestRealsAndTextNulls checks the value kinds beyond integers and text: REAL
// values in INT and REAL columns, NULLs in INT and TEXT columns.
func TestRealsAndTextNulls(t *testing.T) {
	r := writeDB(t, func(a *Async, ts *schema.Tables) {
		pm := rows.NewAppender(a, ts.ProcessMeasure)
		pm.Text(rows.S("measure"))
		pm.Int(rows.I(1000))
		pm.Int(rows.Int{})
		pm.Int(rows.R(2.5))
		pm.Int(rows.I(0))
		pm.End()
		pm.Text(rows.S("measure"))
		pm.Int(rows.I(2000))
		pm.Int(rows.I(5))
		pm.Int(rows.I(7))
		pm.Int(rows.I(0))
		pm.End()
		pm.Flush()
		in := rows.NewAppender(a, ts.Instant)
		in.Int(rows.I(6000))
		in.Text(rows.Text{})
		in.Int(rows.Int{})
		in.Int(rows.Int{})
		in.Text(rows.S("global"))
		in.Int(rows.R(0))
		in.End()
		in.Flush()
	})
	for _, c := range []struct{ query, want string }{
		{"SELECT group_concat(typeof(value) || ':' || value, ',') FROM process_measure", "real:2.5,integer:7"},
		{"SELECT group_concat(typeof(dur), ',') FROM process_measure", "null,integer"},
		{"SELECT typeof(name) || typeof(ref) || ref_type || typeof(value) || value FROM instant", "nullnullglobalreal0.0"},
	} {
		var got string
		if err := r.QueryRow(c.query).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.query, got, c.want)
		}
	}
}

// TestExplicitRowIDs writes rows with explicit rowids, out of order, in
// order, and in order with gaps filled later: they read back in rowid order,
// across statements of many rows and of one.
func TestExplicitRowIDs(t *testing.T) {
	const n = 1000
	var permuted, gaps, inOrder []int64
	for i := range int64(n) {
		permuted = append(permuted, (i*7+3)%n) // a permutation of 0..n-1
		inOrder = append(inOrder, i)
		if i%100 < 90 {
			gaps = append(gaps, i)
		}
	}
	for i := range int64(n) {
		if i%100 >= 90 {
			gaps = append(gaps, i) // the gaps, filled at the end
		}
	}
	for _, tt := range []struct {
		name string
		ids  []int64
	}{{"permuted", permuted}, {"in order", inOrder}, {"gaps filled later", gaps}} {
		t.Run(tt.name, func(t *testing.T) {
			r := writeDB(t, func(a *Async, ts *schema.Tables) {
				cs := rows.NewAppender(a, ts.Callstack)
				for _, id := range tt.ids {
					cs.RowID(id + 1)
					cs.Int(rows.I(id))
					cs.Int(rows.I(id * 10))
					cs.Int(rows.Int{})
					cs.Int(rows.I(1))
					cs.Text(rows.Text{})
					cs.Text(rows.S("s"))
					cs.Int(rows.I(0))
					cs.Int(rows.Int{})
					cs.Int(rows.I(4294967295))
					cs.Int(rows.Int{})
					for range 8 {
						cs.Text(rows.Text{})
					}
					cs.Int(rows.I(4294967295))
					cs.End()
				}
				cs.Flush()
			})
			var bad, count int64
			if err := r.QueryRow("SELECT count(*), sum(rowid != id + 1 OR ts != id * 10) FROM callstack").Scan(&count, &bad); err != nil {
				t.Fatal(err)
			}
			var first, last int64
			r.QueryRow("SELECT id FROM callstack LIMIT 1").Scan(&first)
			r.QueryRow("SELECT id FROM callstack LIMIT 1 OFFSET 999").Scan(&last)
			if count != n || bad != 0 || first != 0 || last != n-1 {
				t.Errorf("count %d, mismatches %d, first %d, last %d", count, bad, first, last)
			}
		})
	}
}

// TestRepeatedBindings writes values that repeat, change kind and go back
// (the statement skips binding a value a parameter already holds): every row
// reads back as written, in statements of many rows and of one.
func TestRepeatedBindings(t *testing.T) {
	var want []string
	r := writeDB(t, func(a *Async, ts *schema.Tables) {
		pm := rows.NewAppender(a, ts.ProcessMeasure)
		const n = 1003 // not a multiple of the rows per statement
		for i := range n {
			pm.Text(rows.S("m"))
			pm.Int(rows.I(int64(i)))
			switch i % 7 {
			case 0, 1:
				pm.Int(rows.Int{})
				want = append(want, "null:")
			case 2, 3:
				pm.Int(rows.I(5))
				want = append(want, "integer:5")
			case 4:
				pm.Int(rows.R(5.5))
				want = append(want, "real:5.5")
			case 5:
				pm.Int(rows.I(int64(i / 10)))
				want = append(want, fmt.Sprintf("integer:%d", i/10))
			case 6:
				pm.Int(rows.R(0.25))
				want = append(want, "real:0.25")
			}
			pm.Int(rows.I(1))
			pm.Int(rows.I(0))
			pm.End()
		}
		pm.Flush()
	})
	q := "SELECT typeof(dur) || ':' || ifnull(dur, '') FROM process_measure ORDER BY rowid"
	got := testutil.Query(t, r, q)
	if !slices.Equal(got, want) {
		t.Errorf("%s: %d rows, want %d; first difference at %d", q, len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// nodesWritten creates a database (createDB) with n js_heap_nodes rows, node i
// of id 2i and self size 16, and closes its sink: the DB is left open for
// SQL.
func nodesWritten(t *testing.T, n int) (*DB, string) {
	t.Helper()
	db, a, ts, dest := createDB(t)
	nodes := rows.NewAppender(a, ts.JSHeapNodes)
	for i := range n {
		nodes.Ints(0, int64(i), 3, 7, int64(i)*2, 16, 1, 0, 0)
	}
	nodes.Flush()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return db, dest
}

// TestQueryAndPrepare reads rows packed as a b-tree back inside the
// transaction and updates some of them by rowid, as ingest links flows.
func TestQueryAndPrepare(t *testing.T) {
	db, dest := nodesWritten(t, 1000)
	q, err := db.Query("SELECT id, node_index FROM js_heap_nodes WHERE id > 1990 ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for q.Next() {
		got = append(got, q.Int(0), q.Int(1))
	}
	if err := q.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []int64{1992, 996, 1994, 997, 1996, 998, 1998, 999}; !slices.Equal(got, want) {
		t.Errorf("query read %v, want %v", got, want)
	}
	st, err := db.Prepare("UPDATE js_heap_nodes SET trace_node_id = ?1, detachedness = ?2 WHERE rowid = ?3")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]any{{int64(70), nil, int64(3)}, {2.5, int64(-4), int64(1000)}} {
		if err := st.Run(p...); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		params []any
		want   string
	}{
		{[]any{int64(1)}, "statement has 3 parameters, given 1"},
		{[]any{"x", nil, int64(1)}, "parameter 1: string is not nil, int64 or float64"},
	} {
		if err := st.Run(c.params...); err == nil || err.Error() != c.want {
			t.Errorf("Run(%v) = %v, want %q", c.params, err, c.want)
		}
	}
	st.Close()
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"2|0|0", "3|70|NULL", "1000|2.5|-4"}
	if got := testutil.Query(t, openRead(t, dest),
		"SELECT rowid, trace_node_id, coalesce(detachedness, 'NULL') FROM js_heap_nodes WHERE rowid IN (2, 3, 1000) ORDER BY rowid"); !slices.Equal(got, want) {
		t.Errorf("after the updates: %v, want %v", got, want)
	}
}

// TestHandedStatementsClosedAtCommit: a query left half read and a statement
// left open are closed by Commit (SQLite would otherwise keep the connection
// open), and closing or running them afterwards is harmless.
func TestHandedStatementsClosedAtCommit(t *testing.T) {
	db, dest := nodesWritten(t, 10)
	q, err := db.Query("SELECT id FROM js_heap_nodes")
	if err != nil {
		t.Fatal(err)
	}
	if !q.Next() || q.Int(0) != 0 {
		t.Fatal("the query's first row is not id 0")
	}
	st, err := db.Prepare("UPDATE js_heap_nodes SET self_size = ?1 WHERE rowid = 1")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(int64(99)); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	q.Close()
	st.Close()
	if q.Next() {
		t.Error("Next after Commit returned a row")
	}
	if err := st.Run(int64(1)); err == nil || err.Error() != "statement is closed" {
		t.Errorf("Run after Commit = %v, want statement is closed", err)
	}
	if got := testutil.Query(t, openRead(t, dest), "SELECT count(*), sum(self_size) FROM js_heap_nodes"); !slices.Equal(got, []string{"10|243"}) {
		t.Errorf("after Commit: %v, want 10|243", got)
	}
}

// TestStart: Start's writer makes the schema before it writes the first
// batch, for both writers; an error making it is the Async's, known before
// Close (Failed), and nothing is left behind.
func TestStart(t *testing.T) {
	ts := schema.New()
	for _, insertOnly := range []bool{false, true} {
		dest := filepath.Join(t.TempDir(), "out.db")
		db, a, err := Start(dest, ts.DDL(), 4, insertOnly, 0)
		if err != nil {
			t.Fatal(err)
		}
		strs := rows.NewAppender(a, ts.JSHeapString)
		for i, s := range []string{"<dummy>", "GC roots", "größe"} {
			strs.Row([]int64{0, int64(i)}, s)
		}
		strs.Flush()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := openRead(t, dest).QueryRow("SELECT group_concat(string, '|') FROM js_heap_string").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != "<dummy>|GC roots|größe" {
			t.Errorf("insertOnly %v: strings %q", insertOnly, got)
		}
	}

	dir := t.TempDir()
	dest := filepath.Join(dir, "out.db")
	db, a, err := Start(dest, []string{"CREATE TABLE t(a INT)", "CREATE TABLE broken("}, 4, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The error is known before Close: Failed is closed, Err names the
	// statement.
	const want = `making the schema: sqlite: exec "CREATE TABLE broken(": SQL logic error: incomplete input`
	select {
	case <-a.Failed():
		if err := a.Err(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Err: %v, want the schema's error", err)
		}
	case <-time.After(time.Minute):
		t.Error("Failed not closed a minute after the schema's error")
	}
	rows.NewAppender(a, ts.JSHeapString).Row([]int64{0, 0}, "x")
	if err := a.Close(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Close: %v, want the schema's error", err)
	}
	db.Abort()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	// A page size SQLite cannot take is refused before anything is made.
	for _, size := range []int{3000, 256, 131072} {
		_, _, err := Start(dest, ts.DDL(), 4, false, size)
		if want := fmt.Sprintf("page size %d is not a power of two from 512 to 65536", size); err == nil || err.Error() != want {
			t.Errorf("Start with page size %d: %v, want %q", size, err, want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind by a refused page size: %v", left)
	}
}
