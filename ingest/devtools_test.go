package ingest

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestAgreesWithDevTools compares the heap analysis of the real node snapshot
// with what Chrome DevTools' own heap snapshot worker computes for it
// (testdata/devtools/run.sh): for every node the dominator, retained size,
// distance, shallow size and class (including the "{a, b}" names DevTools
// infers for plain objects) must be the same.
func TestAgreesWithDevTools(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.heapsnapshot", testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))
	out, _, _ := convertAll(t, in)
	db := testutil.OpenDB(t, out)
	ours := testutil.Query(t, db, `SELECT s.id || ' ' || s.dominator_id || ' ' || s.retained_size || ' ' || s.distance || ' ' ||
		s.shallow_size || ' ' || k.name FROM js_heap_node_stats s JOIN js_heap_class k ON k.file_id = s.file_id AND k.class_id = s.class_id
		ORDER BY s.node_index`)
	sc := bufio.NewScanner(bytes.NewReader(testutil.Fixture(t, "devtools/snapshot.heapsnapshot.devtools.txt.gz")))
	sc.Buffer(nil, 1<<20)
	i, interfaces := 0, 0
	for ; sc.Scan(); i++ {
		want := sc.Text()
		if i >= len(ours) {
			t.Fatalf("DevTools has more than our %d nodes", len(ours))
		}
		if ours[i] != want {
			t.Fatalf("node %d: ours %q, DevTools %q (id dominator retained distance shallow class)", i, ours[i], want)
		}
		if strings.HasSuffix(want, "}") && strings.Contains(want, " {") {
			interfaces++
		}
	}
	if i != len(ours) || i < 40000 || interfaces == 0 {
		t.Errorf("compared %d nodes (%d with interface names), we have %d", i, interfaces, len(ours))
	}
	t.Logf("%d nodes agree, %d of them plain objects with an inferred interface name", i, interfaces)
}
