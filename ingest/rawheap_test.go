package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestRawheapTranslatorEquality reads each .rawheap fixture of
// testdata/rawheap (scripts/rawheap/fixtures.sh) and rawheap_translator's
// .heapsnapshot of it, and compares every row of every js_heap_* table:
// nodes, edges, strings, info, the analysis (node stats, classes) and, over
// three dumps of one process, the leaks. Only the heap files' names and
// times differ (a .rawheap carries its own timestamp). The native sizes of
// each dump (js_heap_native_size) are also checked against the translator's
// node array read here, its native_size field found by name.
func TestRawheapTranslatorEquality(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files []string
		gz    bool // read the fixtures compressed (through a scratch copy)
	}{
		{"V1 2024, no version, two object sections", []string{"v1-2024"}, false},
		{"V1", []string{"v1"}, true},
		{"V1, wrapped NAPI objects", []string{"v1-napi"}, false},
		{"V2", []string{"v2"}, false},
		{"V2 2026, header fields, root groups, hashes", []string{"v2-2026"}, true},
		{"V1 2026, three dumps of one process", []string{"v1-2026-leak-baseline", "v1-2026-leak-target", "v1-2026-leak-final"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var raw, trans []string
			for _, f := range tt.files {
				if tt.gz {
					raw = append(raw, filepath.Join(testutil.Root(), "testdata/rawheap", f+".rawheap.gz"))
				} else {
					raw = append(raw, writeFile(t, dir, f+".rawheap", testutil.Fixture(t, "rawheap/"+f+".rawheap.gz")))
				}
				trans = append(trans, writeFile(t, dir, f+".heapsnapshot", testutil.Fixture(t, "rawheap/"+f+".translated.heapsnapshot.gz")))
			}
			a, b := convertHeaps(t, raw, "a.db"), convertHeaps(t, trans, "b.db")
			for i, f := range tt.files {
				want := translatedNative(t, testutil.Fixture(t, "rawheap/"+f+".translated.heapsnapshot.gz"))
				got := testutil.Query(t, a, `SELECT count(*), sum(native_size) FROM js_heap_native_size WHERE file_id = ?`, i)
				if got[0] != want || want == "0|NULL" {
					t.Errorf("%s: native sizes (count|sum) %s, the translator's %s", f, got[0], want)
				}
				t.Logf("%s: native sizes (count|sum) %s", f, got[0])
			}
			compared, diffs := compareHeapTables(t, a, b, len(tt.files) == 3)
			t.Logf("%d rows compared, %d differences", compared, diffs)
		})
	}
}

func convertHeaps(t *testing.T, inputs []string, name string) *sql.DB {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	var warn strings.Builder
	if _, err := Run(context.Background(), inputs, Options{Output: out, Warnings: &warn}); err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 && strings.Contains(warn.String(), "rawheap dropped") {
		t.Fatalf("warnings: %s", warn.String())
	}
	return testutil.OpenDB(t, out)
}

// compareHeapTables compares the js_heap_* tables of two databases row by
// row and returns the rows compared and the differences, failing the test on
// any difference.
func compareHeapTables(t *testing.T, a, b *sql.DB, leaks bool) (compared, diffs int) {
	t.Helper()
	tables := testutil.Query(t, a, `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'js\_heap\_%' ESCAPE '\' ORDER BY name`)
	counts := map[string]int{}
	for _, tab := range tables {
		cols := testutil.Query(t, a, `SELECT name FROM pragma_table_info(?) WHERE name NOT IN ('file_name', 'start_time', 'end_time')`, tab)
		var order []string
		for i := range cols {
			order = append(order, fmt.Sprint(i+1))
		}
		q := "SELECT " + strings.Join(cols, ", ") + " FROM " + tab + " ORDER BY " + strings.Join(order, ", ")
		ra, rb := testutil.Query(t, a, q), testutil.Query(t, b, q)
		counts[tab] = len(ra)
		if len(ra) != len(rb) {
			t.Errorf("%s: %d rows, the translator's %d", tab, len(ra), len(rb))
			diffs += max(len(ra), len(rb)) - min(len(ra), len(rb))
		}
		for i := 0; i < min(len(ra), len(rb)); i++ {
			compared++
			if ra[i] != rb[i] {
				if diffs < 5 {
					t.Errorf("%s row %d: %s, the translator's %s", tab, i, ra[i], rb[i])
				}
				diffs++
			}
		}
	}
	for _, tab := range []string{"js_heap_nodes", "js_heap_edges", "js_heap_string", "js_heap_info", "js_heap_node_stats", "js_heap_class"} {
		if counts[tab] == 0 {
			t.Errorf("%s is empty: nothing compared", tab)
		}
	}
	if leaks && (counts["js_heap_leak"] == 0 || counts["js_heap_leak_path"] == 0) {
		t.Errorf("no leaks found over three dumps: nothing compared")
	}
	return compared, diffs
}

// translatedNative is the count and sum of the non-zero native_size values
// of a translator's snapshot, as "count|sum" (sum NULL when there is none).
func translatedNative(t *testing.T, snap []byte) string {
	t.Helper()
	var doc struct {
		Snapshot struct {
			Meta struct {
				NodeFields []string `json:"node_fields"`
			} `json:"meta"`
		} `json:"snapshot"`
		Nodes []int64 `json:"nodes"`
	}
	if err := json.Unmarshal(snap, &doc); err != nil {
		t.Fatal(err)
	}
	fields := doc.Snapshot.Meta.NodeFields
	k := slices.Index(fields, "native_size")
	if k < 0 {
		t.Fatalf("node_fields %q lack native_size", fields)
	}
	var n, sum int64
	for i := k; i < len(doc.Nodes); i += len(fields) {
		if v := doc.Nodes[i]; v != 0 {
			n, sum = n+1, sum+v
		}
	}
	if n == 0 {
		return "0|NULL"
	}
	return fmt.Sprintf("%d|%d", n, sum)
}
