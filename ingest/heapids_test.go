package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/internal/testutil"
)

// TestRepeatedNodeIDs reads testdata's V1 dump, whose translator snapshot
// gives 48 of its 4 576 nodes id 0 (the handle roots and the shared
// primitive-value nodes: counted in v1.translated.heapsnapshot.gz), and
// checks that the 47 after the first get the synthetic id 2^52 + file id ×
// 2^32 + node index, that the edges name them by it, and that they are
// counted in stat (as received: id 0 repeats by design) without a warning.
func TestRepeatedNodeIDs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v1.db")
	var warn strings.Builder
	in := filepath.Join(testutil.Root(), "testdata/rawheap/v1.rawheap.gz")
	if _, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: &warn}); err != nil {
		t.Fatal(err)
	}
	db := testutil.OpenDB(t, out)
	if got := heapfile.SyntheticID(0, 4575); got != 4503599627375071 {
		t.Fatalf("SyntheticID(0, 4575) = %d", got)
	}
	base := heapfile.SyntheticID(0, 0) // 2^52: the least synthetic id, file 0's node 0
	for _, c := range []struct{ q, want string }{
		{"SELECT count(*), count(DISTINCT id) FROM js_heap_nodes", "4576|4576"},
		// Node 1, LocalHandleRoot[0], is the first with id 0 and keeps it;
		// node 4575, the last Int value, is the 48th.
		{"SELECT id FROM js_heap_nodes WHERE node_index = 1", "0"},
		{"SELECT id FROM js_heap_nodes WHERE node_index = 2", "4503599627370498"},
		{"SELECT id FROM js_heap_nodes WHERE node_index = 4575", "4503599627375071"},
		{fmt.Sprintf("SELECT count(*) FROM js_heap_nodes WHERE id >= %d", base), "47"},
		{fmt.Sprintf("SELECT count(*) FROM js_heap_nodes WHERE id >= %d AND id <> %[1]d + node_index", base), "0"},
		{"SELECT count(*) FROM js_heap_nodes WHERE id >= 9007199254740992", "0"},
		// Every edge names its target by the node's stored id (1 137 edges to
		// those nodes in the translator's snapshot).
		{fmt.Sprintf(`SELECT count(*), sum(e.to_node_id = n.id) FROM js_heap_edges e JOIN js_heap_nodes n
			ON n.file_id = e.file_id AND n.node_index * 8 = e.to_node WHERE n.id >= %d`, base), "1137|1137"},
		{"SELECT count(*) FROM js_heap_node_stats s JOIN js_heap_nodes n USING (file_id, node_index) WHERE s.id <> n.id", "0"},
		// Repeats of id 0 are the translator's by design: counted as received,
		// not as a problem, and not warned about.
		{"SELECT stat_type, count FROM stat WHERE event_name = 'js_heap_ids' AND count > 0", "received|47"},
	} {
		if got := strings.Join(testutil.Query(t, db, c.q), ","); got != c.want {
			t.Errorf("%s: %s, want %s", c.q, got, c.want)
		}
	}
	if n := strings.Count(warn.String(), "repeat the id of an earlier node"); n != 0 {
		t.Errorf("%d warnings about repeated ids of 0, want none:\n%s", n, warn.String())
	}
}
