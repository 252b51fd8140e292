package heapsnapshot

import (
	"fmt"
	"strings"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
)

// TestChecks injects each kind of inconsistency into a consistent snapshot:
// every one is counted under its stat event with one warning naming the
// file, and the file is kept with its rows as given. A count in the meta
// that is not a count never drops the snapshot.
func TestChecks(t *testing.T) {
	for _, tt := range checkCases() {
		for _, analyse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/analyse=%v", tt.name, analyse), func(t *testing.T) {
				var out strings.Builder
				log := stat.NewLog(&out)
				m := rows.NewMemory()
				f := heapfile.New(m, schema.New(), log, heapfile.Options{Analyse: analyse})
				s, err := f.Read("x.heapsnapshot", Decoder(strings.NewReader(tt.text)), func(format string, args ...any) {
					t.Errorf("warning outside the checks: "+format, args...)
				}, func(id int64, _ heapfile.Summary) (string, int64, int64) { return heapfile.SnapshotName(id), 1, 2 })
				if err != nil || s.Nodes != 3 || s.Edges != 2 {
					t.Fatalf("%d nodes, %d edges, error %v", s.Nodes, s.Edges, err)
				}
				f.Flush()
				for _, c := range tt.want {
					if got := log.Count(c.event, c.typ); got != c.n {
						t.Errorf("%s/%s counted %d, want %d", c.event, c.typ, got, c.n)
					}
				}
				if got := log.Problems(); got != sum(tt.want) {
					t.Errorf("%d problems counted, want %d; warnings:\n%s", got, sum(tt.want), out.String())
				}
				if n := strings.Count(out.String(), "tracestreamer: warning: x.heapsnapshot: "); n != tt.warns {
					t.Errorf("%d warnings, want %d:\n%s", n, tt.warns, out.String())
				}
				for _, r := range m.Rows["js_heap_info"] {
					if r[1].Text == "node_count" && r[3].Int != tt.info {
						t.Errorf("js_heap_info node_count %d, want %d", r[3].Int, tt.info)
					}
				}
				if n := len(m.Rows["js_heap_nodes"]); n != 3 {
					t.Errorf("%d node rows, want 3", n)
				}
			})
		}
	}
}

// checkCase is a snapshot with an inconsistency, what it counts, the
// js_heap_info node_count written and the number of warnings.
type checkCase struct {
	name  string
	text  string
	want  []statCount
	info  int64
	warns int
}

// checkCases are the inconsistencies TestChecks injects (FuzzDecode starts
// from them too).
func checkCases() []checkCase {
	const (
		nodes = `[3,1,1,10,1,0,0, 3,2,3,20,1,0,0, 3,0,5,30,0,0,0]`
		edges = `[2,1,7, 2,2,0]`
		strs  = `["a","b","c"]`
	)
	big := strings.Replace
	return []checkCase{
		{"consistent", doc{nodeCount: 3, edgeCount: 2, nodes: nodes, edges: edges, strs: strs}.String(), nil, 3, 0},
		{"edges fewer than the counts", doc{nodeCount: 3, edgeCount: 2, strs: strs, edges: edges,
			nodes: `[3,1,1,10,1,0,0, 3,2,3,20,1,0,0, 3,0,5,30,2,0,0]`}.String(),
			[]statCount{{stat.JSHeapEdgeCounts, stat.DataLost, 2}, {stat.JSHeapEdgeCounts, stat.NotMatch, 1}}, 3, 2},
		{"a node claiming more edges than exist", doc{nodeCount: 3, edgeCount: 2, strs: strs, edges: edges,
			nodes: `[3,1,1,10,5,0,0, 3,2,3,20,1,0,0, 3,0,5,30,0,0,0]`}.String(),
			[]statCount{{stat.JSHeapEdgeCounts, stat.DataLost, 4}, {stat.JSHeapEdgeCounts, stat.NotMatch, 2}}, 3, 2},
		{"names past the strings", doc{nodeCount: 3, edgeCount: 2, strs: strs, edges: `[2,9,7, 2,2,0]`,
			nodes: `[3,7,1,10,1,0,0, 3,2,3,20,1,0,0, 3,0,5,30,0,0,0]`}.String(),
			[]statCount{{stat.JSHeapNames, stat.InvalidData, 2}}, 3, 1},
		{"negative size and id", doc{nodeCount: 3, edgeCount: 2, strs: strs, edges: edges,
			nodes: `[3,1,1,-4,1,0,0, 3,2,-3,20,1,0,0, 3,0,5,30,0,0,0]`}.String(),
			[]statCount{{stat.JSHeapValues, stat.InvalidData, 2}}, 3, 2},
		{"types outside the lists", doc{nodeCount: 3, edgeCount: 2, strs: strs, edges: `[9,1,7, 2,2,0]`,
			nodes: `[20,1,1,10,1,0,0, 3,2,3,20,1,0,0, 3,0,5,30,0,0,0]`}.String(),
			[]statCount{{stat.JSHeapTypes, stat.InvalidData, 2}}, 3, 2},
		{"integers past int64 at both ends", doc{nodeCount: 3, edgeCount: 2, strs: strs, edges: edges,
			nodes: `[3,1,1,-9223372036854775809,1,0,0, 3,2,3,9223372036854775808,1,0,0, 3,0,5,30,0,0,0]`}.String(),
			[]statCount{{stat.JSHeapValues, stat.InvalidData, 2}}, 3, 1},
		{"node_count 2^63", big(doc{nodeCount: 3, edgeCount: 2, nodes: nodes, edges: edges, strs: strs}.String(),
			`"node_count":3`, `"node_count":9223372036854775808`, 1), []statCount{{stat.JSHeapCounts, stat.InvalidData, 1}}, 3, 1},
		{"node_count 1.5", big(doc{nodeCount: 3, edgeCount: 2, nodes: nodes, edges: edges, strs: strs}.String(),
			`"node_count":3`, `"node_count":1.5`, 1), []statCount{{stat.JSHeapCounts, stat.InvalidData, 1}}, 3, 1},
		{"node_count -1", big(doc{nodeCount: 3, edgeCount: 2, nodes: nodes, edges: edges, strs: strs}.String(),
			`"node_count":3`, `"node_count":-1`, 1), []statCount{{stat.JSHeapCounts, stat.InvalidData, 1}}, 3, 1},
		{"node_count of 70 000 digits", big(doc{nodeCount: 3, edgeCount: 2, nodes: nodes, edges: edges, strs: strs}.String(),
			`"node_count":3`, `"node_count":`+strings.Repeat("7", 70000), 1), []statCount{{stat.JSHeapCounts, stat.InvalidData, 1}}, 3, 1},
		{"node_count 10^12", big(doc{nodeCount: 3, edgeCount: 2, nodes: nodes, edges: edges, strs: strs}.String(),
			`"node_count":3`, `"node_count":1000000000000`, 1), []statCount{{stat.JSHeapCounts, stat.NotMatch, 1}}, 1e12, 1},
	}
}

// statCount is a count expected in the stat table.
type statCount struct {
	event stat.Event
	typ   stat.Type
	n     int64
}

func sum(cs []statCount) int64 {
	var n int64
	for _, c := range cs {
		n += c.n
	}
	return n
}
