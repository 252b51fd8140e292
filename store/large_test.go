package store

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// TestLargeTreesSameAsSQL writes more than 1 GiB of js_heap_string rows — a
// million rows of about 1 KB, which make a table b-tree of depth 3 (a root
// over interior pages over leaves), and every 5 000th row a text of 200 KB,
// whose overflow chain crosses the lock-byte page at 1 GiB on its way — as
// b-trees and through SQLite's INSERT: both files pass integrity_check and
// read back the same rows.
func TestLargeTreesSameAsSQL(t *testing.T) {
	if testing.Short() || testutil.RaceEnabled {
		t.Skip("writes two databases of more than 1 GiB (run without -short and -race: make test does)")
	}
	ts := schema.New()
	const n = 1_050_000
	write := func(create func(string, []string) (*DB, error)) string {
		dest := filepath.Join(t.TempDir(), "out.db")
		db, err := create(dest, ts.DDL())
		if err != nil {
			t.Fatal(err)
		}
		a := NewAsync(db, 4)
		app := rows.NewAppender(a, ts.JSHeapString)
		line := strings.Repeat("0123456789abcdef", 64)
		long := strings.Repeat("the overflow chain of a long string ", 200<<10/36)
		for i := range n {
			app.Int(rows.I(int64(i % 7)))
			app.Int(rows.I(int64(i)))
			switch {
			case i%5000 == 4999:
				app.Text(rows.S(long))
			case i%997 == 0:
				app.Text(rows.Text{})
			default:
				app.Text(rows.S(fmt.Sprintf("%08d", i) + line[:900+i%100]))
			}
			app.End()
		}
		app.Flush()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		return dest
	}
	trees, insert := write(Create), write(CreateInsertOnly)
	var pages [2]int64
	for i, path := range []string{trees, insert} {
		r := openChecked(t, path)
		if err := r.QueryRow("PRAGMA page_count").Scan(&pages[i]); err != nil {
			t.Fatal(err)
		}
	}
	if pages[0]*defaultPageSize <= 1<<30 {
		t.Fatalf("the trees' file has %d pages: not past the lock-byte page", pages[0])
	}
	rt, ri := openRead(t, trees), openRead(t, insert)
	if d := treeDepth(t, rt, trees, "js_heap_string"); d != 3 {
		t.Errorf("the trees' table has depth %d, want 3", d)
	}
	qt, err := rt.Query("SELECT rowid, file_id, file_index, string FROM js_heap_string ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer qt.Close()
	qi, err := ri.Query("SELECT rowid, file_id, file_index, string FROM js_heap_string ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer qi.Close()
	count := 0
	for qt.Next() {
		if !qi.Next() {
			t.Fatalf("row %d: only in the trees' file", count)
		}
		var a, b [4]any
		if err := qt.Scan(&a[0], &a[1], &a[2], &a[3]); err != nil {
			t.Fatal(err)
		}
		if err := qi.Scan(&b[0], &b[1], &b[2], &b[3]); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%T%v", a, a) != fmt.Sprintf("%T%v", b, b) {
			t.Fatalf("row %d: trees %.200v, INSERT %.200v", count, a, b)
		}
		count++
	}
	if qi.Next() || count != n {
		t.Fatalf("%d rows read from the trees' file, want %d, and the INSERT file has as many: %v", count, n, !qi.Next())
	}
	t.Logf("%d rows; pages: trees %d, INSERT %d", count, pages[0], pages[1])
}

// treeDepth returns the depth of a table's b-tree, following the left-most
// child of its interior pages in the file at path.
func treeDepth(t *testing.T, db *sql.DB, path, table string) int {
	t.Helper()
	var root int64
	if err := db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = ?", table).Scan(&root); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data := make([]byte, defaultPageSize)
	for depth, page := 1, root; ; depth++ {
		if _, err := f.ReadAt(data, (page-1)*defaultPageSize); err != nil {
			t.Fatal(err)
		}
		if data[0] == 0x0d { // a table leaf
			return depth
		}
		// An interior page: the child of its first cell.
		off := binary.BigEndian.Uint16(data[12:])
		page = int64(binary.BigEndian.Uint32(data[off:]))
	}
}
