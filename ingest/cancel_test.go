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
// it processes what it read (merging the sorted events, then writing the
// threads, open slices and counter series kept until the end: seconds for
// millions of them, which an interrupt once waited for), returns
// context.Canceled and leaves no file, beside the output or in TMPDIR. The input is generated: 60 000 threads, 30 000 open slices and
// 40 000 counter series, 8 MB.
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
	for _, phase := range []string{PhaseReading, PhaseProcessing} {
		t.Run(phase, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			out := t.TempDir()
			p := &Progress{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := Run(ctx, []string{in}, Options{Output: filepath.Join(out, "out.db"), Warnings: io.Discard,
					Progress: p})
				done <- err
			}()
			var err error
		wait:
			for {
				select {
				case err = <-done:
					break wait
				default:
				}
				if ph := p.Phase(); ph == phase && (phase != PhaseReading || p.Done() > 1<<20) {
					cancel()
					err = <-done
					break
				}
				runtime.Gosched()
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			for _, dir := range []string{out, tmp} {
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("files left in %s: %v", dir, entries)
				}
			}
		})
	}
}
