package heapfile

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// small is a decoder of a three-node heap written without JSON, the way a
// binary format's decoder hands its content over: root → a → b, and an
// edge to no node.
func small(w *Writer) error {
	w.Meta(Meta{NodeTypes: [][]string{{"hidden", "object"}}, EdgeTypes: [][]string{{"property"}},
		NodeCount: 3, EdgeCount: 3, Root: 0, NodeStride: 8, Detachedness: true})
	w.Node(Node{Type: 0, Name: 0, ID: 1, SelfSize: 0, EdgeCount: 1})
	w.Node(Node{Type: 1, Name: 1, ID: 3, SelfSize: 16, EdgeCount: 2})
	w.Node(Node{Type: 1, Name: 2, ID: 5, SelfSize: 24})
	w.Edge(Edge{Type: 0, NameOrIndex: 1, ToNode: 8})
	w.Edge(Edge{Type: 0, NameOrIndex: 2, ToNode: 16})
	w.Edge(Edge{Type: 0, NameOrIndex: 2, ToNode: 17})
	for _, s := range []string{"", "A", "B\xff"} {
		w.String(s)
	}
	return nil
}

func TestReadKeepsAndNumbers(t *testing.T) {
	for _, analyse := range []bool{false, true} {
		t.Run(fmt.Sprint("analyse=", analyse), func(t *testing.T) {
			m, log := rows.NewMemory(), stat.NewLog(nil)
			f := New(m, schema.New(), log, Options{Analyse: analyse})
			var warns []string
			warn := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
			place := func(id int64, s Summary) (string, int64, int64) { return SnapshotName(id), 10, 20 }
			s, err := f.Read("small", small, warn, place)
			if err != nil || s.Nodes != 3 || s.Edges != 3 || s.Strings != 3 || s.SelfSize != 40 {
				t.Fatalf("summary %+v, error %v", s, err)
			}
			if _, err := f.Read("cut", func(w *Writer) error { w.Node(Node{ID: 9}); return errors.New("cut") }, warn, place); err == nil {
				t.Fatal("a failing decoder's file was kept")
			}
			if _, err := f.Read("small", small, warn, place); err != nil {
				t.Fatal(err)
			}
			f.Flush()
			if got := m.Rows["js_heap_files"]; len(got) != 2 || got[1][0].Int != 1 || got[1][1].Text != "Snapshot1" {
				t.Errorf("js_heap_files %v", got)
			}
			if n := log.Count(stat.JSMemory, stat.Received); n != 2 {
				t.Errorf("%d files counted", n)
			}
			// file 0's edges: from 1 to 3, from 3 to 5, from 3 to no node
			// (offset 17); NULL as -1.
			edges := testutil.IntRows(m, "js_heap_edges")
			want := [][]int64{{0, 0, 0, 1, 8, 1, 3}, {0, 1, 0, 2, 16, 3, 5}, {0, 2, 0, 2, 17, 3, -1}}
			if to := testutil.Ints(m, "js_heap_edges", 6, -1); len(edges) == 6 {
				for i := range want {
					edges[i][6] = to[i]
				}
			}
			if len(edges) != 6 || !reflect.DeepEqual(edges[:3], want) {
				t.Errorf("edges %v", edges)
			}
			if strs := m.Rows["js_heap_string"]; len(strs) != 6 || strs[2][2].Text != "B\uFFFD" {
				t.Errorf("strings %v", strs)
			}
			if len(warns) != 4 || warns[0] != "edge 2 points to node offset 17, not a node of the 3-node array" ||
				warns[1] != "string 2 is not valid UTF-8; invalid bytes replaced by U+FFFD" {
				t.Errorf("warnings %q", warns)
			}
			if analyse && (len(m.Rows["js_heap_node_stats"]) != 6 || len(m.Rows["js_heap_class"]) == 0) {
				t.Errorf("%d stats rows, %d classes", len(m.Rows["js_heap_node_stats"]), len(m.Rows["js_heap_class"]))
			}
		})
	}
}

// TestDecodePanicIsAnError: a panic while writing a file's rows (here forced
// by an output without a nodes appender, a bug) is returned as an error, so
// that the caller drops the file and goes on. With the analysis, the node
// rows are written by another goroutine, whose panic is returned the same way.
func TestDecodePanicIsAnError(t *testing.T) {
	for _, analyse := range []bool{false, true} {
		out := NewOutput(rows.NewMemory(), schema.New(), Options{Analyse: analyse})
		out.nodes = tables.JSHeapNodesWriter{}   // no appender: a nil dereference
		_, err := out.decode(0, small, nil, nil) // not Decode, which would discard the pending rows through the broken appender
		want := "internal error (please report it): "
		if analyse {
			want = "internal error writing the rows of nodes and edges "
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "(please report it): runtime error") {
			t.Errorf("analyse=%v: error %v", analyse, err)
		}
	}
}

// TestUniqueIDs checks the ids a file's nodes are given: a repeated id gets
// the node's synthetic id, and a real id that takes a synthetic one counts as
// repeated; pages of ids turn from lists into bitmaps without losing one.
func TestUniqueIDs(t *testing.T) {
	const base = 1<<52 + 3<<32 // file 3
	for _, c := range []struct {
		name string
		ids  []int64
		want []int64
	}{
		{"unique", []int64{1, 3, 5, 2}, []int64{1, 3, 5, 2}},
		{"zeros", []int64{1, 0, 0, 7, 0}, []int64{1, 0, base + 2, 7, base + 4}},
		{"a real id repeating a synthetic one", []int64{0, 0, base + 1, base + 2}, []int64{0, base + 1, base + 2, base + 3}},
		{"a synthetic id taken by a real one", []int64{0, base + 2, 0, 1<<53 - 1, 0}, []int64{0, base + 2, 1<<53 - 1, base + 3, base + 4}},
		{"file ids wrap at 2^20", []int64{5, 5}, []int64{5, base + 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fileID := int64(3)
			if c.name == "file ids wrap at 2^20" {
				fileID = 3 + 1<<20
			}
			var s idSet
			for i, id := range c.ids {
				if got, _ := s.unique(fileID, int64(i), id); got != c.want[i] {
					t.Errorf("node %d: id %d, want %d", i, got, c.want[i])
				}
			}
		})
	}
	// The set let go once the edges come, and made again from the ids
	// given when a node comes after them after all: the same ids as a set
	// kept throughout.
	{
		var kept, dropped idSet
		ids := []int64{0, 9, 0, 1<<52 + 3<<32 + 4, 9, 0}
		var given []int64
		for i, id := range ids {
			if i == 3 {
				dropped.drop()
			}
			dropped.restore(given)
			want, _ := kept.unique(3, int64(i), id)
			got, _ := dropped.unique(3, int64(i), id)
			if got != want {
				t.Errorf("after drop: node %d: id %d, want %d", i, got, want)
			}
			given = append(given, got)
		}
	}
	// 10 000 ids in descending order, every third twice: list pages, then
	// bitmaps.
	var s idSet
	repeats := 0
	for id := int64(30000); id > 0; id -= 3 {
		for k := 0; k < 1+int(id/3%3/2); k++ {
			if s.add(id) {
				repeats++
			}
		}
	}
	if want := 3333; repeats != want {
		t.Errorf("%d repeats, want %d", repeats, want)
	}
}

// TestRepeatedIDsCounted: a repeated id 0 (rawheap_translator's handle roots
// and primitive values, by design) is counted as received without a
// warning; any other repeated id is an inconsistency of the file, counted as
// not_match with one warning. Both get synthetic ids.
func TestRepeatedIDsCounted(t *testing.T) {
	var buf strings.Builder
	m, log := rows.NewMemory(), stat.NewLog(&buf)
	f := New(m, schema.New(), log, Options{})
	dec := func(w *Writer) error {
		w.Meta(Meta{NodeTypes: [][]string{{"hidden", "object"}}, EdgeTypes: [][]string{{"property"}},
			NodeCount: 5, EdgeCount: 0, Root: 0, NodeStride: 7})
		for _, id := range []int64{0, 0, 0, 7, 7} {
			w.Node(Node{Type: 1, ID: id})
		}
		w.String("")
		return nil
	}
	if _, err := f.Read("dups", dec, nil, func(id int64, s Summary) (string, int64, int64) { return SnapshotName(id), 0, 1 }); err != nil {
		t.Fatal(err)
	}
	f.Flush()
	if got := log.Count(stat.JSHeapIDs, stat.Received); got != 2 {
		t.Errorf("js_heap_ids received %d, want 2 (the repeats of id 0)", got)
	}
	if got := log.Count(stat.JSHeapIDs, stat.NotMatch); got != 1 {
		t.Errorf("js_heap_ids not_match %d, want 1 (the repeat of id 7)", got)
	}
	if got := log.Problems(); got != 1 {
		t.Errorf("%d problems, want 1", got)
	}
	if w := buf.String(); strings.Count(w, "repeat the id") != 1 || !strings.Contains(w, "node 4 has id 7, given 4503599627370500") {
		t.Errorf("warnings:\n%s", w)
	}
	var ids []int64
	for _, r := range m.Rows["js_heap_nodes"] {
		ids = append(ids, r[4].Int)
	}
	if want := []int64{0, 1<<52 + 1, 1<<52 + 2, 7, 1<<52 + 4}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
}
