package heapsnapshot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"tracestreamer/heapfile"
	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

const nullID = -999

// refMeta is the V8-style meta of the reference tests (14 ArkTS node type names).
const refMeta = `"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
	`"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","slicedstring","symbol","bigint"],"string","number","number","number","number","number"],` +
	`"edge_fields":["type","name_or_index","to_node"],` +
	`"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],` +
	`"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],` +
	`"trace_node_fields":["id","function_info_index","count","size","children"],` +
	`"sample_fields":["timestamp_us","last_assigned_id"],` +
	`"location_fields":["object_index","script_id","line","column"]}`

// Node and edge arrays of the reference tests (docs/format/heapsnapshot.md#nodes, docs/format/heapsnapshot.md#edges).
const (
	nodesA = `[9,25571,1,0,3575,0,0,1,3,3,432,52,0,0,8,9,9949,40,1,0,0]`
	nodesB = `[9,25571,1,0,1,0,0,1,3,3,432,3,0,0,8,9,9949,40,1,0,0]`
	edges5 = `[5,25572,1,5,25572,1,5,25572,1,5,25572,1,5,25572,1]`
)

type doc struct {
	nodeCount, edgeCount, funcCount          int
	nodes, edges, infos, tree, samples, strs string
}

func (d doc) String() string {
	def := func(s string) string {
		if s == "" {
			return "[]"
		}
		return s
	}
	return fmt.Sprintf(`{"snapshot":{%s,"node_count":%d,"edge_count":%d,"trace_function_count":%d},`+
		"\n"+`"nodes":%s,`+"\n"+`"edges":%s,`+"\n"+`"trace_function_infos":%s,"trace_tree":%s,"samples":%s,"locations":[],"strings":%s}`,
		refMeta, d.nodeCount, d.edgeCount, d.funcCount, def(d.nodes), def(d.edges), def(d.infos),
		def(d.tree), def(d.samples), def(d.strs))
}

func newOutput(m *rows.Memory) *heapfile.Output {
	return heapfile.NewOutput(m, schema.New(), heapfile.Options{})
}

// decode decodes text read one byte at a time and returns the rows and
// warnings, less those of heapfile's checks of the file's consistency (the
// reference's documents these tests use have names past their strings,
// edge counts their edges do not fill, counts that differ from their
// arrays: TestReferenceNodes and TestChecks cover those).
func decode(t *testing.T, text string, fileID int64) (*rows.Memory, heapfile.Summary, []string) {
	m, res, warns := decodeAll(t, text, fileID)
	return m, res, withoutChecks(warns)
}

func decodeAll(t *testing.T, text string, fileID int64) (*rows.Memory, heapfile.Summary, []string) {
	t.Helper()
	m := rows.NewMemory()
	out := newOutput(m)
	var warns []string
	res, err := out.Decode(fileID, Decoder(iotest.OneByteReader(strings.NewReader(text))),
		func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) })
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	out.Flush()
	return m, res, warns
}

// checkWarnings match the warnings of heapfile's consistency checks.
var checkWarnings = regexp.MustCompile(`names are past the|edge counts add up to|claim more edges|^snapshot\.(node|edge)_count is -?\d+, the file|nodes have|edges have|not a count`)

func withoutChecks(warns []string) []string {
	return slices.DeleteFunc(slices.Clone(warns), checkWarnings.MatchString)
}

func TestReferenceNodes(t *testing.T) {
	m, res, warns := decode(t, doc{nodeCount: 32837, edgeCount: 152856, nodes: nodesA}.String(), 0)
	want := [][]int64{
		{0, 0, 9, 25571, 1, 0, 3575, 0, 0},
		{0, 1, 1, 3, 3, 432, 52, 0, 0},
		{0, 2, 8, 9, 9949, 40, 1, 0, 0},
	}
	if got := testutil.IntRows(m, "js_heap_nodes"); !reflect.DeepEqual(got, want) {
		t.Errorf("nodes = %v, want %v", got, want)
	}
	if res.SelfSize != 472 || res.Nodes != 3 || res.Edges != 0 {
		t.Errorf("result = %+v, want self size 472, 3 nodes, 0 edges", res)
	}
	info := m.Rows["js_heap_info"]
	if len(info) != 32 {
		t.Fatalf("%d js_heap_info rows, want 32", len(info))
	}
	check := func(i int, key string, typ, iv int64, sv string) {
		r := info[i]
		if r[1].Text != key || r[2].Int != typ || r[3].Int != iv || r[4].Text != sv {
			t.Errorf("info[%d] = %v, want %s %d %d %q", i, r, key, typ, iv, sv)
		}
	}
	check(0, "node_types", 0, -1, "hidden")
	check(11, "node_types", 0, -1, "slicedstring")
	check(14, "node_types", 1, -1, "string")
	check(15, "node_types", 1, -1, "number")
	check(20, "edge_types", 0, -1, "context")
	check(26, "edge_types", 0, -1, "weak")
	check(27, "edge_types", 1, -1, "string_or_number")
	check(28, "edge_types", 1, -1, "node")
	check(29, "node_count", 0, 32837, "")
	check(30, "edge_count", 0, 152856, "")
	check(31, "trace_function_count", 0, 0, "")
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	// The nodes own 3575+52+1 edges but the array has none, their names
	// index no string, and the counts are not those of the arrays: each is
	// reported, and the rows are kept as given.
	_, _, all := decodeAll(t, doc{nodeCount: 32837, edgeCount: 152856, nodes: nodesA}.String(), 0)
	wantWarns := []string{
		"3 node and edge names are past the 0 strings (up to 25571); kept as given",
		"the nodes' edge counts add up to 3628 edges, the file has 0: 3628 are missing",
		"3 nodes claim more edges than the file has left for them (the first: node 0)",
		"snapshot.node_count is 32837, the file holds 3",
		"snapshot.edge_count is 152856, the file holds 0",
	}
	if !slices.Equal(all, wantWarns) {
		t.Errorf("warnings:\n got %q\nwant %q", all, wantWarns)
	}
}

// TestNamedEdges: element and hidden edges give an index, not a name, so
// their values past the strings are not reported; those of the other
// types (here a property and a weak edge) are. The types are the latest
// meta's: one without edge types checks none.
func TestNamedEdges(t *testing.T) {
	noEdgeTypes := strings.Replace(refMeta, `"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],`, "", 1)
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"names past the strings", doc{nodeCount: 3, edgeCount: 4, nodes: `[0,0,1,10,4,0,0, 0,1,3,20,0,0,0, 0,1,5,30,0,0,0]`,
			edges: `[1,99,7, 4,77,14, 2,50,7, 6,60,14]`, strs: `["a","b"]`}.String(),
			[]string{"2 node and edge names are past the 2 strings (up to 60); kept as given"}},
		{"a second meta without edge types", `{"snapshot":{` + refMeta + `,"node_count":1,"edge_count":1,"trace_function_count":0},` +
			`"snapshot":{` + noEdgeTypes + `,"node_count":1,"edge_count":1,"trace_function_count":0},` +
			`"nodes":[0,0,1,10,1,0,0],"edges":[9,0,0],"strings":["a"]}`,
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, warns := decodeAll(t, tc.text, 0)
			if !slices.Equal(warns, tc.want) {
				t.Errorf("warnings:\n got %q\nwant %q", warns, tc.want)
			}
		})
	}
}

// TestEdgeIDs re-expresses the reference's edge tests with the correct,
// per-snapshot expectations (docs/format/heapsnapshot.md#from_node_id): node 1 owns 1 edge,
// node 3 owns 3, node 9949 owns 1. to_node 1 is not a node offset (stride 7),
// so to_node_id is NULL and a warning is given per edge.
func TestEdgeIDs(t *testing.T) {
	m, res, warns := decode(t, doc{nodeCount: 3, edgeCount: 5, nodes: nodesB, edges: edges5}.String(), 0)
	edges := testutil.IntRows(m, "js_heap_edges")
	if len(edges) != 5 || res.Edges != 5 {
		t.Fatalf("%d edges, want 5", len(edges))
	}
	for i, e := range edges {
		if e[1] != int64(i) || e[2] != 5 || e[3] != 25572 || e[4] != 1 {
			t.Errorf("edge %d = %v", i, e)
		}
	}
	if got := testutil.Ints(m, "js_heap_edges", 5, nullID); !reflect.DeepEqual(got, []int64{1, 3, 3, 3, 9949}) {
		t.Errorf("from_node_id = %v, want [1 3 3 3 9949]", got)
	}
	if got := testutil.Ints(m, "js_heap_edges", 6, nullID); !reflect.DeepEqual(got, []int64{nullID, nullID, nullID, nullID, nullID}) {
		t.Errorf("to_node_id = %v, want NULL ×5", got)
	}
	if len(warns) != 5 || !strings.Contains(warns[0], "edge 0 points to node offset 1") {
		t.Errorf("warnings = %q", warns)
	}
}

func TestEdgeTargetsAndOwners(t *testing.T) {
	// Node 0 (id 1) owns 2 edges, node 1 (id 3) none, node 2 (id 5) owns 1; one
	// edge too many, and one pointing past the node array.
	text := doc{nodes: `[0,1,1,10,2,0,0, 0,2,3,20,0,0,0, 0,3,5,30,1,0,0]`,
		edges: `[2,1,7, 2,2,14, 2,3,0, 2,4,21]`}.String()
	m, _, warns := decode(t, text, 4)
	want := [][]int64{ // file_id, edge_index, type, name, to_node, from, to
		{4, 0, 2, 1, 7, 1, 3},
		{4, 1, 2, 2, 14, 1, 5},
		{4, 2, 2, 3, 0, 5, 1},
		{4, 3, 2, 4, 21, nullID, nullID},
	}
	got := testutil.IntRows(m, "js_heap_edges")
	for i := range got {
		got[i][5] = testutil.Ints(m, "js_heap_edges", 5, nullID)[i]
		got[i][6] = testutil.Ints(m, "js_heap_edges", 6, nullID)[i]
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	if len(warns) != 2 {
		t.Errorf("warnings = %q, want 2", warns)
	}
}

func TestSamplesStringsFunctionInfos(t *testing.T) {
	text := doc{nodes: nodesB, edges: edges5,
		samples: "[0,42570\n, 200631,42571\n, 401040,42572\n, 601899,42573\n, 804764,42574\n, 1006866,42575\n, 1207797,42576]",
		strs:    `["<dummy>","","GC roots","TaggedDict[52]","JSFunction"]`,
		infos:   `[0,181,1601,0,0,0]`}.String()
	m, res, _ := decode(t, text, 0)
	wantSamples := [][]int64{{0, 0, 42570}, {0, 200631, 42571}, {0, 401040, 42572}, {0, 601899, 42573},
		{0, 804764, 42574}, {0, 1006866, 42575}, {0, 1207797, 42576}}
	if got := testutil.IntRows(m, "js_heap_sample"); !reflect.DeepEqual(got, wantSamples) {
		t.Errorf("samples = %v", got)
	}
	var strs []string
	for i, r := range m.Rows["js_heap_string"] {
		if r[1].Int != int64(i) {
			t.Errorf("string %d has file_index %d", i, r[1].Int)
		}
		strs = append(strs, r[2].Text)
	}
	if want := []string{"<dummy>", "", "GC roots", "TaggedDict[52]", "JSFunction"}; !reflect.DeepEqual(strs, want) || res.Strings != 5 {
		t.Errorf("strings = %q", strs)
	}
	if got := testutil.IntRows(m, "js_heap_trace_function_info"); !reflect.DeepEqual(got, [][]int64{{0, 0, 0, 181, 1601, 0, 0, 0}}) {
		t.Errorf("function infos = %v", got)
	}
}

func TestTraceTree(t *testing.T) {
	tree := `[1,0,53,996,[2,1,571,26580,[],3,2,5,248,[4,3,27,2684,[5,4,1352,68984,[6,5,20,920,[]],` +
		`7,6,5,144,[],8,7,18,636,[9,8,5,120,[10,9,1,28,[]]]]],11,10,10,348,[12,11,11,576,` +
		`[13,12,21,632,[14,14,0,0,[15,13,2,28,[]],16,15,5,188,[17,16,7,196,[]]]]],` +
		`18,17,10,560,[19,9,2,28,[],20,18,172,7896,[21,19,4,3196,[]]]]]`
	m, _, warns := decode(t, doc{nodes: nodesB, tree: tree}.String(), 0)
	want := [][]int64{ // id, function_info_index, count, size, parent (docs/format/heapsnapshot.md#trace_tree)
		{1, 0, 53, 996, -1}, {2, 1, 571, 26580, 1}, {3, 2, 5, 248, 1}, {4, 3, 27, 2684, 3},
		{5, 4, 1352, 68984, 4}, {6, 5, 20, 920, 5}, {7, 6, 5, 144, 4}, {8, 7, 18, 636, 4},
		{9, 8, 5, 120, 8}, {10, 9, 1, 28, 9}, {11, 10, 10, 348, 1}, {12, 11, 11, 576, 11},
		{13, 12, 21, 632, 12}, {14, 14, 0, 0, 13}, {15, 13, 2, 28, 14}, {16, 15, 5, 188, 13},
		{17, 16, 7, 196, 16}, {18, 17, 10, 560, 1}, {19, 9, 2, 28, 18}, {20, 18, 172, 7896, 18},
		{21, 19, 4, 3196, 20},
	}
	var got [][]int64
	for _, r := range testutil.IntRows(m, "js_heap_trace_node") {
		got = append(got, r[1:])
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("trace nodes:\n got %v\nwant %v", got, want)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
}

func TestDeepTraceTree(t *testing.T) {
	const depth = 100000 // far beyond any recursion limit
	var b strings.Builder
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "%d,0,1,8,[", i)
	}
	b.WriteString(strings.Repeat("]", depth))
	m, _, _ := decode(t, doc{tree: "[" + b.String() + "]"}.String(), 0)
	rows := m.Rows["js_heap_trace_node"]
	if len(rows) != depth || rows[depth-1][1].Int != depth || rows[depth-1][5].Int != depth-1 {
		t.Errorf("%d rows, last %v", len(rows), rows[len(rows)-1])
	}
}

// TestArkTSLayouts covers 8-field ArkTS nodes (native_size; to_node = index × 8)
// and a producer that orders node and edge fields differently.
func TestArkTSLayouts(t *testing.T) {
	ark := strings.Replace(doc{
		nodes: `[3,1,11,16,1,0,0,500, 3,2,13,24,1,0,0,0]`,
		edges: `[2,1,8, 2,2,0]`}.String(),
		`"detachedness"]`, `"detachedness","native_size"]`, 1)
	m, res, warns := decode(t, ark, 0)
	if got := testutil.Ints(m, "js_heap_edges", 6, nullID); !reflect.DeepEqual(got, []int64{13, 11}) || len(warns) != 0 {
		t.Errorf("8-field to_node_id = %v (warnings %q)", got, warns)
	}
	if res.SelfSize != 40 {
		t.Errorf("self size %d, want 40 (native_size not counted)", res.SelfSize)
	}
	// A row for each node whose native size is not 0, wherever the field is.
	if got := testutil.IntRows(m, "js_heap_native_size"); !reflect.DeepEqual(got, [][]int64{{0, 0, 500}}) {
		t.Errorf("native sizes = %v, want node 0's 500", got)
	}
	first := strings.Replace(doc{nodes: `[0,3,1,11,16,1, 7,3,2,13,24,1]`, edges: `[2,1,6, 2,2,0]`}.String(),
		`"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"]`,
		`"node_fields":["native_size","type","name","id","self_size","edge_count"]`, 1)
	m, _, warns = decode(t, first, 0)
	if got := testutil.IntRows(m, "js_heap_native_size"); !reflect.DeepEqual(got, [][]int64{{0, 1, 7}}) || len(warns) != 0 {
		t.Errorf("native sizes, field first = %v, want node 1's 7 (warnings %q)", got, warns)
	}
	swapped := strings.NewReplacer(
		`"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"]`,
		`"node_fields":["id","edge_count","type","name","self_size"]`,
		`"edge_fields":["type","name_or_index","to_node"]`,
		`"edge_fields":["to_node","type","name_or_index"]`,
	).Replace(doc{nodes: `[11,1,3,1,16, 13,1,3,2,24]`, edges: `[5,2,1, 0,2,2]`}.String())
	m, _, warns = decode(t, swapped, 0)
	wantNodes := [][]int64{{0, 0, 3, 1, 11, 16, 1, 0, 0}, {0, 1, 3, 2, 13, 24, 1, 0, 0}}
	if got := testutil.IntRows(m, "js_heap_nodes"); !reflect.DeepEqual(got, wantNodes) {
		t.Errorf("reordered nodes = %v, want %v", got, wantNodes)
	}
	wantEdges := [][]int64{{0, 0, 2, 1, 5, 11, 13}, {0, 1, 2, 2, 0, 13, 11}}
	if got := testutil.IntRows(m, "js_heap_edges"); !reflect.DeepEqual(got, wantEdges) || len(warns) != 0 {
		t.Errorf("reordered edges = %v, want %v (warnings %q)", got, wantEdges, warns)
	}
	if got := testutil.IntRows(m, "js_heap_native_size"); len(got) != 0 {
		t.Errorf("native sizes without the field = %v", got)
	}
}

// TestKeyOrder: arrays before the meta and edges before nodes give the same rows.
func TestKeyOrder(t *testing.T) {
	normal := doc{nodes: nodesB, edges: edges5}.String()
	reordered := `{"edges":` + edges5 + `,"nodes":` + nodesB + `,"snapshot":{` + refMeta +
		`,"node_count":0,"edge_count":0,"trace_function_count":0},"strings":[]}`
	m1, _, _ := decode(t, normal, 0)
	m2, _, _ := decode(t, reordered, 0)
	for _, tab := range []string{"js_heap_nodes", "js_heap_edges", "js_heap_info"} {
		if !reflect.DeepEqual(m1.Rows[tab], m2.Rows[tab]) {
			t.Errorf("%s differs:\n%v\n%v", tab, m1.Rows[tab], m2.Rows[tab])
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	good := doc{nodes: nodesB, edges: edges5}.String()
	tests := []struct{ name, text, want string }{
		{"truncated in a number", good[:strings.Index(good, "9949")+2], "nodes: offset"},
		{"garbage in the edges", strings.Replace(good, "25572,1,5", "25572,1,x", 1), `edges: offset`},
		{"no meta", `{"nodes":[1,2,3]}`, "no snapshot.meta"},
		{"empty node_fields", strings.Replace(good, `"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"]`, `"node_fields":[]`, 1), "node_fields is empty"},
		{"string not a string", strings.Replace(good, `"strings":[]`, `"strings":[1]`, 1), `strings: offset`},
		{"more node fields than a read takes", strings.Replace(good, `"node_fields":["type",`, `"node_fields":[`+strings.Repeat(`"x",`, 3*4096)+`"type",`, 1),
			"nodes: offset 49992: tuples of 12295 fields: more than the 12288 values read at a time"},
		{"more sample fields than a read takes", strings.Replace(good, `"sample_fields":[`, `"sample_fields":[`+strings.Repeat(`"x",`, 3*4096), 1),
			"samples: offset 50160: tuples of 12290 fields: more than the 12288 values read at a time"},
		{"not JSON", "<html>", "expected '{'"},
		{"empty", "", "unexpected end of JSON"},
	}
	for _, tt := range tests {
		_, err := newOutput(rows.NewMemory()).Decode(0, Decoder(strings.NewReader(tt.text)), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// TestNodeSnapshot decodes a real V8 snapshot captured from node and checks the
// row counts against the header and every edge's source and target ids against
// an independent computation with encoding/json.
func TestNodeSnapshot(t *testing.T) {
	for _, fixture := range []string{"node/snapshot.heapsnapshot.gz", "node/timeline.heaptimeline.gz"} {
		t.Run(fixture, func(t *testing.T) {
			text := testutil.Fixture(t, fixture)
			var snap struct {
				Snapshot struct {
					Meta struct {
						NodeFields []string `json:"node_fields"`
					} `json:"meta"`
					NodeCount int `json:"node_count"`
					EdgeCount int `json:"edge_count"`
				} `json:"snapshot"`
				Nodes     []int64         `json:"nodes"`
				Edges     []int64         `json:"edges"`
				Strings   []string        `json:"strings"`
				Samples   []int64         `json:"samples"`
				Infos     []int64         `json:"trace_function_infos"`
				TraceTree json.RawMessage `json:"trace_tree"`
			}
			if err := json.Unmarshal(text, &snap); err != nil {
				t.Fatal(err)
			}
			m := rows.NewMemory()
			out := newOutput(m)
			res, err := out.Decode(7, Decoder(strings.NewReader(string(text))), func(f string, a ...any) { t.Errorf(f, a...) })
			if err != nil {
				t.Fatal(err)
			}
			out.Flush()
			s := snap.Snapshot
			if res.Nodes != int64(s.NodeCount) || int64(len(m.Rows["js_heap_nodes"])) != res.Nodes {
				t.Errorf("%d node rows, header says %d", len(m.Rows["js_heap_nodes"]), s.NodeCount)
			}
			if res.Edges != int64(s.EdgeCount) || int64(len(m.Rows["js_heap_edges"])) != res.Edges {
				t.Errorf("%d edge rows, header says %d", len(m.Rows["js_heap_edges"]), s.EdgeCount)
			}
			if len(m.Rows["js_heap_string"]) != len(snap.Strings) {
				t.Errorf("%d string rows, want %d", len(m.Rows["js_heap_string"]), len(snap.Strings))
			}
			for i, r := range m.Rows["js_heap_string"] {
				if r[2].Text != snap.Strings[i] {
					t.Fatalf("string %d = %q, want %q", i, r[2].Text, snap.Strings[i])
				}
			}
			// (V8 writes trace_function_count before it adds the last functions, so
			// the header count may be lower than the array.)
			if len(m.Rows["js_heap_sample"])*2 != len(snap.Samples) ||
				len(m.Rows["js_heap_trace_function_info"])*6 != len(snap.Infos) {
				t.Errorf("samples %d, function infos %d", len(m.Rows["js_heap_sample"]),
					len(m.Rows["js_heap_trace_function_info"]))
			}
			// Independent derivation: expand edge owners from the edge counts.
			stride := len(s.Meta.NodeFields)
			var owners []int64
			var selfSize int64
			for i := 0; i < len(snap.Nodes); i += stride {
				for k := int64(0); k < snap.Nodes[i+4]; k++ {
					owners = append(owners, snap.Nodes[i+2])
				}
				selfSize += snap.Nodes[i+3]
			}
			if res.SelfSize != selfSize {
				t.Errorf("self size %d, want %d", res.SelfSize, selfSize)
			}
			from := testutil.Ints(m, "js_heap_edges", 5, nullID)
			to := testutil.Ints(m, "js_heap_edges", 6, nullID)
			for e := 0; e < len(snap.Edges)/3; e++ {
				if want := snap.Nodes[snap.Edges[3*e+2]+2]; to[e] != want || from[e] != owners[e] {
					t.Fatalf("edge %d: from %d to %d, want from %d to %d", e, from[e], to[e], owners[e], want)
				}
			}
			if fixture == "node/timeline.heaptimeline.gz" {
				var tree []any
				json.Unmarshal(snap.TraceTree, &tree)
				if n := countTraceNodes(tree); n == 0 || n != len(m.Rows["js_heap_trace_node"]) {
					t.Errorf("%d trace node rows, want %d", len(m.Rows["js_heap_trace_node"]), n)
				}
			}
		})
	}
}

func countTraceNodes(list []any) int {
	n := 0
	for i := 0; i+4 < len(list); i += 5 {
		children, _ := list[i+4].([]any)
		n += 1 + countTraceNodes(children)
	}
	return n
}

// TestAnalysisOfImpossibleGraph: edge counts that add up past 2^32 (the
// analysis addresses edges with uint32) once panicked in the dominators. The
// snapshot's tables are written, the analysis is skipped with a warning.
func TestAnalysisOfImpossibleGraph(t *testing.T) {
	m := rows.NewMemory()
	out := heapfile.NewOutput(m, schema.New(), heapfile.Options{Analyse: true})
	in := doc{nodeCount: 3, edgeCount: 5, strs: `["a","b"]`,
		nodes: `[9,0,1,0,4294967295,0,0,1,1,3,432,4294967295,0,0,8,1,5,40,1,0,0]`, edges: edges5}.String()
	var warns []string
	res, err := out.Decode(0, Decoder(strings.NewReader(in)), func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) })
	out.Flush()
	if err != nil || res.Nodes != 3 || len(m.Rows["js_heap_nodes"]) != 3 {
		t.Fatalf("nodes %d, error %v", res.Nodes, err)
	}
	if len(m.Rows["js_heap_node_stats"]) != 0 || len(m.Rows["js_heap_class"]) != 0 {
		t.Errorf("analysis rows written: %d stats, %d classes", len(m.Rows["js_heap_node_stats"]), len(m.Rows["js_heap_class"]))
	}
	if !slices.Contains(warns, "heap analysis skipped: the nodes' edge counts add up to more than 4294967294") {
		t.Errorf("warnings %q", warns)
	}
}

// TestNonIntegerValues: a value in the nodes or edges arrays that is valid JSON
// but not an integer is read as 0 and reported; the snapshot is kept (one such
// value once dropped the whole snapshot).
func TestNonIntegerValues(t *testing.T) {
	m := rows.NewMemory()
	in := doc{nodeCount: 3, edgeCount: 5, strs: `["a","b"]`,
		nodes: `[9,25571,1,0,3575,0,0,1,3,3,432.5,52,0,0,8,9,9949,40,1,null,0]`,
		edges: `[5,25572,1,5,"x",1,5,25572,1,5,25572,1,5,25572,1]`}.String()
	var warns []string
	out := newOutput(m)
	res, err := out.Decode(0, Decoder(strings.NewReader(in)), func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) })
	out.Flush()
	if err != nil || res.Nodes != 3 || res.Edges != 5 {
		t.Fatalf("nodes %d, edges %d, error %v", res.Nodes, res.Edges, err)
	}
	var nonInt []string // the reference edges also point between nodes: other warnings
	for _, w := range warns {
		if strings.Contains(w, "not 64-bit integers") {
			nonInt = append(nonInt, w)
		}
	}
	if !slices.Equal(nonInt, []string{"2 values that are not 64-bit integers were read as 0 (the first at offset 868)",
		"1 values that are not 64-bit integers were read as 0 (the first at offset 925)"}) {
		t.Errorf("warnings %q", warns)
	}
	if !strings.HasPrefix(in[868:], "432.5,") || !strings.HasPrefix(in[925:], `"x",`) {
		t.Errorf("offsets 868 and 925 hold %q and %q", in[868:874], in[925:929])
	}
	if got := testutil.Ints(m, "js_heap_nodes", 5, -1); !slices.Equal(got, []int64{0, 0, 40}) { // self_size: 432.5 → 0
		t.Errorf("self sizes %v", got)
	}
}

// TestDecodePanicIsAnError: a panic inside the decoder (here forced by a
// nil Writer, a bug of the caller) is returned as an error naming the offset,
// so that the caller drops the snapshot and goes on.
func TestDecodePanicIsAnError(t *testing.T) {
	in := doc{nodeCount: 3, edgeCount: 5, nodes: nodesA, edges: edges5, strs: `["a"]`}.String()
	err := Decoder(strings.NewReader(in))(nil)
	if err == nil || !strings.HasPrefix(err.Error(), "internal error at offset ") || !strings.Contains(err.Error(), "(please report it): runtime error") {
		t.Errorf("error %v", err)
	}
}

// TestRowsFromGraph: with the analysis on, the js_heap_nodes and js_heap_edges
// rows are written from the object graph; they must be those the decoder
// writes without it, value for value, with the same warnings, whatever the
// input (values the graph's narrow types do not hold, edges to no node or
// from none, edges before nodes, a second nodes array).
func TestRowsFromGraph(t *testing.T) {
	big := `[300,5000000000,1,-1,1,1099511627776,7, 1,2,3,4,-2,0,0, 0,0,5,0,2,0,0]`
	tests := []struct{ name, text string }{
		{"reference", doc{nodeCount: 3, edgeCount: 5, nodes: nodesA, edges: edges5, strs: `["a","b"]`}.String()},
		{"owners and a sourceless edge", doc{nodes: `[0,1,1,10,2,0,0, 0,2,3,20,0,0,0, 0,3,5,30,1,0,0]`,
			edges: `[2,1,7, 2,2,14, 2,3,0, 2,4,21]`}.String()},
		{"edge counts past 2^32", doc{nodeCount: 3, edgeCount: 5, strs: `["a","b"]`,
			nodes: `[9,0,1,0,4294967295,0,0,1,1,3,432,4294967295,0,0,8,1,5,40,1,0,0]`, edges: edges5}.String()},
		{"wide values", doc{nodes: big, edges: `[7,0,7, 300,1,14, 1,9000000000,0, 2,-5,-7]`}.String()},
		{"non-integers", doc{nodeCount: 3, edgeCount: 5, strs: `["a","b"]`,
			nodes: `[9,25571,1,0,3575,0,0,1,3,3,432.5,52,0,0,8,9,9949,40,1,null,0]`,
			edges: `[5,25572,1,5,"x",1,5,25572,1,5,25572,1,5,25572,1]`}.String()},
		{"edges first", `{"edges":[1,0,7,1,0,0],"snapshot":{` + refMeta + `},"nodes":[3,0,1,8,1,5,0, 3,0,3,8,1,0,0],"strings":["x"]}`},
		{"nodes before meta", `{"nodes":[3,0,1,8,1,5,0, 3,0,3,8,1,0,0],"edges":[1,0,7,1,0,0],"snapshot":{` + refMeta + `},"strings":["x"]}`},
		{"second nodes array", `{"snapshot":{` + refMeta + `},"nodes":[3,0,1,8,1,5,0],"edges":[1,0,0],"nodes":[3,0,9,8,0,0,0],"edges":[2,0,0],"strings":["x"]}`},
		{"node snapshot", string(testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]*rows.Memory
			var warns [2][]string
			for i, analyse := range []bool{false, true} {
				got[i] = rows.NewMemory()
				o := heapfile.NewOutput(got[i], schema.New(), heapfile.Options{Analyse: analyse})
				_, err := o.Decode(2, Decoder(strings.NewReader(tt.text)), func(f string, a ...any) {
					warns[i] = append(warns[i], fmt.Sprintf(f, a...))
				})
				if err != nil {
					t.Fatalf("analyse=%v: %v", analyse, err)
				}
				o.Flush()
			}
			for _, table := range []string{"js_heap_nodes", "js_heap_edges"} {
				a, b := got[0].Rows[table], got[1].Rows[table]
				if len(a) == 0 {
					t.Errorf("%s: no rows", table)
				}
				if !reflect.DeepEqual(a, b) {
					for i := range min(len(a), len(b)) {
						if !reflect.DeepEqual(a[i], b[i]) {
							t.Errorf("%s row %d: decoder %v, from the graph %v", table, i, a[i], b[i])
							break
						}
					}
					t.Errorf("%s: %d rows from the decoder, %d from the graph", table, len(a), len(b))
				}
			}
			// The analysis adds its own warnings after the decoder's. (The
			// graph cuts edge counts past 2^32-2: the edges they lack differ.)
			warns[0], warns[1] = withoutChecks(warns[0]), withoutChecks(warns[1])
			if w := warns[1]; len(w) < len(warns[0]) || !slices.Equal(w[:len(warns[0])], warns[0]) {
				t.Errorf("warnings without the analysis %q, with %q", warns[0], warns[1])
			}
		})
	}
}

// TestScratchDir: the analysis writes the same rows whether its arrays wait
// in a shelf file in Options.ScratchDir or stay in memory, leaves no file
// there, and works on in memory, with a warning, when the folder is unusable.
func TestScratchDir(t *testing.T) {
	text := string(testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))
	dir := t.TempDir()
	run := func(scratchDir string) (*rows.Memory, []string) {
		m := rows.NewMemory()
		o := heapfile.NewOutput(m, schema.New(), heapfile.Options{Analyse: true, ScratchDir: scratchDir})
		var warns []string
		if _, err := o.Decode(1, Decoder(strings.NewReader(text)), func(f string, a ...any) {
			warns = append(warns, fmt.Sprintf(f, a...))
		}); err != nil {
			t.Fatal(err)
		}
		o.Flush()
		return m, warns
	}
	mem, _ := run("")
	stats, classes := mem.Rows["js_heap_node_stats"], mem.Rows["js_heap_class"]
	if len(stats) < 10000 || len(classes) < 100 {
		t.Fatalf("%d stats rows, %d classes", len(stats), len(classes))
	}
	shelved, warns := run(dir)
	if len(warns) != 0 {
		t.Errorf("warnings with a shelf: %q", warns)
	}
	if !reflect.DeepEqual(shelved.Rows["js_heap_node_stats"], stats) || !reflect.DeepEqual(shelved.Rows["js_heap_class"], classes) {
		t.Error("the rows written with a shelf differ from those written without")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in the scratch folder: %v", left)
	}
	missing := filepath.Join(dir, "missing")
	fallback, warns := run(missing)
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "heap analysis holds all its arrays in memory: open "+missing) {
		t.Errorf("warnings with a missing folder: %q", warns)
	}
	if !reflect.DeepEqual(fallback.Rows["js_heap_node_stats"], stats) {
		t.Error("the rows written without a usable folder differ")
	}
}

// TestNoNodes: a snapshot without nodes is kept, analysed as empty: its
// class summary has no rows (the summary once indexed the root of an
// empty graph, and the snapshot was dropped as an internal error).
func TestNoNodes(t *testing.T) {
	for _, text := range []string{`{"snapshot":{"meta":{}}}`, doc{}.String()} {
		m := rows.NewMemory()
		out := heapfile.NewOutput(m, schema.New(), heapfile.Options{Analyse: true, ScratchDir: t.TempDir()})
		res, err := out.Decode(0, Decoder(strings.NewReader(text)), func(string, ...any) {})
		out.Flush()
		if err != nil || res.Nodes != 0 || res.Edges != 0 || len(m.Rows["js_heap_node_stats"]) != 0 || len(m.Rows["js_heap_class"]) != 0 {
			t.Errorf("%.30s: %d nodes, %d edges, %d node stats, %d classes, error %v; want none", text, res.Nodes, res.Edges,
				len(m.Rows["js_heap_node_stats"]), len(m.Rows["js_heap_class"]), err)
		}
	}
}

// TestSecondArrays: of each array, the first is read and any later one
// skipped with a warning (the rows of the first only), so that a document
// repeating an array thousands of times costs its bytes, not a read each.
func TestSecondArrays(t *testing.T) {
	base := `{"snapshot":{` + refMeta + `,"node_count":1,"edge_count":0,"trace_function_count":1},` +
		`"nodes":[9,0,1,0,0,0,0],"edges":[],"trace_function_infos":[0,0,0,0,0,0],"trace_tree":[],` +
		`"samples":[10,1],"locations":[0,1,2,3],"strings":["a"]`
	for _, tc := range []struct {
		key, again, table string
		rows              int
	}{
		{"nodes", `[9,0,3,0,0,0,0]`, "js_heap_nodes", 1},
		{"strings", `["b","c"]`, "js_heap_string", 1},
		{"trace_function_infos", `[1,0,0,0,0,0]`, "js_heap_trace_function_info", 1},
		{"samples", `[20,2,30,3]`, "js_heap_sample", 1},
		{"locations", `[0,4,5,6]`, "js_heap_location", 1},
	} {
		t.Run(tc.key, func(t *testing.T) {
			text := base + strings.Repeat(`,"`+tc.key+`":`+tc.again, 3) + "}"
			m, _, warns := decodeAll(t, text, 0)
			if got := len(m.Rows[tc.table]); got != tc.rows {
				t.Errorf("%d %s rows, want %d", got, tc.table, tc.rows)
			}
			want := `a second "` + tc.key + `" array ignored`
			if strings.Count(strings.Join(warns, "\n"), want) != 3 {
				t.Errorf("warnings %q, want %q three times", warns, want)
			}
		})
	}
}

// TestBuffers: decoders made from one Buffers, one after another or side by
// side, reuse the buffers of those done and write the rows and warnings of
// decoders of their own, whatever the document before (a big one, a small
// one, one that failed).
func TestBuffers(t *testing.T) {
	docs := []string{
		string(testutil.Fixture(t, "node/snapshot.heapsnapshot.gz")),
		doc{nodeCount: 3, edgeCount: 5, nodes: nodesA, edges: edges5, strs: `["a","b"]`}.String(),
		`{"snapshot":{` + refMeta + `},"nodes":[1,2,`, // ends early
		doc{nodes: `[9,0,1,0,0,0,0]`, strs: `["x"]`}.String(),
	}
	decode := func(dec heapfile.Decoder) (map[string][][]rows.Value, []string, error) {
		m := rows.NewMemory()
		out := heapfile.NewOutput(m, schema.New(), heapfile.Options{Analyse: true})
		var warns []string
		_, err := out.Decode(0, dec, func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) })
		out.Flush()
		return m.Rows, warns, err
	}
	type result struct {
		rows  map[string][][]rows.Value
		warns []string
		err   error
	}
	want := make([]result, len(docs))
	for i, text := range docs {
		want[i].rows, want[i].warns, want[i].err = decode(Decoder(strings.NewReader(text)))
	}
	check := func(i int, got result) {
		if !reflect.DeepEqual(got.rows, want[i].rows) || !slices.Equal(got.warns, want[i].warns) || fmt.Sprint(got.err) != fmt.Sprint(want[i].err) {
			t.Errorf("document %d: rows, warnings or error differ from a decoder of its own (%v, %v)", i, got.err, want[i].err)
		}
	}
	var b Buffers
	for range 2 { // the second round reuses what the first left
		for i, text := range docs {
			var got result
			got.rows, got.warns, got.err = decode(b.Decoder(strings.NewReader(text)))
			check(i, got)
		}
	}
	var wg sync.WaitGroup
	got := make([]result, len(docs))
	for i, text := range docs {
		wg.Go(func() { got[i].rows, got[i].warns, got[i].err = decode(b.Decoder(strings.NewReader(text))) })
	}
	wg.Wait()
	for i := range docs {
		check(i, got[i])
	}
	if want[0].err != nil || want[2].err == nil || len(want[0].rows["js_heap_nodes"]) != 47953 {
		t.Errorf("the documents: errors %v, %v; %d nodes", want[0].err, want[2].err, len(want[0].rows["js_heap_nodes"]))
	}
}
