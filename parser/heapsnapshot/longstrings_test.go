package heapsnapshot

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
)

// TestLongStringsCut: strings past maxString are cut to it, counted under
// js_heap_strings with one warning naming the first one's offset, and read
// in bounded memory (whole, a 400 MB string of a 1.3 MB .gz took 2.3 GB);
// the others and the graph are kept as they are.
func TestLongStringsCut(t *testing.T) {
	const first, second = maxString + 5, 300 << 20
	text := doc{nodeCount: 3, edgeCount: 2, nodes: `[3,1,1,10,1,0,0, 3,2,3,20,1,0,0, 3,0,5,30,0,0,0]`,
		edges: `[2,1,7, 2,2,0]`, strs: `["a","@","c","@"]`}.String()
	parts := strings.Split(text, "@")
	for _, analyse := range []bool{false, true} {
		t.Run(fmt.Sprintf("analyse=%v", analyse), func(t *testing.T) {
			r := io.MultiReader(strings.NewReader(parts[0]), io.LimitReader(testutil.Repeat('x'), first),
				strings.NewReader(parts[1]), io.LimitReader(testutil.Repeat('y'), second), strings.NewReader(parts[2]))
			var out strings.Builder
			log := stat.NewLog(&out)
			m := rows.NewMemory()
			f := heapfile.New(m, schema.New(), log, heapfile.Options{Analyse: analyse})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			s, err := f.Read("x.heapsnapshot", Decoder(r), func(format string, args ...any) {
				t.Errorf("warning outside the checks: "+format, args...)
			}, func(id int64, _ heapfile.Summary) (string, int64, int64) { return heapfile.SnapshotName(id), 1, 2 })
			runtime.ReadMemStats(&after)
			if err != nil || s.Nodes != 3 || s.Edges != 2 || s.Strings != 4 {
				t.Fatalf("%d nodes, %d edges, %d strings, error %v", s.Nodes, s.Edges, s.Strings, err)
			}
			f.Flush()
			if got := log.Count(stat.JSHeapStrings, stat.DataLost); got != 2 || log.Problems() != 2 {
				t.Errorf("js_heap_strings data_lost %d, problems %d; want 2, 2", got, log.Problems())
			}
			at := strings.Index(text, `"@"`)
			want := fmt.Sprintf("tracestreamer: warning: x.heapsnapshot: 2 strings longer than %d bytes were cut to their first %d (the first at offset %d)\n",
				maxString, maxString, at)
			if out.String() != want {
				t.Errorf("warnings:\n%s\nwant:\n%s", out.String(), want)
			}
			var lens []int
			for _, row := range m.Rows["js_heap_string"] {
				lens = append(lens, len(row[2].Text))
			}
			if fmt.Sprint(lens) != fmt.Sprint([]int{1, maxString, 1, maxString}) {
				t.Errorf("js_heap_string lengths %v", lens)
			}
			if n := len(m.Rows["js_heap_nodes"]); n != 3 {
				t.Errorf("%d node rows, want 3", n)
			}
			// Kept: the two cut strings (each in the row and, with the
			// analysis, in the graph's names), read through buffers of
			// their size: 267 and 409 MB allocated in all, against 2 285
			// and 2 681 MB with the strings read whole.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*maxString {
				t.Errorf("reading %d bytes of strings allocated %d MB", first+second, alloc>>20)
			}
		})
	}
}
