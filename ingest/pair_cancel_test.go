package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"tracestreamer/internal/testutil"
)

// checkCtx wraps a run's context (Options.ctxHook), calling cancel (the
// caller's) at the n-th call of its Err once armed: the run is interrupted
// at a chosen one of the checks its readers make. atCancel is called just
// before.
type checkCtx struct {
	context.Context
	cancel   context.CancelFunc
	armed    atomic.Bool
	calls    atomic.Int64
	n        int64
	atCancel func()
}

func (c *checkCtx) Err() error {
	if c.armed.Load() && c.calls.Add(1) == c.n {
		c.atCancel()
		c.cancel()
	}
	return c.Context.Err()
}

// lockedBuffer is a bytes.Buffer written and read by several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPairCancelledWhileRead interrupts a run reading a hybrid pair (both
// halves uncompressed: the dynamic one read at offsets, the static one
// streamed) at each of the context checks its reads make in turn: each run
// ends with context.Canceled and prints no warning once it is cancelled,
// though the decoders take the reads refused from then on for a cut dump
// (a truncated record, a pair half that gives nothing usable, which were
// warned about). The run not cancelled warns about the pair's dangling
// references, as a cancelled one may before it is cancelled.
func TestPairCancelledWhileRead(t *testing.T) {
	dir := t.TempDir()
	var in []string
	for _, half := range []string{"hybrid.dyn", "hybrid.sta"} {
		path := filepath.Join(dir, half+".rawheap")
		if err := os.WriteFile(path, testutil.Fixture(t, "rawheap/"+half+".rawheap.gz"), 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, path)
	}
	const dangling = "references to addresses that are not in the object table"
	cancelled := 0
	for n := int64(1); ; n++ {
		var warn lockedBuffer
		before := -1 // the warnings printed when the run was cancelled
		outer, cancel := context.WithCancel(context.Background())
		var ctx *checkCtx
		_, err := Run(outer, in, Options{Output: filepath.Join(dir, "out.db"), Warnings: &warn,
			BeforeInput: func(string) { ctx.armed.Store(true) },
			ctxHook: func(run context.Context) context.Context {
				ctx = &checkCtx{Context: run, cancel: cancel, n: n, atCancel: func() { before = len(warn.String()) }}
				return ctx
			}})
		cancel()
		if before < 0 { // the run ended before its n-th check
			if err != nil || !strings.Contains(warn.String(), dangling) {
				t.Errorf("not cancelled: %v, warnings %q", err, warn.String())
			}
			break
		}
		cancelled++
		if after := warn.String()[before:]; !errors.Is(err, context.Canceled) || after != "" {
			t.Errorf("cancelled at check %d: %v, want context.Canceled; warnings after the cancel %q", n, err, after)
		}
	}
	if cancelled < 10 {
		t.Errorf("cancelled at %d checks, want at least 10: the pair's reads check the context", cancelled)
	}
}
