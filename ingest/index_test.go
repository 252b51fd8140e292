package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/schema"
)

// TestIndex: --index builds schema.Indexes on the tables that have rows, with
// the statistics that make SQLite's planner use them for a lookup by id.
func TestIndex(t *testing.T) {
	in := filepath.Join(testutil.Root(), "testdata", "node", "snapshot.heapsnapshot.gz")
	for _, index := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "x.db")
		if _, err := Run(context.Background(), []string{in}, Options{Output: out, Index: index}); err != nil {
			t.Fatal(err)
		}
		db := testutil.OpenDB(t, out)
		got := strings.Join(testutil.Query(t, db, "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY rowid"), ",")
		want := ""
		if index {
			// callstack and args have no rows here: no index on them.
			want = "js_heap_nodes_file_id,js_heap_node_stats_file_id,js_heap_edges_from,js_heap_string_index"
		}
		if got != want {
			t.Errorf("index %v: indexes %q, want %q", index, got, want)
		}
		if !index {
			continue
		}
		// 47 953 nodes in one file: the statistics say so, and a lookup by
		// (file_id, id) searches the index on both columns.
		if got := testutil.Query(t, db, "SELECT stat FROM sqlite_stat1 WHERE idx = 'js_heap_node_stats_file_id'"); len(got) != 1 || got[0] != "47953 47953 1" {
			t.Errorf("sqlite_stat1: %q", got)
		}
		plan := strings.Join(testutil.Query(t, db, `EXPLAIN QUERY PLAN WITH RECURSIVE path(step, id) AS (
  SELECT 0, 1 UNION ALL
  SELECT step + 1, s.retainer_id FROM path JOIN js_heap_node_stats s ON s.file_id = 0 AND s.id = path.id
  WHERE s.retainer_id IS NOT NULL) SELECT * FROM path`), "\n")
		if !strings.Contains(plan, "js_heap_node_stats_file_id (file_id=? AND id=?)") {
			t.Errorf("the retainer path's step does not use the index:\n%s", plan)
		}
	}
	for _, ix := range schema.Indexes {
		if !strings.HasPrefix(ix.CreateSQL(), "CREATE INDEX "+ix.Name+" ON "+ix.Table+"(") {
			t.Errorf("%s: %s", ix.Name, ix.CreateSQL())
		}
	}
}
