package sqlitefile

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modernc.org/libc"
	_ "modernc.org/sqlite" // SQLite itself writes the reference tables and checks ours
	sqlite3 "modernc.org/sqlite/lib"

	"tracestreamer/internal/testutil"
)

// lockByte moves SQLite's lock-byte page from 1 GB to 128 KB for every
// database of these tests (as SQLite's own tests do), so that small files
// cross it and Splice's skipping of that page is checked against SQLite's.
const lockByte = 0x20000

func TestMain(m *testing.M) {
	tls := libc.NewTLS()
	va := libc.NewVaList(uint32(lockByte))
	sqlite3.Xsqlite3_test_control(tls, sqlite3.SQLITE_TESTCTRL_PENDING_BYTE, va)
	libc.Xfree(tls, va)
	tls.Close()
	os.Exit(m.Run())
}

// value is one cell: nil, int64, float64 or string.
type value = any

// row is a rowid and the values of columns a INT, b REAL, c TEXT.
type row struct {
	id  int64
	val [3]value
}

func encode(r *Record, vals [3]value) []byte {
	r.Reset()
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			r.Null()
		case int64:
			r.Int(v)
		case float64:
			r.Real(v)
		case string:
			r.Text(v)
		}
	}
	return r.Bytes()
}

// build makes a database of page size size with tables s (rows inserted by
// SQLite) and u (the same rows through a Tree and Splice, with the tree's
// operations applied by ops), and returns it open. With inPlace, the page
// file leaves room for SQLite's pages and becomes the database; without, its
// gap is too small and the tree's pages are copied after SQLite's.
func build(t *testing.T, size int, want []row, inPlace bool, ops func(*Tree, *Record)) *sql.DB {
	t.Helper()
	return buildTrees(t, size, want, inPlace, []string{"u"}, func(tr []*Tree, r *Record) { ops(tr[0], r) })
}

// buildTrees is build with a tree for each of the tables named (made empty
// beside s), all writing into one page file.
func buildTrees(t *testing.T, size int, want []row, inPlace bool, names []string, ops func([]*Tree, *Record)) *sql.DB {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	mustExec(t, db, fmt.Sprintf("PRAGMA page_size=%d", size))
	mustExec(t, db, "PRAGMA journal_mode=OFF")
	mustExec(t, db, "CREATE TABLE s(a INT, b REAL, c TEXT)")
	for _, name := range names {
		mustExec(t, db, "CREATE TABLE "+name+"(a INT, b REAL, c TEXT)")
	}
	mustExec(t, db, "CREATE TABLE after(x)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range want {
		if _, err := tx.Exec("INSERT INTO s(rowid, a, b, c) VALUES (?, ?, ?, ?)", r.id, r.val[0], r.val[1], r.val[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var tables []Table
	for _, name := range names {
		var root uint32
		if err := db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = ?", name).Scan(&root); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, Table{Root: root})
	}
	var pageCount uint32
	if err := db.QueryRow("PRAGMA page_count").Scan(&pageCount); err != nil {
		t.Fatal(err)
	}
	db.Close()

	gap := uint32(1)
	if inPlace {
		gap = pageCount + 3
	}
	var pf *Pages
	pages := func() (*Pages, error) {
		if pf == nil {
			f, err := os.Create(filepath.Join(dir, "pages"))
			if err != nil {
				return nil, err
			}
			pf = newPages(f, size, gap, lockByte)
		}
		return pf, nil
	}
	var trees []*Tree
	for i := range tables {
		tables[i].Tree = NewTree(size, pages)
		trees = append(trees, tables[i].Tree)
	}
	ops(trees, &Record{})
	if err := splice(path, pf, tables, lockByte); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pages")); pf != nil && inPlace != errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("in place %v, but the page file: %v", inPlace, err)
	}
	db, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
	return db
}

// placements are the two ways Splice places the trees' pages.
var placements = []struct {
	name    string
	inPlace bool
}{{"in place", true}, {"copied", false}}

func addAll(t *testing.T, rs []row) func(*Tree, *Record) {
	return func(tr *Tree, r *Record) {
		for _, x := range rs {
			if err := tr.Add(x.id, encode(r, x.val)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// same checks that tables s and u hold the same rowids, values and types.
func same(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	read := func(table string) []string {
		rs, err := db.Query("SELECT rowid, a, typeof(a), b, typeof(b), c, typeof(c) FROM " + table + " ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var id int64
			var v [3]any
			var ty [3]string
			if err := rs.Scan(&id, &v[0], &ty[0], &v[1], &ty[1], &v[2], &ty[2]); err != nil {
				t.Fatal(err)
			}
			s := fmt.Sprint(id)
			for i := range v {
				if f, ok := v[i].(float64); ok {
					v[i] = fmt.Sprintf("%x", math.Float64bits(f))
				}
				s += fmt.Sprintf(" %s:%v", ty[i], v[i])
			}
			out = append(out, s)
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	s, u := read("s"), read("u")
	if len(s) != n || len(u) != n {
		t.Fatalf("%d rows by SQLite, %d spliced, want %d", len(s), len(u), n)
	}
	for i := range s {
		if s[i] != u[i] {
			t.Fatalf("row %d: SQLite %.200s, spliced %.200s", i, s[i], u[i])
		}
	}
}

func sequential(vals [][3]value) []row {
	rs := make([]row, len(vals))
	for i, v := range vals {
		rs[i] = row{int64(i + 1), v}
	}
	return rs
}

// randomRows makes n rows of values of every kind and size, with a given share
// of long texts.
func randomRows(rng *rand.Rand, n, longText int) [][3]value {
	ints := []int64{0, 1, -1, 2, 127, 128, -128, -129, 32767, 32768, -32769, 1<<23 - 1, 1 << 23,
		-1<<23 - 1, 1<<31 - 1, 1 << 31, -1<<31 - 1, 1<<47 - 1, 1 << 47, -1<<47 - 1, math.MaxInt64, math.MinInt64}
	reals := []float64{0, math.Copysign(0, -1), 1, -1.5, 3.0, 1e308, -1e-308, math.Inf(1), math.Inf(-1),
		math.NaN(), 1 << 60, 0.1}
	out := make([][3]value, n)
	for i := range out {
		var v [3]value
		switch rng.IntN(4) {
		case 0:
		case 1:
			v[0] = ints[rng.IntN(len(ints))]
		default:
			v[0] = rng.Int64() >> rng.IntN(64)
		}
		switch rng.IntN(3) {
		case 0:
		case 1:
			v[1] = reals[rng.IntN(len(reals))]
		default:
			v[1] = rng.NormFloat64() * 1e6
		}
		switch k := rng.IntN(100); {
		case k < 10:
		case k < 10+longText:
			v[2] = strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(200000))
		default:
			v[2] = strings.Repeat("é\x00x", rng.IntN(30))
		}
		out[i] = v
	}
	return out
}

func TestSameAsSQLite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gaps := make([]row, 3000)
	id := int64(-50)
	for i := range gaps {
		id += 1 + rng.Int64N(1<<uint(rng.IntN(40)))
		gaps[i] = row{id, [3]value{id, nil, "x"}}
	}
	// Payload sizes around the point where a 512-byte page's cell overflows
	// (477 bytes), and chains of several overflow pages.
	var edge [][3]value
	for n := 440; n < 520; n++ {
		edge = append(edge, [3]value{nil, nil, strings.Repeat("z", n)})
	}
	edge = append(edge, [3]value{nil, nil, strings.Repeat("y", 5000)}, [3]value{int64(7), nil, ""})
	for _, tc := range []struct {
		name string
		size int
		rows []row
	}{
		{"empty", 4096, nil},
		{"one row", 4096, sequential([][3]value{{int64(5), 2.5, "a"}})},
		{"one leaf, 64 KiB pages", 65536, sequential(randomRows(rng, 500, 0))},
		{"three levels, 512-byte pages", 512, sequential(randomRows(rng, 20000, 0))},
		{"64 KiB pages", 65536, sequential(randomRows(rng, 60000, 0))},
		{"overflow, 512-byte pages", 512, sequential(randomRows(rng, 3000, 2))},
		{"overflow, 64 KiB pages", 65536, sequential(randomRows(rng, 3000, 5))},
		{"overflow edges, 512-byte pages", 512, sequential(edge)},
		{"rowid gaps and negative rowids", 1024, gaps},
	} {
		for _, pl := range placements {
			t.Run(tc.name+", "+pl.name, func(t *testing.T) {
				db := build(t, tc.size, tc.rows, pl.inPlace, addAll(t, tc.rows))
				same(t, db, len(tc.rows))
			})
		}
	}
}

// TestTruncate drops rows from the leaf being filled, from leaves in the page
// file and with their overflow pages, then adds more: the table equals
// SQLite's with the rows that were kept and added.
func TestTruncate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := randomRows(rng, 4000, 3)
	for _, tc := range []struct {
		name      string
		size      int
		add, keep []int // add the first add[i] rows, keep keep[i]
	}{
		{"within the leaf being filled", 65536, []int{10, 20}, []int{5, 15}},
		{"to nothing", 4096, []int{3000, 100}, []int{0, 100}},
		{"into a leaf in the page file", 512, []int{3000, 3500}, []int{1234, 3500}},
		{"twice", 1024, []int{2000, 3000, 4000}, []int{1500, 1499, 4000}},
		{"at a leaf's end", 512, []int{3000, 3100}, []int{-1, 3100}},
	} {
		for _, pl := range placements {
			t.Run(tc.name+", "+pl.name, func(t *testing.T) {
				truncateCase(t, vals, tc.size, tc.add, tc.keep, pl.inPlace)
			})
		}
	}
}

// truncateCase adds the first add[i] rows of vals and keeps keep[i] of them
// (-1: as many as the last written leaf ends with), in turn, and checks the
// table against SQLite's.
func truncateCase(t *testing.T, vals [][3]value, size int, add, keep []int, inPlace bool) {
	at := 0
	ops := func(tr *Tree, r *Record) {
		for i, n := range add {
			for ; at < n; at++ {
				if err := tr.Add(int64(at+1), encode(r, vals[at])); err != nil {
					t.Fatal(err)
				}
			}
			k := keep[i]
			if k < 0 {
				for _, p := range tr.pages {
					if p.leaf {
						k = int(p.rows)
					}
				}
			}
			if err := tr.Truncate(int64(k)); err != nil {
				t.Fatal(err)
			}
			if tr.Rows() != int64(k) {
				t.Fatalf("Rows() = %d after Truncate(%d)", tr.Rows(), k)
			}
			at = k
		}
	}
	// The rows kept: rowids are row numbers, so a truncated rowid is used
	// again by the next row, as SQLite does after a DELETE.
	final := keep[len(keep)-1]
	if final < 0 {
		final = add[len(add)-1]
	}
	want := sequential(vals[:final])
	db := build(t, size, want, inPlace, ops)
	same(t, db, len(want))
}

// TestTreesShareFile adds rows to three trees in turn, truncating one now and
// then, all writing into one page file whose freed pages any of them takes
// next: each table holds exactly the rows kept, in place and copied.
func TestTreesShareFile(t *testing.T) {
	for seed := range uint64(6) {
		for _, pl := range placements {
			t.Run(fmt.Sprintf("seed %d, %s", seed, pl.name), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 11))
				size := []int{512, 1024, 4096}[seed%3]
				names := []string{"u", "v", "w"}
				want := make([][]string, len(names))
				db := buildTrees(t, size, nil, pl.inPlace, names, func(trees []*Tree, r *Record) {
					for range 3000 {
						i := rng.IntN(len(trees))
						if rng.IntN(100) == 0 {
							n := rng.IntN(len(want[i]) + 1)
							if err := trees[i].Truncate(int64(n)); err != nil {
								t.Fatal(err)
							}
							want[i] = want[i][:n]
							continue
						}
						c := strings.Repeat(string(rune('a'+i)), rng.IntN(3*size))
						if err := trees[i].Add(int64(len(want[i])+1), encode(r, [3]value{nil, nil, c})); err != nil {
							t.Fatal(err)
						}
						want[i] = append(want[i], c)
					}
				})
				for i, name := range names {
					got := testutil.Query(t, db, "SELECT c FROM "+name+" ORDER BY rowid")
					if !slices.Equal(got, want[i]) {
						t.Fatalf("%s: %d rows, want %d", name, len(got), len(want[i]))
					}
				}
			})
		}
	}
}

// TestTruncateFrees drops a row of one tree whose overflow pages lie between
// pages of another tree: the next pages written take their place, and those
// no page took are on the freelist.
func TestTruncateFrees(t *testing.T) {
	const size = 4096
	long := [3]value{nil, nil, strings.Repeat("L", 20000)}
	short := make([][3]value, 2000)
	for i := range short {
		short[i] = [3]value{int64(i), nil, "v"}
	}
	for _, pl := range placements {
		t.Run(pl.name, func(t *testing.T) {
			// u gets "a" and a long row, v then fills leaves; u loses the long
			// row and, with again, gets another one.
			run := func(drop, again bool) (pages, free int) {
				db := buildTrees(t, size, nil, pl.inPlace, []string{"u", "v"}, func(tr []*Tree, r *Record) {
					u, v := tr[0], tr[1]
					for i, val := range [][3]value{{nil, nil, "a"}, long} {
						if err := u.Add(int64(i+1), encode(r, val)); err != nil {
							t.Fatal(err)
						}
					}
					for i, val := range short {
						if err := v.Add(int64(i+1), encode(r, val)); err != nil {
							t.Fatal(err)
						}
					}
					if drop {
						if err := u.Truncate(1); err != nil {
							t.Fatal(err)
						}
						if again {
							if err := u.Add(2, encode(r, long)); err != nil {
								t.Fatal(err)
							}
						}
					}
				})
				var n int
				if err := db.QueryRow("SELECT count(*) FROM v").Scan(&n); err != nil || n != len(short) {
					t.Fatalf("%d rows in v (%v)", n, err)
				}
				var c string
				if err := db.QueryRow("SELECT group_concat(length(c)) FROM u").Scan(&c); err != nil {
					t.Fatal(err)
				}
				if want := map[bool]string{true: "1,20000", false: "1"}[!drop || again]; c != want {
					t.Fatalf("u's texts are %s bytes long, want %s", c, want)
				}
				if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
					t.Fatal(err)
				}
				if err := db.QueryRow("PRAGMA freelist_count").Scan(&free); err != nil {
					t.Fatal(err)
				}
				return pages, free
			}
			pages, free := run(false, false)
			t.Logf("%d pages, %d free", pages, free)
			// 20003 bytes of record less the 3635 kept in the cell, 4092 a page.
			const overflow = 4
			// Dropped: the other tree's pages that came after them move
			// down into them, and the file is shorter by as many pages.
			if p, f := run(true, false); p != pages-overflow || f != free {
				t.Errorf("long row dropped: %d pages, %d free; kept: %d pages, %d free", p, f, pages, free)
			}
			// Dropped and another added: it takes the freed pages.
			if p, f := run(true, true); p != pages || f != free {
				t.Errorf("long row dropped and another added: %d pages, %d free; kept: %d pages, %d free", p, f, pages, free)
			}
		})
	}
}

func TestSpliceRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		setup []string
		size  int
		want  string
	}{
		{"root page with rows", []string{"CREATE TABLE u(a)", "INSERT INTO u VALUES (1)"}, 4096,
			"root page is not an empty table leaf"},
		{"other page size", []string{"CREATE TABLE u(a)"}, 8192, "tree of 8192-byte pages in a file of 4096-byte pages"},
		{"auto-vacuum", []string{"PRAGMA auto_vacuum=FULL", "CREATE TABLE u(a)"}, 4096, "auto-vacuum database"},
		{"tree of another page file", []string{"CREATE TABLE u(a)"}, 4096, "its tree wrote into another page file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".db")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			mustExec(t, db, "PRAGMA page_size=4096")
			for _, q := range tc.setup {
				mustExec(t, db, q)
			}
			var root uint32
			if err := db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = 'u'").Scan(&root); err != nil {
				t.Fatal(err)
			}
			db.Close()
			// A tree whose page file is not the one Splice is given.
			other, err := os.CreateTemp(dir, "pages")
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			tr := NewTree(tc.size, func() (*Pages, error) { return NewPages(other, tc.size, 100), nil })
			if tc.name == "tree of another page file" {
				// Overflow pages: the tree writes into its page file.
				if err := tr.Add(1, encode(&Record{}, [3]value{nil, nil, strings.Repeat("x", 3*tc.size)})); err != nil {
					t.Fatal(err)
				}
			} else if err := tr.Add(1, encode(&Record{}, [3]value{int64(1)})); err != nil {
				t.Fatal(err)
			}
			err = Splice(path, nil, []Table{{Root: root, Tree: tr}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Splice: %v, want an error naming %s and saying %q", err, path, tc.want)
			}
		})
	}
}

func TestAddOutOfOrder(t *testing.T) {
	tr := NewTree(4096, nil)
	rec := encode(&Record{}, [3]value{int64(1)})
	if err := tr.Add(5, rec); err != nil {
		t.Fatal(err)
	}
	err := tr.Add(5, rec)
	if err == nil || err.Error() != "rowid 5 after 5: rows must come in rowid order" {
		t.Fatalf("Add: %v", err)
	}
}

func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<49 - 1, 1 << 49,
		1<<56 - 1, 1 << 56, 1<<63 - 1, math.MaxUint64} {
		b := appendVarint(nil, v)
		if len(b) != varintLen(v) {
			t.Errorf("%d: %d bytes, varintLen %d", v, len(b), varintLen(v))
		}
		got, n := readVarint(b)
		if got != v || n != len(b) {
			t.Errorf("%d: read back %d in %d bytes of %d", v, got, n, len(b))
		}
		put := make([]byte, len(b))
		if putVarint(put, v, varintLen(v)); string(put) != string(b) {
			t.Errorf("%d: putVarint % x, appendVarint % x", v, put, b)
		}
	}
}

// TestValues reads back the records Record makes.
func TestValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var r Record
	var got []Value
	for _, vals := range randomRows(rng, 2000, 2) {
		var err error
		got, err = Values(got[:0], encode(&r, vals))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d values, want 3", len(got))
		}
		for i, v := range vals {
			var want Value
			switch v := v.(type) {
			case int64:
				want = Value{Kind: Integer, Int: v}
			case float64:
				switch ix := int64(v); {
				case math.IsNaN(v):
				case v > -(1<<63) && v < 1<<63 && float64(ix) == v:
					want = Value{Kind: Integer, Int: ix}
				default:
					want = Value{Kind: Float, Real: v}
				}
			case string:
				want = Value{Kind: Text, Text: v}
			}
			if got[i] != want {
				t.Fatalf("value %d of %v: read back %+v, want %+v", i, vals, got[i], want)
			}
		}
	}
	if _, err := Values(nil, []byte{3, 1}); err == nil || err.Error() != "record header of 3 bytes in a record of 2" {
		t.Errorf("Values of a short record: %v", err)
	}
}

// TestInts checks the one-pass record of integers against Int and Bytes.
func TestInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var a, b Record
	// Every width's bounds, each alone and all in one row.
	var edges []int64
	for _, w := range []uint{0, 1, 7, 8, 15, 16, 23, 24, 31, 32, 47, 48, 63} {
		hi := int64(uint64(1)<<w - 1)
		edges = append(edges, hi, hi+1, -hi, -hi-1, -hi-2)
	}
	edges = append(edges, math.MinInt64, math.MaxInt64)
	rows := [][]int64{edges}
	for _, v := range edges {
		rows = append(rows, []int64{v})
	}
	for _, vals := range rows {
		a.Reset()
		for _, v := range vals {
			a.Int(v)
		}
		if want, got := a.Bytes(), b.Ints(vals); string(got) != string(want) {
			t.Fatalf("%v: Ints % x, Int and Bytes % x", vals, got, want)
		}
	}
	for _, n := range []int{1, 7, 12, 126, 127, 300} {
		for range 200 {
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = rng.Int64() >> rng.IntN(64)
				if rng.IntN(2) == 0 {
					vals[i] = -vals[i]
				}
			}
			a.Reset()
			for _, v := range vals {
				a.Int(v)
			}
			want := a.Bytes()
			if got := b.Ints(vals); string(got) != string(want) {
				t.Fatalf("%d values: Ints % x, Int and Bytes % x", n, got, want)
			}
		}
	}
}

// BenchmarkRecord encodes js_heap_edges-like rows: 7 integers of mixed widths.
func BenchmarkRecord(b *testing.B) {
	row := []int64{0, 123456, 2, 4567, 891011, 1234567, 7654321}
	b.Run("Int+Bytes", func(b *testing.B) {
		var r Record
		for b.Loop() {
			r.Reset()
			for _, v := range row {
				r.Int(v)
			}
			r.Bytes()
		}
	})
	b.Run("Ints", func(b *testing.B) {
		var r Record
		for b.Loop() {
			r.Ints(row)
		}
	})
}

// addBenchRows adds the benchmarks' 1 Mi rows of 7 integers to tr and
// returns the bytes of their records.
func addBenchRows(b *testing.B, tr *Tree, r *Record) int64 {
	row := []int64{0, 0, 2, 4567, 891011, 1234567, 7654321}
	var bytes int64
	for i := range int64(1 << 20) {
		row[1] = i
		rec := r.Ints(row)
		bytes += int64(len(rec))
		if err := tr.Add(i+1, rec); err != nil {
			b.Fatal(err)
		}
	}
	return bytes
}

// BenchmarkTree packs js_heap_edges-like records (7 integers) into 64 KiB
// leaves, writing full pages to the page file: the store's path for most rows.
func BenchmarkTree(b *testing.B) {
	dir := b.TempDir()
	var r Record
	var bytes int64
	for b.Loop() {
		f, err := os.CreateTemp(dir, "pages")
		if err != nil {
			b.Fatal(err)
		}
		pf := NewPages(f, 65536, 16)
		tr := NewTree(65536, func() (*Pages, error) { return pf, nil })
		bytes += addBenchRows(b, tr, &r)
		pf.Close()
		os.Remove(f.Name())
	}
	b.ReportMetric(float64(b.N)*(1<<20)/b.Elapsed().Seconds()/1e6, "Mrows/s")
	b.ReportMetric(float64(bytes)/b.Elapsed().Seconds()/1e6, "MB/s")
}

// BenchmarkScan reads BenchmarkTree's 1 Mi rows back from the page file
// (Tree.Scan): the store's path when it rebuilds a table or reads its ints.
func BenchmarkScan(b *testing.B) {
	f, err := os.CreateTemp(b.TempDir(), "pages")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pf := NewPages(f, 65536, 16)
	tr := NewTree(65536, func() (*Pages, error) { return pf, nil })
	var r Record
	bytes := addBenchRows(b, tr, &r)
	var sum int64
	for b.Loop() {
		if err := tr.Scan(func(id int64, rec []byte) error { sum += id + int64(len(rec)); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*(1<<20)/b.Elapsed().Seconds()/1e6, "Mrows/s")
	b.ReportMetric(float64(b.N)*float64(bytes)/b.Elapsed().Seconds()/1e6, "MB/s")
}

// FuzzTree adds rows of every size (up to several overflow pages) to a tree,
// truncates it now and then, splices it into a database SQLite made and
// checks, with SQLite, that the file is sound and holds exactly the rows kept.
func FuzzTree(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 7, 128, 5, 200, 9})
	f.Add([]byte{1, 5, 5, 5, 5, 5, 5, 7, 10, 6, 6, 6})
	f.Add([]byte{2, 255, 255, 255, 7, 0, 1, 1})
	f.Add([]byte{4, 1, 2, 3, 7, 128, 5, 200, 9})     // in place
	f.Add([]byte{6, 255, 255, 7, 100, 30, 30, 7, 1}) // in place, truncated into a written leaf
	f.Add([]byte{8, 1, 2, 3, 7, 128, 5, 200, 9})     // 16 KiB pages
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzTree")
		if len(data) == 0 || len(data) > 400 {
			return
		}
		size := []int{512, 1024, 4096, 65536}[data[0]%4] // and data[0]&4: in place or copied
		if data[0]&8 != 0 {
			size = 16384 // small inputs' outputs (ingest)
		}
		type kept struct {
			a int64
			c string
		}
		var want []kept
		ops := func(tr *Tree, r *Record) {
			for i := 1; i < len(data); i++ {
				op := data[i]
				if op%8 == 7 && i+1 < len(data) {
					i++
					n := int64(len(want)) * int64(data[i]) / 256
					if err := tr.Truncate(n); err != nil {
						t.Fatal(err)
					}
					want = want[:n]
					continue
				}
				// A text of up to 3.5 pages, its length from op and the next byte.
				n := int(op) * size / 64
				if i+1 < len(data) {
					i++
					n += int(data[i])
				}
				row := kept{a: int64(op)<<40 - int64(len(want)), c: strings.Repeat(string(rune('a'+len(want)%26)), n)}
				if err := tr.Add(int64(len(want)+1), encode(r, [3]value{row.a, nil, row.c})); err != nil {
					t.Fatal(err)
				}
				want = append(want, row)
			}
			// Read back as the store does (rebuilds, ScanInts): every row,
			// its overflow pages followed, before the tree is placed.
			var got Record
			k := 0
			if err := tr.Scan(func(rowid int64, rec []byte) error {
				if k >= len(want) || rowid != int64(k+1) || !bytes.Equal(rec, encode(&got, [3]value{want[k].a, nil, want[k].c})) {
					return fmt.Errorf("scanned row %d: rowid %d, %d bytes; want %d rows", k, rowid, len(rec), len(want))
				}
				k++
				return nil
			}); err != nil || k != len(want) {
				t.Fatalf("scan: %d rows (%v), want %d", k, err, len(want))
			}
		}
		db := build(t, size, nil, data[0]&4 != 0, ops)
		rs, err := db.Query("SELECT rowid, a, c FROM u ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		i := 0
		for rs.Next() {
			var id, a int64
			var c string
			if err := rs.Scan(&id, &a, &c); err != nil {
				t.Fatal(err)
			}
			if i >= len(want) || id != int64(i+1) || a != want[i].a || c != want[i].c {
				t.Fatalf("row %d: rowid %d, a %d, %d bytes of text; want %d rows", i, id, a, len(c), len(want))
			}
			i++
		}
		if err := rs.Err(); err != nil || i != len(want) {
			t.Fatalf("%d rows read (%v), want %d", i, err, len(want))
		}
	})
}

// TestFreelistTrunks: a trunk page lists at most usable size/4 − 8 leaves
// (120 for 512-byte pages, 16 376 for 64 KiB), chained to the trunk the file
// had, and the header counts every page on the list.
func TestFreelistTrunks(t *testing.T) {
	for _, size := range []int{512, 65536} {
		per := size/4 - 8
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		const oldTrunk = 2
		s := &spliced{f: f, size: size}
		n := 2*per + 5 // two full trunks, a third with 2 leaves
		for no := uint32(n + 2); no > 2; no-- {
			s.free = append(s.free, no) // descending, as trim leaves them
		}
		h := make([]byte, headerSize)
		binary.BigEndian.PutUint32(h[hdrFreeTrunk:], oldTrunk)
		binary.BigEndian.PutUint32(h[hdrFreeCount:], 1)
		if err := s.freelist(h); err != nil {
			t.Fatal(err)
		}
		var counts []int
		total, page := 1, make([]byte, size)
		for trunk := be32(h[hdrFreeTrunk:]); trunk != oldTrunk; trunk = be32(page) {
			if _, err := f.ReadAt(page, s.offset(trunk)); err != nil {
				t.Fatal(err)
			}
			counts = append(counts, int(be32(page[4:])))
			total += 1 + counts[len(counts)-1]
		}
		if want := []int{2, per, per}; !slices.Equal(counts, want) {
			t.Errorf("%d-byte pages: trunks list %v leaves, want %v", size, counts, want)
		}
		if c := be32(h[hdrFreeCount:]); int(c) != total || total != n+1 {
			t.Errorf("%d-byte pages: header counts %d free pages, the list has %d, want %d", size, c, total, n+1)
		}
	}
}

// TestTake reads a tree's rows back (Scan), then builds it again through a
// second tree of the same page file, changing, dropping and adding rows on
// the way (Take, whose pages the second tree takes as they are read), and
// back: the table equals SQLite's with the final rows, and the page file
// has not grown by much (the pages read are written again, not added).
func TestTake(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	vals := randomRows(rng, 3000, 3)
	for _, size := range []int{512, 4096, 65536} {
		for _, pl := range placements {
			t.Run(fmt.Sprintf("%d-byte pages, %s", size, pl.name), func(t *testing.T) {
				var want []row
				for i, v := range vals {
					switch {
					case i%5 == 4: // dropped
					case i%3 == 0: // changed
						want = append(want, row{int64(2*i + 1), [3]value{int64(i), nil, strings.Repeat("c", i%700)}})
					default:
						want = append(want, row{int64(2*i + 1), v})
					}
					if i%50 == 0 { // added in a gap
						want = append(want, row{int64(2*i + 2), [3]value{nil, 0.5, "added"}})
					}
				}
				db := build(t, size, want, pl.inPlace, func(tr *Tree, r *Record) {
					for i, v := range vals {
						if err := tr.Add(int64(2*i+1), encode(r, v)); err != nil {
							t.Fatal(err)
						}
					}
					var scanned []int64
					err := tr.Scan(func(id int64, rec []byte) error {
						i := int(id-1) / 2
						if want := encode(r, vals[i]); !bytes.Equal(rec, want) {
							t.Fatalf("Scan: row %d: record %x, want %x", id, rec, want)
						}
						scanned = append(scanned, id)
						return nil
					})
					if err != nil || len(scanned) != len(vals) {
						t.Fatalf("Scan: %d rows, %v; want %d", len(scanned), err, len(vals))
					}
					var extent int64
					if tr.pf != nil {
						extent = tr.pf.Extent()
					}
					mid := NewTree(size, tr.newPages)
					var r2 Record
					err = tr.Take(func(id int64, rec []byte) error {
						i := int(id-1) / 2
						switch {
						case i%5 == 4:
							rec = nil
						case i%3 == 0:
							rec = encode(&r2, [3]value{int64(i), nil, strings.Repeat("c", i%700)})
						}
						if rec != nil {
							if err := mid.Add(id, rec); err != nil {
								return err
							}
						}
						if i%50 == 0 {
							return mid.Add(id+1, encode(&r2, [3]value{nil, 0.5, "added"}))
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					if tr.Rows() != 0 {
						t.Fatalf("%d rows left after Take", tr.Rows())
					}
					if err := mid.Take(tr.Add); err != nil {
						t.Fatal(err)
					}
					if tr.pf != nil && tr.pf.Extent() > extent*11/10+int64(4*size) {
						t.Errorf("page file of %d bytes after taking a tree of %d twice", tr.pf.Extent(), extent)
					}
				})
				same(t, db, len(want))
			})
		}
	}
}

// corruptibleTree builds a tree of rows 1 to n in a page file of its own
// (2 pages left for SQLite's), row 2 of record big and the others small,
// for the tests that then write over its pages.
func corruptibleTree(t *testing.T, size int, n int64, small, big []byte) (*os.File, *Pages, *Tree) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "pages"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pf := NewPages(f, size, 2)
	tr := NewTree(size, func() (*Pages, error) { return pf, nil })
	for id := int64(1); id <= n; id++ {
		rec := small
		if id == 2 {
			rec = big
		}
		if err := tr.Add(id, rec); err != nil {
			t.Fatal(err)
		}
	}
	return f, pf, tr
}

// TestScanCorrupt: a page read back that the page file no longer holds as it
// was written (its cell count, a cell pointer, a cell's varints, a number of
// an overflow page: past the file, or another than the one written, a cycle
// included; a cell pointer below the cell content area; overflow pages no
// row's chain reaches) makes Scan and Take return an error naming the page
// and the byte of it, not panic, and Take gives no page back twice. The tree: row 1 small, row 2 of 1200 bytes (184
// in its cell, then overflow pages 3 and 4 of 508 each), rows 3 to 40 small;
// leaf page 5 holds rows 1 to 23 and is written, rows 24 to 40 stay in memory.
func TestScanCorrupt(t *testing.T) {
	const size = 512
	small, big := []byte(strings.Repeat("s", 10)), []byte(strings.Repeat("b", 1200))
	// Leaf page 5's cells lie downwards from its end: row 1's 12 bytes (size,
	// rowid, 10 bytes) at 500, row 2's 191 (2-byte size, rowid, 184 bytes,
	// overflow page number at 496) at 309, each further row's 12 below.
	const cell0, firstOver = 500, 309 + 2 + 1 + 184
	leafPage, overPage := int64(4*size), int64(2*size) // offsets of pages 5 and 3
	for _, c := range []struct {
		name string
		put  map[int64][]byte // bytes written at offsets of the page file
		want string           // the error; "": none
	}{
		{name: "sound"},
		{"cell count higher", map[int64][]byte{leafPage + 3: {0, 253}}, "page 5, byte 3: 253 cells, 23 written"},
		// Fewer cells would drop rows 2 to 23 without an error.
		{"cell count lower", map[int64][]byte{leafPage + 3: {0, 1}}, "page 5, byte 3: 1 cells, 23 written"},
		// Row 2 made a small row in place (a 10-byte size, the same varint
		// length, and 10 bytes of a small row): its overflow pages are not
		// reached.
		{"overflow pages not reached", map[int64][]byte{leafPage + 309: {0x80, 10}, leafPage + 312: small},
			"page 5, byte 0: overflow page 3 written for its rows is in none of their chains"},
		{"pointer past the page", map[int64][]byte{leafPage + 8: {0xff, 0xff}}, "page 5, byte 8: cell 0: pointer 65535 past the page"},
		{"pointer at the page's end", map[int64][]byte{leafPage + 10: {2, 0}}, "page 5, byte 10: cell 1: pointer 512 past the page"},
		// The cell content area starts at row 23's cell, 57 (above the 23
		// pointers, which end at 54).
		{"pointer into the cell pointers", map[int64][]byte{leafPage + 8: {0, 20}},
			"page 5, byte 8: cell 0: pointer 20 below the cell content area at 57"},
		{"pointer into the header", map[int64][]byte{leafPage + 10: {0, 2}},
			"page 5, byte 10: cell 1: pointer 2 below the cell content area at 57"},
		{"content area start past cells", map[int64][]byte{leafPage + 5: {1, 0}},
			"page 5, byte 20: cell 6: pointer 249 below the cell content area at 256"},
		{"payload size past the page", map[int64][]byte{leafPage + 8: {0x01, 0xff}, leafPage + 511: {0x81}},
			"page 5, byte 511: cell 0: payload size runs past the page"},
		{"rowid past the page", map[int64][]byte{leafPage + 8: {0x01, 0xfe}, leafPage + 510: {10, 0x81}},
			"page 5, byte 510: cell 0: rowid runs past the page"},
		{"payload past the page", map[int64][]byte{leafPage + cell0: {20}},
			"page 5, byte 500: cell 0: payload of 20 bytes runs past the page"},
		{"overflowing payload past the page", map[int64][]byte{leafPage + cell0: {0x83, 0x60}},
			"page 5, byte 500: cell 0: payload of 480 bytes runs past the page"},
		{"payload past the file", map[int64][]byte{leafPage + cell0: bytes.Repeat([]byte{0xff}, 9)},
			"page 5, byte 500: cell 0: payload of 18446744073709551615 bytes, more than the page file holds"},
		{"no overflow page", map[int64][]byte{leafPage + firstOver: {0, 0, 0, 0}},
			"page 5, byte 496: row 2: overflow chain ends after 184 of its 1200 bytes"},
		{"overflow page past the file", map[int64][]byte{leafPage + firstOver: {0, 0, 0, 6}},
			"page 5, byte 496: row 2: overflow page 6 past the page file's 5 pages"},
		{"chain ends early", map[int64][]byte{overPage: {0, 0, 0, 0}},
			"page 3, byte 0: row 2: overflow chain ends after 692 of its 1200 bytes"},
		{"chain past the file", map[int64][]byte{overPage: {0xff, 0xff, 0xff, 0xff}},
			"page 3, byte 0: row 2: overflow page 4294967295 past the page file's 5 pages"},
		// Chains through pages other than those written: with Take, a page
		// read twice would go back to the page file twice.
		{"page pointing to itself", map[int64][]byte{overPage: {0, 0, 0, 3}},
			"page 3, byte 0: row 2: overflow page 3 where page 4 was written"},
		{"two-page loop", map[int64][]byte{overPage + size: {0, 0, 0, 3}},
			"page 4, byte 0: row 2: overflow chain runs on past its 1200 bytes, to page 3"},
		{"last page pointing to itself", map[int64][]byte{overPage + size: {0, 0, 0, 4}},
			"page 4, byte 0: row 2: overflow chain runs on past its 1200 bytes, to page 4"},
		{"two-page loop, payload longer", map[int64][]byte{leafPage + 309: {0x8d, 0x2c}, overPage + size: {0, 0, 0, 3}},
			"page 4, byte 0: row 2: overflow page 3 where none was written"},
		{"chain into a leaf", map[int64][]byte{overPage: {0, 0, 0, 5}},
			"page 3, byte 0: row 2: overflow page 5 where page 4 was written"},
		{"chain starting at its second page", map[int64][]byte{leafPage + firstOver: {0, 0, 0, 4}},
			"page 5, byte 496: row 2: overflow page 4 where page 3 was written"},
	} {
		for _, take := range []bool{false, true} {
			f, pf, tr := corruptibleTree(t, size, 40, small, big)
			want := []pageInfo{{no: 3, rows: 2}, {no: 4, rows: 2}, {no: 5, leaf: true, rows: 23, last: 23}}
			if !slices.Equal(tr.pages, want) || pf.last != 5 {
				t.Fatalf("pages %+v (%d in the file), want %+v", tr.pages, pf.last, want)
			}
			for at, b := range c.put {
				if _, err := f.WriteAt(b, at); err != nil {
					t.Fatal(err)
				}
			}
			scan, how := tr.Scan, "Scan"
			if take {
				scan, how = tr.Take, "Take"
			}
			var rows int64
			err := scan(func(id int64, rec []byte) error {
				if rows++; id != rows || !bytes.Equal(rec, small) && !(id == 2 && bytes.Equal(rec, big)) {
					return fmt.Errorf("row %d: rowid %d, %d bytes", rows, id, len(rec))
				}
				return nil
			})
			switch {
			case c.want == "" && (err != nil || rows != 40):
				t.Errorf("%s: %s: %d rows, %v; want 40", c.name, how, rows, err)
			case c.want != "" && (!errors.Is(err, errCorrupt) || err.Error() != "page file corrupt: "+c.want):
				t.Errorf("%s: %s: %v, want %q", c.name, how, err, "page file corrupt: "+c.want)
			}
			if free := slices.Sorted(slices.Values(pf.free)); len(slices.Compact(slices.Clone(free))) != len(free) {
				t.Errorf("%s: %s: pages %v given back, one twice", c.name, how, free)
			}
		}
	}
}

// TestTruncateCorrupt: a leaf that Truncate reads back to cut it, not as it
// was written (its cell count, the pointer, varints, payload or rowid of the
// last cell kept), makes Truncate return an error naming the page and the
// byte of it, not panic, and leaves the tree as it was. The tree: TestScanCorrupt's
// rows 1 to 23 in leaf page 5, then rows 24 to 59 in leaf page 6 (cells of 12
// bytes from 500 down), row 60 in memory. Cutting at 10 keeps cells 0 to 9 of
// page 5 (cell 9, row 10, at 213, its pointer at byte 26; the content area
// starts at 57, row 23's cell); cutting at 30 keeps cells 0 to 6 of page 6
// (cell 6, row 30, at 428, its pointer at byte 20).
func TestTruncateCorrupt(t *testing.T) {
	const size = 512
	small, big := []byte(strings.Repeat("s", 10)), []byte(strings.Repeat("b", 1200))
	page5, page6 := int64(4*size), int64(5*size)
	for _, c := range []struct {
		name string
		n    int64            // rows kept
		put  map[int64][]byte // bytes written at offsets of the page file
		want string           // the error; "": none
	}{
		{name: "sound", n: 10},
		{name: "sound, after a leaf", n: 30},
		{"cell count", 10, map[int64][]byte{page5 + 3: {0, 22}}, "page 5, byte 3: 22 cells, 23 written"},
		{"pointer past the page", 10, map[int64][]byte{page5 + 26: {0xff, 0xff}},
			"page 5, byte 26: cell 9: pointer 65535 past the page"},
		{"pointer into the cell pointers", 10, map[int64][]byte{page5 + 26: {0, 20}},
			"page 5, byte 26: cell 9: pointer 20 below the cell content area at 57"},
		{"pointer into the header", 10, map[int64][]byte{page5 + 26: {0, 2}},
			"page 5, byte 26: cell 9: pointer 2 below the cell content area at 57"},
		{"content area start past the cell", 10, map[int64][]byte{page5 + 5: {1, 0}},
			"page 5, byte 26: cell 9: pointer 213 below the cell content area at 256"},
		{"payload size past the page", 10, map[int64][]byte{page5 + 26: {0x01, 0xff}, page5 + 511: {0x81}},
			"page 5, byte 511: cell 9: payload size runs past the page"},
		{"rowid past the page", 10, map[int64][]byte{page5 + 26: {0x01, 0xfe}, page5 + 510: {10, 0x81}},
			"page 5, byte 510: cell 9: rowid runs past the page"},
		{"payload past the page", 10, map[int64][]byte{page5 + 213: {0x83, 0}},
			"page 5, byte 213: cell 9: payload of 384 bytes runs past the page"},
		{"payload past the file", 10, map[int64][]byte{page5 + 213: bytes.Repeat([]byte{0xff}, 9)},
			"page 5, byte 213: cell 9: payload of 18446744073709551615 bytes, more than the page file holds"},
		{"rowid not before the leaf's last", 10, map[int64][]byte{page5 + 214: {23}},
			"page 5, byte 213: cell 9: rowid 23, not before the leaf's last 23"},
		{"rowid not after the leaf before", 30, map[int64][]byte{page6 + 429: {23}},
			"page 6, byte 428: cell 6: rowid 23, not after the leaf before's last 23"},
	} {
		f, pf, tr := corruptibleTree(t, size, 60, small, big)
		want := []pageInfo{{no: 3, rows: 2}, {no: 4, rows: 2}, {no: 5, leaf: true, rows: 23, last: 23}, {no: 6, leaf: true, rows: 59, last: 59}}
		if !slices.Equal(tr.pages, want) || pf.last != 6 {
			t.Fatalf("pages %+v (%d in the file), want %+v", tr.pages, pf.last, want)
		}
		for at, b := range c.put {
			if _, err := f.WriteAt(b, at); err != nil {
				t.Fatal(err)
			}
		}
		filling := slices.Clone(tr.page)
		err := tr.Truncate(c.n)
		if c.want != "" {
			if !errors.Is(err, errCorrupt) || err.Error() != "page file corrupt: "+c.want {
				t.Errorf("%s: %v, want %q", c.name, err, "page file corrupt: "+c.want)
			}
			if tr.Rows() != 60 || tr.cells != 1 || !bytes.Equal(tr.page, filling) || !slices.Equal(tr.pages, want) {
				t.Errorf("%s: the tree changed: %d rows, %d cells in the leaf being filled, pages %+v", c.name, tr.Rows(), tr.cells, tr.pages)
			}
			continue
		}
		if err != nil || tr.Rows() != c.n {
			t.Fatalf("%s: %v, %d rows", c.name, err, tr.Rows())
		}
		// The rows kept and one added after them read back.
		if err := tr.Add(c.n+1, small); err != nil {
			t.Fatal(err)
		}
		var rows int64
		err = tr.Scan(func(id int64, rec []byte) error {
			if rows++; id != rows || !bytes.Equal(rec, small) && !(id == 2 && bytes.Equal(rec, big)) {
				return fmt.Errorf("row %d: rowid %d, %d bytes", rows, id, len(rec))
			}
			return nil
		})
		if err != nil || rows != c.n+1 {
			t.Errorf("%s: Scan: %d rows, %v; want %d", c.name, rows, err, c.n+1)
		}
	}
}

// TestRecordHeaderSizes reads back records around the sizes where a header
// varint takes a second byte: texts of 56 to 58 bytes (serial types 125 to
// 129), and 125 to 128 values (a header of 126 to 129 bytes).
func TestRecordHeaderSizes(t *testing.T) {
	var r Record
	for _, n := range []int{1, 125, 126, 127, 128} {
		for _, size := range []int{0, 56, 57, 58, 300} {
			r.Reset()
			for i := range n {
				if i%2 == 0 {
					r.Text(strings.Repeat("x", size))
				} else {
					r.Int(int64(i) << 40)
				}
			}
			got, err := Values(nil, r.Bytes())
			if err != nil || len(got) != n {
				t.Fatalf("%d values, texts of %d: %d read back, error %v", n, size, len(got), err)
			}
			for i, v := range got {
				want := Value{Kind: Text, Text: strings.Repeat("x", size)}
				if i%2 == 1 {
					want = Value{Kind: Integer, Int: int64(i) << 40}
				}
				if v != want {
					t.Fatalf("%d values, texts of %d: value %d is %+v, want %+v", n, size, i, v, want)
				}
			}
		}
	}
}
