package heapsnapshot

import (
	"tracestreamer/internal/testutil"

	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/rows"
	"tracestreamer/schema"
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

// FuzzDecodeThreads decodes arbitrary snapshot text with small reads (24
// values, through a 256-byte buffer, so that a small document spans many
// blocks) on 1 thread and on 8, where workers read the numbers from the
// text the reading goroutine takes (parseWorkers), with the heap analysis,
// whose first steps run beside the row writer: the rows (the analysis's
// too), the warnings (and the offsets they name) and the error are the
// same. The third seed has its comma missing right after the first read of
// edges.
func FuzzDecodeThreads(f *testing.F) {
	f.Add([]byte(doc{nodes: nodesB, edges: edges5, strs: `["a","b\u00e9"]`}.String()))
	f.Add([]byte(doc{nodes: nodesA, tree: `[1,0,1,2,[2,1,3,4,[]]]`, samples: `[0,1,5,2]`, infos: `[0,1,2,3,4,5]`}.String()))
	f.Add([]byte(bigDoc(8, 7, -1, true)))
	f.Add([]byte(bigDoc(8, -1, -1)))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	f.Fuzz(func(t *testing.T, text []byte) {
		testutil.CountExec("FuzzDecodeThreads")
		var got [2]*rows.Memory
		var warns [2][]string
		var errs [2]string
		for i, procs := range []int{1, 8} {
			runtime.GOMAXPROCS(procs)
			got[i] = rows.NewMemory()
			out := heapfile.NewOutput(got[i], schema.New(), heapfile.Options{Analyse: true})
			_, err := out.Decode(0, (*Buffers)(nil).decoderOf(bytes.NewReader(text), 256, 24, 40), func(f string, a ...any) {
				warns[i] = append(warns[i], fmt.Sprintf(f, a...))
			})
			if err != nil {
				errs[i] = err.Error()
			}
			out.Flush()
		}
		if errs[0] != errs[1] {
			t.Fatalf("errors differ: %q on 1 thread, %q on 8", errs[0], errs[1])
		}
		if !slices.Equal(warns[0], warns[1]) {
			t.Fatalf("warnings differ:\n1 thread:  %q\n8 threads: %q", warns[0], warns[1])
		}
		if errs[0] == "" && !reflect.DeepEqual(got[0].Rows, got[1].Rows) {
			t.Fatal("rows differ")
		}
	})
}
