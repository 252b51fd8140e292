package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestAgreesWithDevTools compares the heap analysis of real node snapshots
// with what Chrome DevTools' own heap snapshot worker computes for them
// (testdata/devtools/run.sh): for every node the dominator, retained size,
// distance, shallow size and class (including the "{a, b}" names DevTools
// infers for plain objects) must be the same.
func TestAgreesWithDevTools(t *testing.T) {
	for _, tt := range []struct {
		snapshot, devtools string
		minNodes           int
	}{
		{"node/snapshot.heapsnapshot.gz", "devtools/snapshot.heapsnapshot.devtools.txt.gz", 40000},
		{"leak/final.heapsnapshot.gz", "devtools/leak-final.devtools.txt.gz", 40000},
	} {
		t.Run(tt.snapshot, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, dir, "s.heapsnapshot", testutil.Fixture(t, tt.snapshot))
			out, _, _ := convertAll(t, in)
			db := testutil.OpenDB(t, out)
			ours := testutil.Query(t, db, `SELECT s.id || ' ' || s.dominator_id || ' ' || s.retained_size || ' ' || s.distance || ' ' ||
				s.shallow_size || ' ' || k.name FROM js_heap_node_stats s JOIN js_heap_class k ON k.file_id = s.file_id AND k.class_id = s.class_id
				ORDER BY s.node_index`)
			sc := bufio.NewScanner(bytes.NewReader(testutil.Fixture(t, tt.devtools)))
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
			if i != len(ours) || i < tt.minNodes || interfaces == 0 {
				t.Errorf("compared %d nodes (%d with interface names), we have %d", i, interfaces, len(ours))
			}
			t.Logf("%d nodes agree, %d of them plain objects with an inferred interface name", i, interfaces)
		})
	}
}

// TestRetainersAgreeWithDevTools checks the retainer that js_heap_node_stats
// gives every node of the leak fixture's final snapshot against the retainers
// Chrome DevTools' worker lists for it (testdata/devtools/run.sh): the retainer
// and the edge must be one of those DevTools shows one step nearer the root,
// and the distances must be the same.
func TestRetainersAgreeWithDevTools(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "final.heapsnapshot", testutil.Fixture(t, "leak/final.heapsnapshot.gz"))
	out, _, _ := convertAll(t, in)
	db := testutil.OpenDB(t, out)
	type step struct {
		distance int64
		retainer string // "id type name", as DevTools names the edge
	}
	ours := map[int64]step{}
	rs, err := db.Query(`WITH et AS (SELECT row_number() OVER (ORDER BY rowid) - 1 AS code, str_value AS name
		  FROM js_heap_info WHERE file_id = 0 AND key = 'edge_types' AND type = 0)
		SELECT s.id, s.distance, s.retainer_id, et.name,
		  CASE WHEN et.name IN ('element', 'hidden') THEN CAST(e.name_or_index AS TEXT) ELSE str.string END
		FROM js_heap_node_stats s
		JOIN js_heap_edges e ON e.file_id = s.file_id AND e.edge_index = s.retainer_edge
		JOIN et ON et.code = e.type
		LEFT JOIN js_heap_string str ON str.file_id = s.file_id AND str.file_index = e.name_or_index`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var id, d, rid int64
		var typ, name string
		if err := rs.Scan(&id, &d, &rid, &typ, &name); err != nil {
			t.Fatal(err)
		}
		ours[id] = step{d, fmt.Sprint(rid, " ", typ, " ", name)}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(testutil.Fixture(t, "devtools/leak-final.retainers.jsonl.gz")))
	sc.Buffer(nil, 16<<20)
	n := 0
	for ; sc.Scan(); n++ {
		var line [3]json.RawMessage
		var id, d int64
		var near [][3]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(line[0], &id)
		json.Unmarshal(line[1], &d)
		dec = json.NewDecoder(bytes.NewReader(line[2]))
		dec.UseNumber()
		dec.Decode(&near)
		got, ok := ours[id]
		if !ok {
			if len(near) > 0 {
				t.Fatalf("node @%d: no retainer, DevTools lists %v", id, near)
			}
			continue
		}
		if got.distance != d {
			t.Fatalf("node @%d: distance %d, DevTools %d", id, got.distance, d)
		}
		found := false
		for _, r := range near {
			if fmt.Sprint(r[0], " ", r[1], " ", r[2]) == got.retainer {
				found = true
			}
		}
		if !found {
			t.Fatalf("node @%d: retainer %q is not among DevTools' nearest retainers %v", id, got.retainer, near)
		}
	}
	if n < 40000 || n != len(ours)+1 {
		t.Errorf("DevTools lists %d nodes with a distance, we give a retainer to %d", n, len(ours))
	}
}
