package traceevent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// manyOpen is a trace with threads threads (one X slice each), open B
// slices and counter series, all of which Finish writes at the end.
func manyOpen(threads, open, counters int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range threads {
		fmt.Fprintf(&b, `{"ph":"X","name":"x","pid":1,"tid":%d,"ts":%d,"dur":1},`+"\n", i+2, i)
	}
	for i := range open {
		fmt.Fprintf(&b, `{"ph":"B","name":"b","pid":2,"tid":%d,"ts":%d},`+"\n", i%100+2, i)
	}
	for i := range counters {
		fmt.Fprintf(&b, `{"ph":"C","name":"c%d","pid":3,"tid":1,"ts":%d,"args":{"v":1}},`+"\n", i, i)
	}
	b.WriteString(`{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"dur":1}]`)
	return b.String()
}

// TestFinishContextStops: FinishContext with its context done gives up
// within a few thousand rows instead of writing every thread, open slice and
// counter sample kept until the end (seconds for millions of them: Ctrl-C
// waited for it), and returns the context's error; Finish writes them all.
func TestFinishContextStops(t *testing.T) {
	const threads, open, counters = 6000, 6000, 6000
	text := manyOpen(threads, open, counters)
	for _, cancelled := range []bool{false, true} {
		mem := rows.NewMemory()
		ts := schema.New()
		im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{}, Log: stat.NewLog(nil)},
			Options{})
		if err := im.Read(context.Background(), strings.NewReader(text), Input{Path: "t.json"}); err != nil {
			t.Fatal(err)
		}
		before := len(mem.Rows["callstack"])
		ctx, cancel := context.WithCancel(context.Background())
		if cancelled {
			cancel()
		}
		err := im.FinishContext(ctx)
		cancel()
		thread, measure := len(mem.Rows["thread"]), len(mem.Rows["process_measure"])
		opened := len(mem.Rows["callstack"]) - before
		if !cancelled {
			if err != nil || thread < threads || measure != counters || opened < open {
				t.Errorf("FinishContext: error %v, %d thread rows, %d samples, %d slices at the end", err, thread, measure, opened)
			}
			continue
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: error %v, want context.Canceled", err)
		}
		if thread+measure+opened > 2*haltEvery {
			t.Errorf("cancelled: still wrote %d thread rows, %d samples, %d slices", thread, measure, opened)
		}
	}
}

// stalledReader gives its text, then blocks until released, as a FIFO whose
// writer stopped does.
type stalledReader struct {
	r       io.Reader
	release chan struct{}
}

func (s stalledReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		<-s.release
	}
	if n > 0 {
		return n, nil
	}
	return 0, err
}

// TestCancelWhileReaderStalls: a cancellation ends Read even while the input
// gives nothing (the first pass waits for a batch that does not come).
func TestCancelWhileReaderStalls(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	in := stalledReader{strings.NewReader(`[{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"dur":1},`), release}
	mem := rows.NewMemory()
	ts := schema.New()
	im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{}, Log: stat.NewLog(nil)},
		Options{})
	testutil.CancelWhileWaiting(t, "Read", 50*time.Millisecond, func(ctx context.Context) error {
		return im.Read(ctx, in, Input{Path: "fifo"})
	})

}
