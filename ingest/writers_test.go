package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
)

// dbContent is what a database holds, for comparing two writers: every
// table's schema and rows (rowid first, each value with its type, reals by
// their bits), in creation and rowid order, and what integrity_check says.
type dbContent struct {
	tables    []string
	rows      map[string][]string
	integrity string
	pages     int64 // page_count
	free      int64 // freelist_count
}

func readContent(t *testing.T, path string) dbContent {
	t.Helper()
	db := testutil.OpenDB(t, path)
	c := dbContent{rows: map[string][]string{}}
	c.integrity = strings.Join(testutil.Query(t, db, "PRAGMA integrity_check"), "\n")
	must(t, db.QueryRow("PRAGMA page_count").Scan(&c.pages))
	must(t, db.QueryRow("PRAGMA freelist_count").Scan(&c.free))
	for _, s := range testutil.Query(t, db, "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid") {
		c.tables = append(c.tables, s)
		name := s[:strings.Index(s, ": ")]
		c.rows[name] = typedRows(t, db, name)
		if name == "meta" {
			// The time of the run differs.
			c.rows[name] = typedRows(t, db, "meta", "WHERE name <> 'runtime'")
		}
	}
	return c
}

func typedRows(t *testing.T, db *sql.DB, table string, where ...string) []string {
	t.Helper()
	_, rows := testutil.Values(t, db, fmt.Sprintf(`SELECT rowid, * FROM "%s" %s ORDER BY rowid`, table, strings.Join(where, " ")))
	out := make([]string, len(rows))
	for i, vals := range rows {
		var b strings.Builder
		for _, v := range vals {
			switch v := v.(type) {
			case float64:
				fmt.Fprintf(&b, "real:%x|", math.Float64bits(v))
			case []byte:
				fmt.Fprintf(&b, "blob:%q|", v)
			default:
				fmt.Fprintf(&b, "%T:%v|", v, v)
			}
		}
		out[i] = b.String()
	}
	return out
}

// compareContent reports the first difference between the databases of the
// two writers.
func compareContent(t *testing.T, trees, insert dbContent) {
	t.Helper()
	if trees.integrity != "ok" || insert.integrity != "ok" {
		t.Errorf("integrity_check: trees %q, INSERT %q", trees.integrity, insert.integrity)
	}
	if strings.Join(trees.tables, "\n") != strings.Join(insert.tables, "\n") {
		t.Fatalf("schemas differ:\n trees %q\nINSERT %q", trees.tables, insert.tables)
	}
	for _, s := range trees.tables {
		name := s[:strings.Index(s, ": ")]
		g, w := trees.rows[name], insert.rows[name]
		if line, gl, wl, diff := testutil.FirstDiff(strings.Join(g, "\n"), strings.Join(w, "\n")); diff {
			t.Errorf("%s: %d rows from the trees, %d through INSERT; first difference at row %d:\n trees %.300s\nINSERT %.300s",
				name, len(g), len(w), line, gl, wl)
		}
	}
}

// convertBoth converts the inputs with the b-tree writer and with SQLite's
// INSERT only, and returns both databases' content (nil, and the error, when
// the run fails; both must fail alike).
func convertBoth(t *testing.T, inputs []string) (trees, insert *dbContent) {
	t.Helper()
	var errs [2]error
	var out [2]*dbContent
	path := filepath.Join(t.TempDir(), "out.db") // one name: meta records it
	for i, insertOnly := range []bool{false, true} {
		os.Remove(path)
		_, errs[i] = Run(context.Background(), inputs, Options{Output: path, Warnings: io.Discard, InsertOnly: insertOnly})
		if errs[i] == nil {
			c := readContent(t, path)
			out[i] = &c
		}
	}
	if fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
		t.Fatalf("the trees' run: %v; the INSERT run: %v", errs[0], errs[1])
	}
	return out[0], out[1]
}

// TestWritersAgree converts every input fixture, an .htrace capture, a run
// whose first input is dropped (a cut heap snapshot before a good one) and
// Trace Event text whose rows straddle the 64 KiB pages' overflow thresholds
// through the b-tree writer and through SQLite's INSERT alone: the databases
// hold the same tables and rows, both pass integrity_check, and the dropped
// input leaves no free pages in the trees' file.
func TestWritersAgree(t *testing.T) {
	var fixtures []string
	for _, pattern := range []string{"*/*.json", "*/*.gz", "*/*.cpuprofile", "*/*.heapsnapshot", "*/*.heaptimeline"} {
		m, _ := filepath.Glob(filepath.Join(testutil.Root(), "testdata", pattern))
		fixtures = append(fixtures, m...)
	}
	if len(fixtures) < 10 {
		t.Fatalf("only %d fixtures found", len(fixtures))
	}
	dir := t.TempDir()
	snap := testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")
	cut := writeFile(t, dir, "cut.heapsnapshot", snap[:len(snap)*3/4])
	good := writeFile(t, dir, "good.heapsnapshot", snap)
	cases := map[string][]string{
		"htrace capture": {capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })},
		"dropped input":  {cut, good},
		"overflow":       {writeFile(t, dir, "overflow.json", overflowTrace())},
	}
	for _, f := range fixtures {
		rel, _ := filepath.Rel(filepath.Join(testutil.Root(), "testdata"), f)
		cases[rel] = []string{f}
	}
	for name, inputs := range cases {
		t.Run(name, func(t *testing.T) {
			if info, err := os.Stat(inputs[0]); (testutil.RaceEnabled || testing.Short()) && (err != nil || info.Size() > 200<<10) {
				t.Skip("converts MBs twice (run without -short and -race: make test does)")
			}
			trees, insert := convertBoth(t, inputs)
			if trees == nil {
				t.Logf("not converted (alike)")
				return
			}
			compareContent(t, *trees, *insert)
			if name == "dropped input" && trees.free > 0 {
				t.Errorf("the trees' file holds %d free pages of %d", trees.free, trees.pages)
			}
			t.Logf("pages: trees %d (%d free), INSERT %d (%d free)", trees.pages, trees.free, insert.pages, insert.free)
		})
	}
}

// overflowTrace is a Trace Event file whose event names and argument
// strings take every length around the thresholds of 64 KiB pages: a leaf
// keeps at most 65 501 bytes of a record, an overflow page holds 65 532, and
// a larger record keeps 8 199 bytes plus what does not fill an overflow page.
func overflowTrace() []byte {
	var b bytes.Buffer
	b.WriteString(`{"traceEvents":[`)
	n := 0
	for _, center := range []int{65501, 8199 + 65532, 65501 + 65532, 8199 + 2*65532} {
		for l := center - 24; l <= center+24; l++ {
			if n > 0 {
				b.WriteByte(',')
			}
			s := strings.Repeat(string(rune('a'+n%26)), l)
			fmt.Fprintf(&b, `{"ph":"X","pid":1,"tid":1,"ts":%d,"dur":1,"name":"%s","args":{"s":"%s"}}`, n*10, s[:l-n%7], s)
			n++
		}
	}
	b.WriteString(`]}`)
	return b.Bytes()
}
