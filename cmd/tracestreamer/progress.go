package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"tracestreamer/ingest"
)

// isTerminal reports whether w is a terminal (the progress bar is shown only
// there, never in piped or redirected output).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// showProgress redraws one status line on w every 200 ms: bytes read of the
// total, throughput and time left. The returned function stops it and clears
// the line.
func showProgress(w io.Writer, p *ingest.Progress) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprint(w, "\r\033[K"+progressLine(p.Done(), p.Total(), time.Since(start)))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// progressLine renders the status: a bar, MB done / total, MB/s and ETA.
func progressLine(done, total int64, elapsed time.Duration) string {
	const width = 30
	frac := 0.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	bar := make([]byte, width)
	for i := range bar {
		if float64(i) < frac*width {
			bar[i] = '#'
		} else {
			bar[i] = '.'
		}
	}
	rate := float64(done) / 1e6 / max(elapsed.Seconds(), 1e-9)
	eta := "?"
	if rate > 0 && total > done {
		eta = (time.Duration(float64(total-done)/1e6/rate) * time.Second).Round(time.Second).String()
	} else if total <= done {
		eta = "0s"
	}
	return fmt.Sprintf("[%s] %.1f/%.1f MB  %.1f MB/s  ETA %s", bar, float64(done)/1e6, float64(total)/1e6, rate, eta)
}
