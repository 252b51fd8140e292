package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/proto/hiprofpb"
)

// memlabResult is what scripts/memlab/run.sh records of memlab's own leak
// finding on the leak fixture (testdata/leak/memlab.json.gz).
type memlabResult struct {
	Version    string               `json:"memlab"`
	Candidates int                  `json:"candidates"`
	Kept       int                  `json:"kept"`
	Traces     [][2]json.RawMessage `json:"traces"`
	Clusters   []struct {
		Count    int     `json:"count"`
		Retained int64   `json:"retained_size"`
		RepID    int64   `json:"rep_id"`
		Leaked   []int64 `json:"leaked_node_ids"`
	} `json:"clusters"`
}

// TestLeaksAgreeWithMemlab converts the three snapshots of the leak fixture
// (testdata/leak/app.js) and compares the leaks with memlab's own run on
// them (--trace-all-objects): the same leaked objects, each with the same
// trace node by node, in the same clusters of the same sizes. Cluster
// retained sizes are DevTools' (checked node by node in
// TestAgreesWithDevTools), which memlab computes otherwise; they are printed
// side by side.
func TestLeaksAgreeWithMemlab(t *testing.T) {
	dir := t.TempDir()
	var in []string
	for _, f := range []string{"baseline", "target", "final"} {
		in = append(in, writeFile(t, dir, f+".heapsnapshot", testutil.Fixture(t, "leak/"+f+".heapsnapshot.gz")))
	}
	out, sum, _ := convertAll(t, in...)
	var want memlabResult
	if err := json.Unmarshal(testutil.Fixture(t, "leak/memlab.json.gz"), &want); err != nil {
		t.Fatal(err)
	}
	if sum.Rows["js_heap_leak"] != int64(len(want.Traces)) {
		t.Errorf("%d leaks, memlab %s reports %d leak traces", sum.Rows["js_heap_leak"], want.Version, len(want.Traces))
	}
	db := testutil.OpenDB(t, out)

	// Every trace, node by node, from the root down to the leaked object.
	ours := map[int64][]int64{}
	rs, err := db.Query(`SELECT leak_id, node_id FROM js_heap_leak_path WHERE file_id = 2 ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var leak, node int64
		rs.Scan(&leak, &node)
		ours[leak] = append(ours[leak], node)
	}
	for _, tr := range want.Traces {
		var id int64
		var path []int64
		json.Unmarshal(tr[0], &id)
		json.Unmarshal(tr[1], &path)
		if !slices.Equal(ours[id], path) {
			t.Fatalf("leak @%d: our trace %v, memlab's %v", id, ours[id], path)
		}
	}
	if len(ours) != len(want.Traces) {
		t.Errorf("%d traces, memlab %d", len(ours), len(want.Traces))
	}

	// The clusters: same members, same order of members, same counts.
	members := map[int64][]int64{}
	rs, err = db.Query(`SELECT cluster_id, id FROM js_heap_leak WHERE file_id = 2 ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var c, id int64
		rs.Scan(&c, &id)
		members[c] = append(members[c], id)
	}
	type cluster struct {
		count            int
		retained, leakID int64
	}
	var got []cluster
	for _, r := range testutil.Query(t, db, `SELECT leak_count || ' ' || retained_size || ' ' || leak_id
		FROM js_heap_leak_cluster WHERE file_id = 2 ORDER BY cluster_id`) {
		var c cluster
		fmt.Sscan(r, &c.count, &c.retained, &c.leakID)
		got = append(got, c)
	}
	if len(got) != len(want.Clusters) {
		t.Fatalf("%d clusters, memlab %d", len(got), len(want.Clusters))
	}
	byFirst := map[int64]int{}
	for c, m := range members {
		byFirst[m[0]] = int(c)
	}
	for i, w := range want.Clusters {
		c, ok := byFirst[w.Leaked[0]]
		if !ok || !slices.Equal(members[int64(c)], w.Leaked) {
			t.Fatalf("memlab's cluster %d (%d leaks, first @%d) is none of ours", i, w.Count, w.Leaked[0])
		}
		if got[c].count != w.Count || got[c].leakID != w.Leaked[0] {
			t.Errorf("cluster of @%d: %+v, memlab %+v", w.Leaked[0], got[c], w)
		}
		t.Logf("memlab cluster %2d: %3d leaks, %6d B, @%d | ours %2d: %3d leaks, %6d B, @%d", i, w.Count, w.Retained,
			w.RepID, c, got[c].count, got[c].retained, got[c].leakID)
	}
	counts := testutil.Query(t, db, `SELECT count(DISTINCT cluster_id) || ' ' || min(baseline_file_id) || ' ' ||
		max(target_file_id) FROM js_heap_leak`)
	if counts[0] != fmt.Sprint(len(want.Clusters), " 0 1") {
		t.Errorf("clusters, baseline and target of the leaks: %s", counts[0])
	}
}

// TestLeakFiles: which heap files are compared, and when none are.
func TestLeakFiles(t *testing.T) {
	dir := t.TempDir()
	snap := map[string]string{}
	for _, f := range []string{"baseline", "target", "final"} {
		snap[f] = writeFile(t, dir, f+".heapsnapshot", testutil.Fixture(t, "leak/"+f+".heapsnapshot.gz"))
	}
	for _, tt := range []struct {
		name   string
		inputs []string
		opts   Options
		want   string // leaks, their file, baseline and target
	}{
		{"default: the first three", []string{snap["baseline"], snap["target"], snap["final"]}, Options{}, "999 2 0 1"},
		{"chosen", []string{snap["final"], snap["baseline"], snap["target"], snap["final"]},
			Options{Leaks: &heapfile.LeakFiles{Baseline: 1, Target: 2, Final: 3}}, "999 3 1 2"},
		{"none asked", []string{snap["baseline"], snap["target"], snap["final"]}, Options{NoLeaks: true}, "0   "},
		{"no analysis", []string{snap["baseline"], snap["target"], snap["final"]}, Options{NoAnalysis: true}, "0   "},
		{"two files", []string{snap["baseline"], snap["final"]}, Options{}, "0   "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.db")
			opts := tt.opts
			opts.Output, opts.Warnings = out, io.Discard
			if _, err := Run(context.Background(), tt.inputs, opts); err != nil {
				t.Fatal(err)
			}
			db := testutil.OpenDB(t, out)
			got := testutil.Query(t, db, `SELECT count(*) || ' ' || coalesce(min(file_id), '') || ' ' ||
				coalesce(min(baseline_file_id), '') || ' ' || coalesce(min(target_file_id), '') FROM js_heap_leak`)
			if got[0] != tt.want {
				t.Errorf("leaks %q, want %q", got[0], tt.want)
			}
		})
	}
}

// retainerPathQuery is the README's query for the path of one object (here
// @88223 of heap file 0) from the root down to it.
const retainerPathQuery = `WITH RECURSIVE path(step, id) AS (
  SELECT 0, 88223
  UNION ALL
  SELECT step + 1, s.retainer_id FROM path
  JOIN js_heap_node_stats s ON s.file_id = 0 AND s.id = path.id
  WHERE s.retainer_id IS NOT NULL)
SELECT p.step, r.id, r.class, r.edge_type, r.edge_name
FROM path p JOIN js_heap_retainer r ON r.file_id = 0 AND r.id = p.id
ORDER BY p.step DESC`

func TestRetainerPathQuery(t *testing.T) {
	dir := t.TempDir()
	out, _, _ := convertAll(t, writeFile(t, dir, "final.heapsnapshot", testutil.Fixture(t, "leak/final.heapsnapshot.gz")))
	db := testutil.OpenDB(t, out)
	var got []string
	rs, err := db.Query(retainerPathQuery)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var step, id int64
		var class string
		var et, en sql.NullString
		if err := rs.Scan(&step, &id, &class, &et, &en); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d @%d %s %s %s", step, id, class, et.String, en.String))
	}
	// Each node, the class DevTools gives it, and the edge from the line
	// before: the root, (GC roots), (Stack roots), the script's context,
	// its callbacks array, one closure, its context, the RequestContext it
	// captured, its body array and that array's elements store.
	want := []string{"9 @1 (synthetic)  ", "8 @3 (synthetic) element 1", "7 @17 (synthetic) element 7",
		"6 @6161 system / Context internal 30", "5 @75935 Array context callbacks", "4 @83499 Function element 59",
		"3 @88215 system / Context internal context", "2 @88217 RequestContext hidden 0",
		"1 @88221 Array property body", "0 @88223 (array) internal elements"}
	if !slices.Equal(got, want) {
		t.Errorf("path\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLeaksAfterDroppedFinal: in an htrace whose third snapshot is dropped
// after it was decoded (a broken message between its chunks), the snapshot
// that takes its id is the final one of the comparison.
func TestLeaksAfterDroppedFinal(t *testing.T) {
	snap := func(name string) []byte { return testutil.Fixture(t, "leak/"+name+".heapsnapshot.gz") }
	in := capture(t, testClocks(0), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 7, Type: hiprofpb.ArkTSConfig_SNAPSHOT}))
		must(t, s.Snapshot(snap("baseline")))
		must(t, s.Snapshot(snap("target")))
		final := snap("final")
		must(t, s.Chunks(final[:len(final)/2]))
		must(t, s.Message(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{`)) // cut short
		must(t, s.Chunks(final[len(final)/2:]))
		must(t, s.Message(arktstest.Marker(1)))
		must(t, s.Snapshot(final))
	})
	out, sum := convert(t, in, Options{})
	if sum.Rows["js_heap_files"] != 3 {
		t.Fatalf("%d heap files, want 3 (the broken one dropped)", sum.Rows["js_heap_files"])
	}
	got := testutil.Query(t, testutil.OpenDB(t, out), `SELECT count(*) || ' ' || min(file_id) FROM js_heap_leak`)
	if got[0] != "999 2" {
		t.Errorf("leaks %q, want 999 in file 2", got[0])
	}
}
