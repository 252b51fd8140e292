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
// distance, shallow size and class must be the same. DevTools additionally
// names plain Objects after their properties ("{a, b}"); there tracestreamer's
// class is "Object".
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
		got := ours[i]
		if got == want {
			continue
		}
		// Same numbers, and DevTools' interface name for a plain Object.
		g, w := strings.SplitN(got, " ", 6), strings.SplitN(want, " ", 6)
		if len(g) == 6 && len(w) == 6 && strings.Join(g[:5], " ") == strings.Join(w[:5], " ") &&
			g[5] == "Object" && strings.HasPrefix(w[5], "{") {
			interfaces++
			continue
		}
		t.Fatalf("node %d: ours %q, DevTools %q (id dominator retained distance shallow class)", i, got, want)
	}
	if i != len(ours) || i < 40000 {
		t.Errorf("compared %d nodes, we have %d", i, len(ours))
	}
	t.Logf("%d nodes agree; %d plain Objects have a DevTools interface name", i, interfaces)
}
