package testutil

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // database/sql driver for reading results
)

// OpenDB opens a result database read-only.
func OpenDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Values returns the column names and the rows of a query, each value as
// database/sql gives it (int64, float64, string or []byte, nil for NULL).
func Values(t testing.TB, db *sql.DB, q string, args ...any) (cols []string, rows [][]any) {
	t.Helper()
	rs, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ = rs.Columns()
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, vals)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, rows
}

// Query returns the rows of a query as strings, columns joined by "|", NULL as
// "NULL".
func Query(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	_, rows := Values(t, db, q, args...)
	out := make([]string, 0, len(rows))
	for _, vals := range rows {
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				parts[i] = "NULL"
			case []byte:
				parts[i] = string(v)
			default:
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

// Dump renders every table of db in creation order, rows in rowid order, for a
// golden file. Tables whose name is in skip are listed by row count only.
func Dump(t testing.TB, db *sql.DB, skip map[string]bool) string {
	t.Helper()
	var b strings.Builder
	for _, name := range Query(t, db, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY rowid") {
		n := Query(t, db, "SELECT count(*) FROM "+name)[0]
		fmt.Fprintf(&b, "== %s (%s rows)\n", name, n)
		if skip[name] || n == "0" {
			continue
		}
		for _, r := range Query(t, db, "SELECT * FROM "+name+" ORDER BY rowid") {
			b.WriteString(r)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Golden compares got with testdata/golden/<name>; with update set, it writes
// got there instead.
func Golden(t testing.TB, name, got string, update bool) {
	t.Helper()
	path := filepath.Join(Root(), "testdata", "golden", name)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if line, g, w, ok := FirstDiff(got, string(want)); ok {
		t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(run with -update to accept)", name, line, g, w)
	}
}

// FirstDiff returns the first line (1-based) where got and want differ, with
// both lines ("" past the end of one); ok is false when they are equal.
func FirstDiff(got, want string) (line int, g, w string, ok bool) {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		g, w = "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			return i + 1, g, w, true
		}
	}
	return 0, "", "", false
}
