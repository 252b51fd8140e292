package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/rows"
	"tracestreamer/schema"
)

// randomRow appends a row of random values of every kind to a: integers of
// every width, NULLs, reals (NaN, -0, whole ones), texts (empty, long enough
// to overflow a page, NUL bytes) and for IntText columns texts that SQLite
// turns into integers and texts it keeps.
func randomRow(rng *rand.Rand, a *rows.Appender, t *schema.Table) {
	ints := []int64{0, 1, -1, 127, 128, -129, 1 << 23, -1 << 31, 1 << 40, math.MaxInt64, math.MinInt64}
	reals := []float64{0.5, math.Copysign(0, -1), 3, math.NaN(), math.Inf(1), 1e300, -2.25}
	texts := []string{"", "a", "é\x00x", strings.Repeat("long ", 20000)}
	for _, c := range t.Columns {
		switch {
		case c.Type == schema.IntText:
			a.Text(rows.S([]string{"12", " 7", "x", "-3", "1e3", ""}[rng.IntN(6)]))
		case c.Type.IsText():
			if k := rng.IntN(10); k == 0 {
				a.Text(rows.Text{})
			} else {
				a.Text(rows.S(texts[rng.IntN(len(texts)-1)+min(1, rng.IntN(200)/199)]))
			}
		default:
			switch rng.IntN(6) {
			case 0:
				a.Int(rows.Int{})
			case 1:
				a.Int(rows.R(reals[rng.IntN(len(reals))]))
			case 2:
				a.Int(rows.I(ints[rng.IntN(len(ints))]))
			default:
				a.Int(rows.I(rng.Int64() >> rng.IntN(64)))
			}
		}
	}
}

// TestTreesSameAsSQL writes the same rows, marks, rollbacks and
// SQL statements into a database whose tables are built as b-trees and into
// one where every row goes through SQLite's INSERT: every table reads back
// the same (rowids, values, types), and both pass PRAGMA integrity_check.
// With few rows through SQLite before the trees are first placed, SQLite's
// pages fit in the room the page file left for them; with many (an IntText
// table's), they outgrow it and the trees' pages are copied after them.
func TestTreesSameAsSQL(t *testing.T) {
	for _, sqlRows := range []int{500, 8000} {
		t.Run(fmt.Sprintf("%d rows through SQLite", sqlRows), func(t *testing.T) { treesSameAsSQL(t, sqlRows) })
	}
}

func treesSameAsSQL(t *testing.T, sqlRows int) {
	ts := schema.New()
	tables := []*schema.Table{ts.JSHeapNodes, ts.ProcessMeasure, ts.Instant, ts.Callstack, ts.Measure,
		ts.JSCPUProfilerNode, ts.JSHeapNodeStats}
	// script returns the number of lanes its Asyncs started.
	script := func(a *Async, db *DB, rng *rand.Rand) (lanes int) {
		put := func(s rows.Sink, t *schema.Table, n int, ids func(i int) int64) {
			app := rows.NewAppender(s, t)
			for i := range n {
				if ids != nil {
					app.RowID(ids(i))
				}
				randomRow(rng, app, t)
				app.End()
			}
			app.Flush()
		}
		// Rows of several tables in turn: their batches alternate, and
		// the tables' lanes (Async) pack them side by side.
		inTurn := func(s rows.Sink, n int, tables ...*schema.Table) {
			apps := make([]*rows.Appender, len(tables))
			for i, tb := range tables {
				apps[i] = rows.NewAppender(s, tb)
			}
			for range n {
				for i, app := range apps {
					randomRow(rng, app, tables[i])
					app.End()
				}
			}
			for _, app := range apps {
				app.Flush()
			}
		}
		closeAsync := func(a *Async) {
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			lanes += a.lanesStarted
		}
		inTurn(a, 12000, ts.JSHeapNodes, ts.ProcessMeasure, ts.JSHeapNodeStats)
		put(a, ts.JSHeapNodes, 20000, nil)
		put(a, ts.ProcessMeasure, 3000, nil)
		put(a, ts.Instant, 2000, nil)
		put(a, ts.JSCPUProfilerNode, sqlRows, nil)
		put(a, ts.Callstack, 3000, func(i int) int64 { return int64(3*i + i%2 + 1) }) // in order, with gaps
		// Rows out of rowid order (in the gaps) while the table's lane runs,
		// then rows in order again.
		put(a, ts.Callstack, 500, func(i int) int64 { return int64(3 * (2000 - i)) })
		put(a, ts.Callstack, 1000, func(i int) int64 { return int64(25000 + i) })
		m := a.Mark([]*schema.Table{ts.JSHeapNodes, ts.Instant})
		put(a, ts.JSHeapNodes, 7000, nil)
		put(a, ts.Instant, 10, nil)
		a.Rollback(m)
		put(a, ts.JSHeapNodeStats, 3000, nil)
		closeAsync(a)
		mk := db.Mark([]*schema.Table{ts.ProcessMeasure})
		a = NewAsync(db, 4)
		put(a, ts.ProcessMeasure, 500, nil)
		closeAsync(a)
		// SQL that reads and changes rows: the trees are placed first.
		if err := db.Exec("UPDATE instant SET value = ts WHERE rowid % 3 = 0"); err != nil {
			t.Fatal(err)
		}
		if err := db.Rollback(mk); err != nil { // across the placing
			t.Fatal(err)
		}
		a = NewAsync(db, 4)
		put(a, ts.ProcessMeasure, 200, nil)
		put(a, ts.Measure, 4000, nil)   // first rows after the placing: a tree again
		put(a, ts.JSHeapNodes, 50, nil) // through SQLite now
		m = a.Mark([]*schema.Table{ts.Measure})
		put(a, ts.Measure, 100, nil)
		a.Rollback(m)
		// Out of rowid order: the late rows wait, and SQLite inserts them at the end.
		put(a, ts.Callstack, 1000, func(i int) int64 { return int64(20000 - i) })
		put(a, ts.Callstack, 10, func(i int) int64 { return int64(30000 + i) })
		closeAsync(a)
		return lanes
	}
	dump := func(create func(string, []string) (*DB, error)) (map[string][]string, int) {
		dest := filepath.Join(t.TempDir(), "out.db")
		db, err := create(dest, ts.DDL())
		if err != nil {
			t.Fatal(err)
		}
		lanes := script(NewAsync(db, 4), db, rand.New(rand.NewPCG(7, 8)))
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		r := openChecked(t, dest)
		out := map[string][]string{}
		for _, tb := range tables {
			out[tb.Name] = readAll(t, r, tb)
		}
		return out, lanes
	}
	// The trees' database asks for its pages to be written behind after
	// every batch that leaves the writer idle.
	var treesDB *DB
	trees, lanes := dump(func(dest string, ddl []string) (*DB, error) {
		db, err := Create(dest, ddl)
		if db != nil {
			db.writeBehindStep = 1
			treesDB = db
		}
		return db, err
	})
	sqlOnly, sqlLanes := dump(CreateInsertOnly)
	if canWriteBehind && treesDB.writeBehinds == 0 {
		t.Error("no write-behind requests")
	}
	// Lanes for js_heap_nodes, process_measure, js_heap_node_stats and
	// callstack, the callstack's again after its late rows, and those of
	// the later Asyncs; none where every row goes through SQLite.
	if lanes < 6 || sqlLanes != 0 {
		t.Errorf("%d lanes started for the trees, %d through SQL", lanes, sqlLanes)
	}
	t.Logf("%d lanes started", lanes)
	t.Logf("%d write-behind requests", treesDB.writeBehinds)
	for _, tb := range tables {
		got, want := trees[tb.Name], sqlOnly[tb.Name]
		if len(want) == 0 {
			t.Errorf("%s: no rows written", tb.Name)
		}
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			var g, w string
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			t.Errorf("%s: %d rows as trees, %d through SQL; first difference at %d:\n trees %.300s\n SQL   %.300s",
				tb.Name, len(got), len(want), i, g, w)
		}
	}
}

// readAll returns each row of t as text: rowid, then each value with its type
// (reals as their bits).
func readAll(t *testing.T, r *sql.DB, tb *schema.Table) []string {
	t.Helper()
	q, err := r.Query("SELECT rowid, * FROM " + schema.Quote(tb.Name) + " ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var out []string
	vals := make([]any, len(tb.Columns)+1)
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for q.Next() {
		if err := q.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, v := range vals {
			if f, ok := v.(float64); ok {
				fmt.Fprintf(&b, "float64:%x ", math.Float64bits(f))
				continue
			}
			fmt.Fprintf(&b, "%T:%v ", v, v)
		}
		out = append(out, b.String())
	}
	if err := q.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUpdateTexts reads back and changes rows of a table built as a b-tree,
// with rows that came out of rowid order and texts that overflow pages, and
// does the same through SQL in a database written through SQLite only:
// ScanInts gives the rows SELECT gives, before and after the change, and the
// tables read back the same after Commit.
func TestUpdateTexts(t *testing.T) {
	for _, pageSize := range []int{0, 16384} { // the default, and small inputs'
		t.Run(fmt.Sprint("page size ", pageSize), func(t *testing.T) { testUpdateTexts(t, pageSize) })
	}
}

func testUpdateTexts(t *testing.T, pageSize int) {
	ts := schema.New()
	tb := ts.Callstack
	col := func(name string) int {
		return slices.IndexFunc(tb.Columns, func(c schema.Column) bool { return c.Name == name })
	}
	ints := []int{col("id"), col("callid")}
	texts := []int{col("chainId"), col("spanId"), col("parentSpanId")}
	scanSQL := `SELECT id, callid FROM callstack WHERE typeof(id) = 'integer' AND typeof(callid) = 'integer' ORDER BY rowid`
	var rowids []int64
	for id := int64(1); id <= 4200; id += 7 { // some in gaps no row fills
		rowids = append(rowids, id)
	}
	text := func(k, i int) string {
		if k%50 == 0 && i == 1 {
			return strings.Repeat("long ", 20000) // overflows a page of either size
		}
		return fmt.Sprint(k*3 + i)
	}
	type result struct {
		before, after [][2]int64
		rows          []string
	}
	run := func(insertOnly bool) result {
		dest := filepath.Join(t.TempDir(), "out.db")
		db, a, err := Start(dest, ts.DDL(), 4, insertOnly, pageSize)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		app := rows.NewAppender(a, tb)
		put := func(id int64) {
			app.RowID(id)
			randomRow(rng, app, tb)
			app.End()
		}
		for id := int64(1); id <= 4000; id++ {
			if id%10 != 3 {
				put(id)
			}
		}
		for id := int64(3993); id > 0; id -= 10 { // late: into the gaps
			put(id)
		}
		app.Flush()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		var res result
		scan := func() (out [][2]int64) {
			ok, err := db.ScanInts(tb, ints, func(v []int64) error {
				out = append(out, [2]int64{v[0], v[1]})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				return out
			}
			q, err := db.Query(scanSQL)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			for q.Next() {
				out = append(out, [2]int64{q.Int(0), q.Int(1)})
			}
			if err := q.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}
		res.before = scan()
		ok, err := db.UpdateTexts(context.Background(), tb, texts, rowids, func(k int, out []string) {
			for i := range out {
				out[i] = text(k, i)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			for k, id := range rowids {
				sql := fmt.Sprintf("UPDATE callstack SET chainId = '%s', spanId = '%s', parentSpanId = '%s' WHERE rowid = %d",
					text(k, 0), text(k, 1), text(k, 2), id)
				if err := db.Exec(sql); err != nil {
					t.Fatal(err)
				}
			}
		}
		res.after = scan()
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		r := openChecked(t, dest)
		var got int
		if err := r.QueryRow("PRAGMA page_size").Scan(&got); err != nil || got != cmp.Or(pageSize, 65536) {
			t.Errorf("insertOnly %v: page size %d (%v), want %d", insertOnly, got, err, cmp.Or(pageSize, 65536))
		}
		res.rows = readAll(t, r, tb)
		return res
	}
	trees, sqlOnly := run(false), run(true)
	if len(sqlOnly.before) < 1000 || len(sqlOnly.rows) != 4000 {
		t.Fatalf("through SQL: %d rows scanned, %d rows; want over 1000, 4000", len(sqlOnly.before), len(sqlOnly.rows))
	}
	for _, c := range []struct {
		name      string
		got, want [][2]int64
	}{{"ScanInts before", trees.before, sqlOnly.before}, {"ScanInts after", trees.after, sqlOnly.after}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %d rows, SELECT %d", c.name, len(c.got), len(c.want))
		}
	}
	if i := firstDiff(trees.rows, sqlOnly.rows); i < len(trees.rows) || len(trees.rows) != len(sqlOnly.rows) {
		t.Fatalf("%d rows as trees, %d through SQL; first difference at row %d", len(trees.rows), len(sqlOnly.rows), i)
	}
	changed := 0
	for _, r := range trees.rows {
		if strings.Contains(r, "string:long long") {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no row has a long text set")
	}
}

// TestUpdateTextsCancelled: a context cancelled while UpdateTexts builds a
// tree again (here by set, at the first row it changes) stops the rebuild
// within rebuildCheck rows: UpdateTexts returns context.Canceled, set is not
// called for the rows beyond, and the DB aborted then leaves the destination
// as it was and no file of the run (the temporary database, the late rows').
func TestUpdateTextsCancelled(t *testing.T) {
	const n = 5 * rebuildCheck
	db, tb, dest := callstackWithLateRows(t, n)
	col := func(name string) int {
		return slices.IndexFunc(tb.Columns, func(c schema.Column) bool { return c.Name == name })
	}
	var rowids []int64
	for id := int64(1); id <= n; id++ {
		rowids = append(rowids, id)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	ok, err := db.UpdateTexts(ctx, tb, []int{col("chainId")}, rowids, func(k int, out []string) {
		calls++
		cancel()
		out[0] = "1"
	})
	if !ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("UpdateTexts: %v, %v; want true, context.Canceled", ok, err)
	}
	if calls > rebuildCheck {
		t.Errorf("set called %d times, want at most %d (the rows up to the next look at the context)", calls, rebuildCheck)
	}
	db.Abort()
	assertUntouched(t, dest)
}

// callstackWithLateRows makes a database over a destination holding
// "precious" and writes rows 1 to n of callstack with writeWithLateRows.
func callstackWithLateRows(t *testing.T, n int64) (*DB, *schema.Table, string) {
	t.Helper()
	db, a, ts, dest := createOverPrecious(t)
	tb := ts.Callstack
	writeWithLateRows(a, tb, n)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if len(db.late) == 0 {
		t.Fatal("no late rows kept")
	}
	return db, tb, dest
}

// writeWithLateRows writes rows 1 to n of tb (every column the rowid or
// "x"), those of rowid 3, 13, … late, after the others.
func writeWithLateRows(a *Async, tb *schema.Table, n int64) {
	app := rows.NewAppender(a, tb)
	put := func(id int64) {
		app.RowID(id)
		for _, c := range tb.Columns {
			if c.Type.IsText() {
				app.Text(rows.S("x"))
			} else {
				app.Int(rows.I(id))
			}
		}
		app.End()
	}
	for id := int64(1); id <= n; id++ {
		if id%10 != 3 {
			put(id)
		}
	}
	for id := n - n%10 + 3; id > 0; id -= 10 { // late: into the gaps
		if id <= n {
			put(id)
		}
	}
	app.Flush()
}

// TestCommitUnlessStopsBetweenTables: a stop closed while CommitUnless
// builds the tables with late rows again ends it before the next table:
// ErrStopped, the second table not built, the destination as it was.
func TestCommitUnlessStopsBetweenTables(t *testing.T) {
	db, a, ts, dest := createOverPrecious(t)
	for _, tb := range []*schema.Table{ts.Callstack, ts.JSHeapNodes} {
		writeWithLateRows(a, tb, 1000)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if len(db.late) != 2 {
		t.Fatalf("late rows kept for %d tables, want 2", len(db.late))
	}
	stop := make(chan struct{})
	var rebuilt []string
	db.rebuilt = func(tb *schema.Table) {
		rebuilt = append(rebuilt, tb.Name)
		if len(rebuilt) == 1 {
			close(stop)
		}
	}
	if err := db.CommitUnless(stop); !errors.Is(err, ErrStopped) {
		t.Fatalf("CommitUnless: %v, want ErrStopped", err)
	}
	if !slices.Equal(rebuilt, []string{"callstack"}) {
		t.Errorf("tables built again: %v, want [callstack] (in name order, then the stop)", rebuilt)
	}
	assertUntouched(t, dest)
}

// TestRebuildFails: an error of rebuild's edit partway through the rows
// (after late rows were merged in) is returned as it is, no row after it is
// read, and the DB aborted then leaves the destination as it was and no file
// of the run.
func TestRebuildFails(t *testing.T) {
	db, tb, dest := callstackWithLateRows(t, 10000)
	boom := errors.New("boom")
	var read []int64
	err := db.rebuild(tb, nil, func(id int64, rec []byte) ([]byte, error) {
		read = append(read, id)
		if len(read) == 5000 {
			return nil, boom
		}
		return rec, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("rebuild: %v, want the edit's error", err)
	}
	if len(read) != 5000 || read[0] != 1 || read[4999] != 5000 {
		t.Errorf("rows read: %d, from %d to %d; want 5000, 1 to 5000", len(read), read[0], read[len(read)-1])
	}
	db.Abort()
	assertUntouched(t, dest)
}

// TestLateRowsCutShort: where the file of a table's late rows ends early
// (within the 501st record written), ScanInts's error names the table, the
// record and what of it could not be read.
func TestLateRowsCutShort(t *testing.T) {
	db, tb, _ := callstackWithLateRows(t, 10000)
	defer db.Abort()
	l := db.late[tb]
	idx, err := l.index() // also writes them out
	if err != nil {
		t.Fatal(err)
	}
	// The 1000 rows were written in falling rowid order: idx[499], the
	// 500th lowest rowid, is record 500 (from 0) of the file.
	cut := idx[499]
	if err := l.f.Truncate(cut.off + int64(cut.n) - 1); err != nil {
		t.Fatal(err)
	}
	_, err = db.ScanInts(tb, []int{0}, func([]int64) error { return nil })
	prefix := "read callstack: callstack's rows out of rowid order: record 500 of 1000 (at "
	suffix := fmt.Sprintf("): %d bytes: EOF", cut.n)
	if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.HasSuffix(err.Error(), suffix) {
		t.Errorf("ScanInts: %v, want %q…%q", err, prefix, suffix)
	}
}

// TestRebuildStops: a rebuild looks at its stop every rebuildCheck rows and
// gives up with stop's error, reading no further row (CommitUnless passes
// its stop channel this way, so that an interrupted run does not read a
// table of millions of late rows to its end).
func TestRebuildStops(t *testing.T) {
	db, tb, dest := callstackWithLateRows(t, 3*rebuildCheck)
	halt := errors.New("halt")
	looks, read := 0, 0
	err := db.rebuild(tb, func() error {
		if looks++; looks == 2 {
			return halt
		}
		return nil
	}, func(id int64, rec []byte) ([]byte, error) {
		read++
		return rec, nil
	})
	if !errors.Is(err, halt) || looks != 2 || read != rebuildCheck {
		t.Errorf("rebuild: %v after %d looks and %d rows; want halt after 2 looks and %d rows", err, looks, read, rebuildCheck)
	}
	db.Abort()
	assertUntouched(t, dest)
}
