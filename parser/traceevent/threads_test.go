package traceevent

import (
	"reflect"
	"runtime"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestWorkersSameRows checks that the number of decoding workers (one per
// core the run may use, --threads) does not change a single row.
func TestWorkersSameRows(t *testing.T) {
	text := testutil.Fixture(t, "chromium/trace.json.gz")
	var want *imported
	for _, procs := range []int{1, 2, 5} {
		prev := runtime.GOMAXPROCS(procs)
		got := importShared(t, text, true)
		runtime.GOMAXPROCS(prev)
		if n := len(got.mem.Rows["callstack"]); n < 10000 {
			t.Fatalf("GOMAXPROCS %d: %d callstack rows", procs, n)
		}
		if want == nil {
			want = got
			continue
		}
		for name, rows := range want.mem.Rows {
			if !reflect.DeepEqual(got.mem.Rows[name], rows) {
				t.Errorf("GOMAXPROCS %d: table %s differs from GOMAXPROCS 1", procs, name)
			}
		}
	}
}
