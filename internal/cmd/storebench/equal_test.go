package storebench

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
)

// equalRows is the rows per table of TestSameTables: three whole batches and
// a short one, so that both statement shapes (multi-row and the one-row
// remainder) run.
const equalRows = 3*BatchRows + 250

// TestSameTables writes the three workloads with every writer (batches of the
// three tables interleaved, as a converter writes them) and checks that each
// database reads back exactly the rows the generators made, with the same
// types, in rowid order, and has the store's page size.
func TestSameTables(t *testing.T) {
	dir := t.TempDir()
	want := map[string]string{}
	for _, g := range Gens {
		want[g.Name] = expected(g, equalRows)
	}
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) {
			dest := filepath.Join(dir, kind+".db")
			w, err := Open(kind, dest)
			if err != nil {
				t.Fatal(err)
			}
			b := &rows.Batch{}
			for first := 0; first < equalRows; first += BatchRows {
				n := min(BatchRows, equalRows-first)
				for _, g := range Gens {
					g.Fill(b, first, n)
					if err := w.Insert(b); err != nil {
						w.Close()
						t.Fatal(err)
					}
				}
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", dest)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var pageSize, tables int
			if err := db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil || pageSize != 65536 {
				t.Errorf("page_size %d (%v), want 65536", pageSize, err)
			}
			if err := db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil ||
				tables != len(Tables.DDL()) {
				t.Errorf("sqlite_master has %d entries (%v), want %d", tables, err, len(Tables.DDL()))
			}
			for _, g := range Gens {
				got := dump(t, db, g.Table.Name)
				if got != want[g.Name] {
					t.Errorf("%s: table differs from the generated rows:\n%s", g.Table.Name, firstDiff(got, want[g.Name]))
				}
			}
		})
	}
}

// dump is SELECT rowid, * FROM table ORDER BY rowid, a line per row, each
// value with its Go type (int64 for INTEGER, string for TEXT).
func dump(t *testing.T, db *sql.DB, table string) string {
	rs, err := db.Query("SELECT rowid, * FROM " + table + " ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var sb strings.Builder
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			fmt.Fprintf(&sb, "%T:%v|", v, v)
		}
		sb.WriteByte('\n')
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// expected is the dump of n rows of g as written in one go.
func expected(g Gen, n int) string {
	b := &rows.Batch{}
	g.Fill(b, 0, n)
	t := g.Table
	ni, nt := t.NumInt(), t.NumText()
	var sb strings.Builder
	for r := range n {
		fmt.Fprintf(&sb, "int64:%d|", r+1)
		for c, col := range t.Columns {
			if col.Type.IsText() {
				fmt.Fprintf(&sb, "string:%s|", b.Texts[r*nt+t.Slot(c)])
			} else {
				fmt.Fprintf(&sb, "int64:%d|", b.Ints[r*ni+t.Slot(c)])
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func firstDiff(got, want string) string {
	line, g, w, ok := testutil.FirstDiff(got, want)
	if !ok {
		return "(no difference)"
	}
	return fmt.Sprintf("line %d (of %d, want %d):\n got  %q\n want %q", line,
		strings.Count(got, "\n")+1, strings.Count(want, "\n")+1, g, w)
}

// TestDistinctStrings checks that the text workload is what it claims:
// 10–60 bytes, nearly all distinct.
func TestDistinctStrings(t *testing.T) {
	seen := map[string]bool{}
	const n = 200_000
	for i := range n {
		s := stringAt(i)
		if len(s) < 10 || len(s) > 60 {
			t.Fatalf("row %d: %d bytes", i, len(s))
		}
		seen[s] = true
	}
	if len(seen) < n*999/1000 {
		t.Errorf("%d distinct strings in %d rows", len(seen), n)
	}
}
