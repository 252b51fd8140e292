package ingest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tracestreamer/internal/testutil"
)

// repeat is an endless stream of one byte.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// events returns n complete events on thread 1 after ts 10, each with a
// comma before it.
func events(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,{"ph":"X","ts":%d,"dur":1,"pid":1,"tid":1,"name":"after"}`, 10+i*2)
	}
	return b.String()
}

// peakMemory samples the Go runtime's memory (every class: heap, stacks,
// runtime structures; what the runtime holds from the OS) every 10 ms
// until stop is called, which returns the largest value seen. It is what
// the process itself costs, without the test binary's own baseline noise of
// RSS counting shared pages.
func peakMemory() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// TestOversizedEventsThenMore streams traces with one huge event followed by
// a thousand ordinary ones through standard input: a 300 MB string (cut to
// 32 MiB and counted) and a 100 MB args array (the event skipped and
// counted). Every event after the big one is kept, and memory stays far below
// the input's size (issue #13 item 4: they used to vanish with exit 0).
func TestOversizedEventsThenMore(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 300 MB")
	}
	tests := []struct {
		name        string
		head, tail  string
		fill        byte
		n           int64
		callstack   string
		problem     string // non-zero stat cell
		argTextSize string
	}{
		{"300 MB string", `[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"big","args":{"s":"`, `"}}`, 'x', 300 << 20,
			"1001", "json_string|data_lost|1", "33554432"},
		{"100 MB array", `[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"big","args":{"a":[0`, `]}}`, ' ', 100 << 20,
			"1000", "json_event|data_lost|1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := io.MultiReader(strings.NewReader(tt.head), io.LimitReader(repeat(tt.fill), tt.n),
				strings.NewReader(tt.tail+events(1000)+"]"))
			out := filepath.Join(t.TempDir(), "out.db")
			var warn strings.Builder
			stop := peakMemory()
			_, err := Run(context.Background(), []string{"-"}, Options{Output: out, Warnings: &warn, Stdin: in})
			peak := stop()
			if err != nil {
				t.Fatalf("%v\n%s", err, warn.String())
			}
			db := testutil.OpenDB(t, out)
			if got := testutil.Query(t, db, "SELECT count(*) FROM callstack"); got[0] != tt.callstack {
				t.Errorf("%s callstack rows, want %s", got[0], tt.callstack)
			}
			got := testutil.Query(t, db, "SELECT event_name, stat_type, count FROM stat WHERE count > 0 AND stat_type <> 'received'")
			if strings.Join(got, ",") != tt.problem {
				t.Errorf("problems %q, want %s", got, tt.problem)
			}
			if tt.argTextSize != "" {
				size := testutil.Query(t, db, "SELECT length(data) FROM args JOIN data_dict ON data_dict.id = args.value")
				if len(size) != 1 || size[0] != tt.argTextSize {
					t.Errorf("argument text %v bytes, want %s", size, tt.argTextSize)
				}
			}
			t.Logf("peak Go memory %d MB for %d MB of input", peak>>20, tt.n>>20)
			if peak > 1<<30 {
				t.Errorf("peak Go memory %d MB, want under 1 GB", peak>>20)
			}
		})
	}
}
