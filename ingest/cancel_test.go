package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCancelInEachPhase: a run cancelled (Ctrl-C) while it reads, or while
// it processes what it read (here: while it merges the sorted events, the
// sort's spill folder still there; TestFinishContextStops covers the
// writing of the threads, open slices and counter series kept until the
// end, after the folder is gone), returns
// context.Canceled and leaves things as they were before it: the
// database's temporary file beside the output and the sort's spill folder
// in TMPDIR, both there when it is cancelled, are removed, and the output
// that existed is untouched. Cancelled while reading, it reads no further
// than the read under way (one buffer). The input is generated: 60 000
// threads, 30 000 open slices and 40 000 counter series, 8 MB, sorted with
// a 1 MiB budget so that its events spill.
func TestCancelInEachPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an 8 MB trace")
	}
	in := filepath.Join(t.TempDir(), "many.json")
	f, err := os.Create(in)
	must(t, err)
	w := bufio.NewWriter(f)
	w.WriteString("[")
	for i := range 60_000 {
		fmt.Fprintf(w, `{"ph":"X","name":"x","pid":1,"tid":%d,"ts":%d,"dur":1},`+"\n", i+2, i)
	}
	for i := range 30_000 {
		fmt.Fprintf(w, `{"ph":"B","name":"b","pid":2,"tid":%d,"ts":%d},`+"\n", i%500+2, i)
	}
	for i := range 40_000 {
		fmt.Fprintf(w, `{"ph":"C","name":"c%d","pid":3,"tid":1,"ts":%d,"args":{"v":1}},`+"\n", i, i)
	}
	w.WriteString(`{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"dur":1}]`)
	must(t, w.Flush())
	must(t, f.Close())
	// The largest read of the input: the tokenizer's buffer.
	const maxRead = 1 << 20
	entries := func(dir string) []string {
		var names []string
		list, _ := os.ReadDir(dir)
		for _, e := range list {
			names = append(names, e.Name())
		}
		return names
	}
	for _, phase := range []string{PhaseReading, PhaseProcessing} {
		t.Run(phase, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			out := t.TempDir()
			dest := filepath.Join(out, "out.db")
			must(t, os.WriteFile(dest, []byte("precious"), 0o644))
			p := &Progress{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := Run(ctx, []string{in}, Options{Output: dest, Warnings: io.Discard, Progress: p,
					SortBudget: 1 << 20})
				done <- err
			}()
			// Cancel in the phase, once the files a cancelled run must
			// remove are there: the spill folder and the temporary database.
			var err error
			var atCancel int64
			var leftAtCancel []string
		wait:
			for {
				select {
				case err = <-done:
					t.Fatalf("the run ended (error %v) before it was seen %s with its temporary files", err, phase)
				default:
				}
				if len(entries(tmp)) > 0 && len(entries(out)) > 1 && p.Phase() == phase {
					leftAtCancel = append(entries(tmp), entries(out)...)
					cancel()
					atCancel = p.Done()
					err = <-done
					break wait
				}
				runtime.Gosched()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if got := entries(tmp); len(got) != 0 {
				t.Errorf("TMPDIR holds %q after the cancel (at the cancel: %q)", got, leftAtCancel)
			}
			if got := entries(out); len(got) != 1 {
				t.Errorf("the output's folder holds %q after the cancel, want out.db alone (at the cancel: %q)", got, leftAtCancel)
			}
			if b, _ := os.ReadFile(dest); string(b) != "precious" {
				t.Errorf("the existing output changed: %.20q", b)
			}
			if phase == PhaseReading {
				if more := p.Done() - atCancel; more > maxRead {
					t.Errorf("%d bytes read after the cancel, want at most the read under way (%d)", more, maxRead)
				}
			}
		})
	}
}
