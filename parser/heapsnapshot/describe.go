package heapsnapshot

import (
	"io"

	"tracestreamer/parser/jsonscan"
)

// Describe says what a heap snapshot or timeline holds, for tracestreamer
// info, without converting it: the counts its header declares and the sizes
// of its arrays (a timeline has samples), skipping their values.
func Describe(r io.Reader, add func(what string, count int64, format string, args ...any)) error {
	js := jsonscan.NewReader(r, 1<<20)
	var nodeCount, edgeCount, funcCount int64 = -1, -1, -1
	lengths := map[string]int64{}
	buf := make([]int64, 1<<14)
	err := js.Object(func(key []byte) error {
		k := string(key)
		switch k {
		case "snapshot":
			v, err := js.Value(1 << 20)
			if err != nil {
				return err
			}
			obj, _ := v.(map[string]any)
			for name, dst := range map[string]*int64{"node_count": &nodeCount, "edge_count": &edgeCount,
				"trace_function_count": &funcCount} {
				if n, ok := obj[name].(jsonscan.Number); ok {
					*dst, _ = n.Int()
				}
			}
			return nil
		case "nodes", "edges", "samples", "locations", "trace_function_infos":
			n, err := intsLength(js, buf)
			lengths[k] = n
			return err
		case "strings":
			n, err := arrayLength(js)
			lengths[k] = n
			return err
		}
		return js.SkipValue()
	})
	if err != nil {
		return err
	}
	what := "heap snapshot"
	if lengths["samples"] > 0 || funcCount > 0 {
		what = "heap timeline (allocation tracking)"
	}
	add(what, 1, "header: %d nodes, %d edges, %d allocation-stack functions", nodeCount, edgeCount, funcCount)
	add("strings", lengths["strings"], "")
	if n := lengths["samples"]; n > 0 {
		add("timeline samples", n/2, "")
	}
	if n := lengths["locations"]; n > 0 {
		add("locations", n/4, "")
	}
	return nil
}

// arrayLength skips an array, counting its elements.
func arrayLength(js *jsonscan.Decoder) (int64, error) {
	var n int64
	err := js.Array(func(int) error {
		n++
		return js.SkipValue()
	})
	return n, err
}

// intsLength skips an array of numbers in batches, counting its elements.
func intsLength(js *jsonscan.Decoder, buf []int64) (int64, error) {
	if err := js.Expect('['); err != nil {
		return 0, err
	}
	var total int64
	var bad jsonscan.NonIntegers
	for first := true; ; {
		n, done, err := js.ReadIntsLenient(buf, &first, &bad)
		total += int64(n)
		if err != nil || done {
			return total, err
		}
	}
}
