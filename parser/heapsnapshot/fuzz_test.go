package heapsnapshot

import (
	"tracestreamer/internal/testutil"

	"bytes"
	"testing"

	"tracestreamer/rows"
)

// FuzzDecode decodes arbitrary snapshot text: never a panic, and a successful
// decode writes exactly the rows its result counts.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(doc{nodes: nodesB, edges: edges5, strs: `["a","b\u00e9"]`}.String()))
	f.Add([]byte(doc{nodes: nodesA, tree: `[1,0,1,2,[2,1,3,4,[]]]`, samples: `[0,1,5,2]`, infos: `[0,1,2,3,4,5]`}.String()))
	f.Add([]byte(`{"edges":[1,2,0],"nodes":[0,0,1,0,1,0,0],"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"]}}}`))
	for _, c := range checkCases() {
		f.Add([]byte(c.text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		testutil.CountExec("FuzzDecode")
		m := rows.NewMemory()
		out := newOutput(m)
		res, err := out.Decode(0, Decoder(bytes.NewReader(text)), nil)
		if err != nil {
			return
		}
		out.Flush()
		if int64(len(m.Rows["js_heap_nodes"])) != res.Nodes || int64(len(m.Rows["js_heap_edges"])) != res.Edges ||
			int64(len(m.Rows["js_heap_string"])) != res.Strings {
			t.Fatalf("result %+v but %d/%d/%d rows", res, len(m.Rows["js_heap_nodes"]), len(m.Rows["js_heap_edges"]),
				len(m.Rows["js_heap_string"]))
		}
	})
}
