package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tracestreamer/internal/testutil"
)

// events returns n complete events on thread 1 after ts 10, each with a
// comma before it.
func events(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,{"ph":"X","ts":%d,"dur":1,"pid":1,"tid":1,"name":"after"}`, 10+i*2)
	}
	return b.String()
}

// peakMemory samples the Go heap's objects (live and not yet swept) every
// 10 ms until stop is called, which returns the largest growth over what
// was there at the start (after a collection): what the run itself held,
// whatever earlier tests of the binary left behind.
func peakMemory() (stop func() uint64) {
	const metric = "/memory/classes/heap/objects:bytes"
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	runtime.GC()
	sample := []metrics.Sample{{Name: metric}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		s := []metrics.Sample{{Name: metric}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak.Load() {
				peak.Store(v - base)
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

// convertStdin converts in, given as standard input, and returns the database
// and the peak growth of the heap during the run.
func convertStdin(t *testing.T, in io.Reader) (*sql.DB, uint64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.db")
	var warn strings.Builder
	stop := peakMemory()
	_, err := Run(context.Background(), []string{"-"}, Options{Output: out, Warnings: &warn, Stdin: in})
	peak := stop()
	if err != nil {
		t.Fatalf("%v\n%s", err, warn.String())
	}
	return testutil.OpenDB(t, out), peak
}

// TestOversizedEventsThenMore streams traces with one huge event followed by
// a thousand ordinary ones through standard input: a 300 MB string (cut to
// 32 MiB and counted) and a 100 MB args array (the event skipped and
// counted). Every event after the big one is kept, and the heap stays far
// below the input's size (issue #13 item 4: they used to vanish with exit 0).
func TestOversizedEventsThenMore(t *testing.T) {
	if testing.Short() || testutil.RaceEnabled {
		t.Skip("streams 400 MB (run without -short and -race: make test does)")
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
			in := io.MultiReader(strings.NewReader(tt.head), io.LimitReader(testutil.Repeat(tt.fill), tt.n),
				strings.NewReader(tt.tail+events(1000)+"]"))
			db, peak := convertStdin(t, in)
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
			t.Logf("peak Go heap growth %d MB for %d MB of input", peak>>20, tt.n>>20)
			if peak > 1<<30 {
				t.Errorf("peak Go heap growth %d MB, want under 1 GB", peak>>20)
			}
		})
	}
}

// TestOversizedSystemText streams a trace with 1 GiB of systemTraceEvents
// text: it is stored whole in 64 MiB rows, and the heap does not grow with
// it (it used to hold every row until the end: 1.3 GB of RSS per GiB).
func TestOversizedSystemText(t *testing.T) {
	if testing.Short() || testutil.RaceEnabled {
		t.Skip("streams 1 GiB (run without -short and -race: make test does)")
	}
	line := `  kworker-42 [001] d..2 12345.678901: sched_switch: prev_comm=swapper/1 prev_pid=0 ==> next_pid=42\n`
	const size = 1 << 30
	n := int64(size / len(line))
	in := io.MultiReader(
		strings.NewReader(`{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"a"}],"systemTraceEvents":"`),
		io.LimitReader(&cycle{s: line}, n*int64(len(line))), strings.NewReader(`"}`))
	db, peak := convertStdin(t, in)
	want := n * int64(len(line)-1) // the escape \n is one byte of text
	// 64 MiB rows, each cut after a newline in its last MiB.
	if got := testutil.Query(t, db, "SELECT count(*), sum(length(data)), max(length(data)) FROM system_trace_events"); got[0] != fmt.Sprintf("16|%d|%d", want, 64<<20-64<<20%(len(line)-1)) {
		t.Errorf("system_trace_events %v, want 16 rows of %d bytes in all, the longest %d", got, want, 64<<20-64<<20%(len(line)-1))
	}
	t.Logf("peak Go heap growth %d MB for %d MB of text", peak>>20, want>>20)
	if peak > 900<<20 { // dead objects not yet swept count too
		t.Errorf("peak Go heap growth %d MB, want under 900 MB", peak>>20)
	}
}

// cycle is an endless stream of one string, repeated.
type cycle struct {
	s   string
	pos int
}

func (c *cycle) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.s[c.pos:])
		n += k
		c.pos = (c.pos + k) % len(c.s)
	}
	return n, nil
}

// eventStream streams a JSON array of n events, event(i) each, generated as it is
// read.
type eventStream struct {
	n, i  int
	event func(i int) string
	buf   []byte
}

func (s *eventStream) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.i <= s.n {
		switch {
		case s.i == s.n:
			s.buf = append(s.buf, ']')
		case s.i == 0:
			s.buf = append(append(s.buf, '['), s.event(0)...)
		default:
			s.buf = append(append(s.buf, ','), s.event(s.i)...)
		}
		s.i++
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// TestOversizedState streams traces that make the importer keep state per
// entity: millions of threads, of async slices never ended, of B never
// closed, of closed async pairs. Every case converts with the heap bounded;
// beyond the bounds (2 000 000 threads, 500 000 slices waiting for their
// end) events are dropped and counted, below them nothing is.
func TestOversizedState(t *testing.T) {
	if testing.Short() || testutil.RaceEnabled {
		t.Skip("streams millions of events (run without -short and -race: make test does)")
	}
	tests := []struct {
		name      string
		n         int
		event     func(i int) string
		callstack string
		problems  string
	}{
		{"2.5 M threads", 2_500_000, func(i int) string {
			return fmt.Sprintf(`{"ph":"X","ts":%d,"dur":1,"pid":1,"tid":%d,"name":"t"}`, i, i+2)
		}, "1999998", "json_pid_tid|data_lost|500002"},
		{"1 M b never ended", 1_000_000, func(i int) string {
			return fmt.Sprintf(`{"ph":"b","ts":%d,"pid":1,"tid":1,"cat":"c","name":"a","id":%d}`, i, i)
		}, "500000", "json_max_depth|data_lost|500000,json_nestable_begin|not_match|500000"},
		{"1 M B never closed", 1_000_000, func(i int) string {
			return fmt.Sprintf(`{"ph":"B","ts":%d,"pid":1,"tid":%d,"name":"b"}`, i, i/500+2)
		}, "500000", "json_begin|not_match|500000,json_max_depth|data_lost|500000"},
		{"2 M closed async pairs", 2_000_000, func(i int) string {
			ph := "b"
			if i%2 == 1 {
				ph = "e"
			}
			return fmt.Sprintf(`{"ph":%q,"ts":%d,"pid":1,"tid":1,"cat":"c","name":"a","id":%d}`, ph, i, i/2)
		}, "1000000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, peak := convertStdin(t, &eventStream{n: tt.n, event: tt.event})
			if got := testutil.Query(t, db, "SELECT count(*) FROM callstack"); got[0] != tt.callstack {
				t.Errorf("%s callstack rows, want %s", got[0], tt.callstack)
			}
			got := testutil.Query(t, db, "SELECT event_name, stat_type, count FROM stat WHERE count > 0 AND stat_type <> 'received' ORDER BY event_name")
			if strings.Join(got, ",") != tt.problems {
				t.Errorf("problems %q, want %q", got, tt.problems)
			}
			t.Logf("peak Go heap growth %d MB for %d events", peak>>20, tt.n)
			if peak > 1<<30 {
				t.Errorf("peak Go heap growth %d MB, want under 1 GB", peak>>20)
			}
		})
	}
}
