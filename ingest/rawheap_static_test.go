package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

var rawheapTestdata = filepath.Join(testutil.Root(), "testdata", "rawheap") + string(filepath.Separator)

// heapRows returns every row of every js_heap_* table of a database, per
// table, in rowid order: all columns but the file name and times of
// js_heap_files (a .rawheap carries one timestamp, its translation none).
func heapRows(t *testing.T, db *sql.DB) map[string][][]any {
	t.Helper()
	out := map[string][][]any{}
	for _, table := range testutil.Query(t, db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'js_heap%' ORDER BY name") {
		cols, _ := testutil.Values(t, db, "SELECT * FROM "+table+" LIMIT 0")
		var keep []string
		for _, c := range cols {
			if table == "js_heap_files" && (c == "file_name" || c == "start_time" || c == "end_time") {
				continue
			}
			keep = append(keep, c)
		}
		_, rows := testutil.Values(t, db, "SELECT "+strings.Join(keep, ", ")+" FROM "+table+" ORDER BY rowid")
		out[table] = rows
	}
	return out
}

// compareHeapRows compares two databases' js_heap_* rows; it returns the
// number of rows compared and the differences (the first few of each table).
func compareHeapRows(t *testing.T, got, want map[string][][]any) (rows int, diffs []string) {
	for table, w := range want {
		g := got[table]
		if len(g) != len(w) {
			diffs = append(diffs, fmt.Sprintf("%s: %d rows, translation %d", table, len(g), len(w)))
		}
		n := 0
		for i := range min(len(g), len(w)) {
			rows++
			if !reflect.DeepEqual(g[i], w[i]) {
				if n++; n <= 3 {
					diffs = append(diffs, fmt.Sprintf("%s row %d: %v, translation %v", table, i, g[i], w[i]))
				}
			}
		}
		if n > 3 {
			diffs = append(diffs, fmt.Sprintf("%s: %d rows differ", table, n))
		}
	}
	for table := range got {
		if _, ok := want[table]; !ok {
			diffs = append(diffs, "table "+table+" only in the .rawheap's database")
		}
	}
	return rows, diffs
}

// TestStaticRawheapRowsEqualTranslation converts static (ArkTS 1.2) dumps
// and hybrid pairs, and the translator's .heapsnapshot of each, and compares
// every js_heap_* row, the analysis' included: the three dumps of one
// process in one run (classes compared, leaks), each dump alone, and the pair.
func TestStaticRawheapRowsEqualTranslation(t *testing.T) {
	tr := func(name string) string { return rawheapTestdata + name + ".translated.heapsnapshot.gz" }
	raw := func(name string) string { return rawheapTestdata + name + ".rawheap.gz" }
	leak := []string{"static-leak-baseline", "static-leak-target", "static-leak-final"}
	cases := []struct {
		name      string
		raw, want []string
		tables    []string // tables that must have rows
	}{
		{"node", []string{raw("static-node")}, []string{tr("static-node")}, nil},
		{"leak trio", []string{raw(leak[0]), raw(leak[1]), raw(leak[2])}, []string{tr(leak[0]), tr(leak[1]), tr(leak[2])},
			[]string{"js_heap_leak", "js_heap_leak_path", "js_heap_leak_cluster"}},
		{"hybrid pair", []string{raw("hybrid.dyn"), raw("hybrid.sta")}, []string{tr("hybrid")}, nil},
	}
	total := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var warn bytes.Buffer
			if _, err := Run(context.Background(), c.raw, Options{Output: filepath.Join(dir, "raw.db"), Warnings: &warn}); err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), c.want, Options{Output: filepath.Join(dir, "want.db"), Warnings: &bytes.Buffer{}}); err != nil {
				t.Fatal(err)
			}
			gotDB, wantDB := testutil.OpenDB(t, filepath.Join(dir, "raw.db")), testutil.OpenDB(t, filepath.Join(dir, "want.db"))
			got, want := heapRows(t, gotDB), heapRows(t, wantDB)
			n, diffs := compareHeapRows(t, got, want)
			for _, d := range diffs {
				t.Error(d)
			}
			for _, table := range append([]string{"js_heap_nodes", "js_heap_edges", "js_heap_node_stats", "js_heap_class"}, c.tables...) {
				if len(want[table]) == 0 {
					t.Errorf("%s is empty", table)
				}
			}
			if files := len(got["js_heap_files"]); files != len(c.want) {
				t.Errorf("%d heap files, want %d", files, len(c.want))
			}
			total += n
			t.Logf("%d rows compared, %d differences; warnings: %q", n, len(diffs), warn.String())
		})
	}
	t.Logf("%d rows compared in all", total)
}

// TestStaticRawheapFaults converts damaged static dumps: what is kept, the
// warning naming the file and the offset, the stat row, and the run's error
// only when nothing was usable.
func TestStaticRawheapFaults(t *testing.T) {
	good := testutil.Fixture(t, "rawheap/static-node.rawheap.gz")
	// The first record of objects (INSTANCE_DUMP), after the string pool
	// and the roots.
	objects := 33
	for good[objects] != 0x14 {
		objects += 17 + int(binary.LittleEndian.Uint32(good[objects+9:]))
	}
	for _, c := range []struct {
		name   string
		data   []byte
		warn   string
		typ    string
		nodes  string // js_heap_nodes rows, "" when the run fails
		errMsg string
	}{
		{"cut in the objects", good[:objects+5000], fmt.Sprintf("offset %d: record tag 0x14: body of", objects), "data_lost", "1", ""},
		{"header only", good[:33], "", "", "", "nothing usable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "x.rawheap"), filepath.Join(dir, "x.db")
			if err := os.WriteFile(in, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			_, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: &warn})
			if c.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), c.errMsg) {
					t.Fatalf("error %v, want %q", err, c.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(warn.String(), in+": "+c.warn) {
				t.Errorf("warnings %q, want %q", warn.String(), c.warn)
			}
			db := testutil.OpenDB(t, out)
			if got := testutil.Query(t, db, "SELECT count FROM stat WHERE event_name = 'rawheap' AND stat_type = ?", c.typ); len(got) != 1 || got[0] != "1" {
				t.Errorf("rawheap %s: %v", c.typ, got)
			}
			// The roots and the complete objects before the cut: more than
			// the two root nodes, fewer than the whole dump's.
			got := testutil.Query(t, db, "SELECT count(*) FROM js_heap_files")
			n := testutil.Query(t, db, "SELECT count(*) FROM js_heap_nodes")
			if got[0] != c.nodes || n[0] == "0" {
				t.Errorf("%s heap files, %s nodes", got[0], n[0])
			}
		})
	}
}
