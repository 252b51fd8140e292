package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReader reads back values of every storage class, the column names and
// declared types, and reports bad statements and missing files.
func TestReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Exec(`CREATE TABLE t(a INT, b TEXT, c REAL);
		INSERT INTO t VALUES (1, 'x', 1.5), (NULL, 'größe ✓', NULL), (-9007199254740993, '', 2), (4.25, 7, 'z')`)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	q, err := r.Query("SELECT a, b, c, a + 1 FROM t ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	names, decl := q.Columns()
	if !slices.Equal(names, []string{"a", "b", "c", "a + 1"}) || !slices.Equal(decl, []string{"INT", "TEXT", "REAL", ""}) {
		t.Errorf("columns %q, declared %q", names, decl)
	}
	var got []string
	for q.Next() {
		var row []string
		for i := range 3 {
			switch q.Kind(i) {
			case KindNull:
				row = append(row, "NULL")
			case KindInt:
				row = append(row, fmt.Sprint("i", q.Int(i)))
			case KindFloat:
				row = append(row, fmt.Sprint("f", q.Float(i)))
			case KindText:
				row = append(row, "t"+string(q.Bytes(i)))
			}
		}
		got = append(got, strings.Join(row, " "))
	}
	if err := q.Err(); err != nil {
		t.Fatal(err)
	}
	// Column affinity: INT keeps 4.25 a REAL, TEXT makes 7 the text "7", REAL
	// makes 2 a float and keeps 'z' text.
	want := []string{"i1 tx f1.5", "NULL tgröße ✓ NULL", "i-9007199254740993 t f2", "f4.25 t7 tz"}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	if n, err := r.QueryInt("SELECT count(*) FROM t WHERE a IS NOT NULL"); n != 3 || err != nil {
		t.Errorf("QueryInt: %d, %v", n, err)
	}
	if _, err := r.Query("SELECT nope FROM t"); err == nil || !strings.Contains(err.Error(), "no such column: nope") {
		t.Errorf("bad statement: %v", err)
	}
	// Preparing a write is allowed; running it is not.
	if q, err = r.Query("DELETE FROM t"); err != nil {
		t.Fatal(err)
	}
	if q.Next() || q.Err() == nil || !strings.Contains(q.Err().Error(), "readonly") {
		t.Errorf("a write through the reader: %v", q.Err())
	}
	if _, err := OpenReader(filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Error("opening a missing database succeeded")
	}
}
