package main

import (
	"fmt"
	"io"
	"os"
	"sync"
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

// statusLine is a terminal whose last line is a status line that other output
// must not be glued to: every Write clears it first, and the next tick redraws
// it below what was written.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

func (s *statusLine) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		io.WriteString(s.w, "\r\033[K")
		s.shown = false
	}
	return s.w.Write(b)
}

func (s *statusLine) draw(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	io.WriteString(s.w, "\r\033[K"+line)
	s.shown = line != ""
}

// showProgress redraws one status line on w every 200 ms: while reading, bytes
// read of the total, throughput and time left; then the phase. Warnings must go
// through the returned writer, which clears the line before them. stop clears
// the line for good.
func showProgress(w io.Writer, p *ingest.Progress) (out io.Writer, stop func()) {
	sl := &statusLine{w: w}
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
				sl.draw("")
				return
			case <-tick.C:
				sl.draw(progressLine(p.Phase(), p.Done(), p.Total(), time.Since(start)))
			}
		}
	}()
	return sl, func() {
		close(done)
		<-finished
	}
}

// progressLine renders the status: while reading, a bar, MB done / total,
// MB/s and ETA; after it, the phase the run is in and the time so far.
func progressLine(phase string, done, total int64, elapsed time.Duration) string {
	if phase != ingest.PhaseReading && phase != "" {
		return fmt.Sprintf("read %.1f MB · %s · %s", float64(done)/1e6, phase, elapsed.Round(time.Second))
	}
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
