package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The Go fuzzer's progress lines undercount executions badly on some machines
// (workers report late), so `make fuzz` counts them itself: with
// TRACESTREAMER_FUZZ_COUNT set to a directory, every fuzz worker process keeps
// its execution count in <dir>/<target>-<pid>.
var fuzzCount struct {
	sync.Mutex
	targets map[string]*fuzzTarget
}

// fuzzTarget is a target's count in this process and when it was last
// written.
type fuzzTarget struct {
	n       int64
	written time.Time
}

// CountExec counts one execution of a fuzz target.
func CountExec(target string) {
	dir := os.Getenv("TRACESTREAMER_FUZZ_COUNT")
	if dir == "" {
		return
	}
	fuzzCount.Lock()
	defer fuzzCount.Unlock()
	if fuzzCount.targets == nil {
		fuzzCount.targets = map[string]*fuzzTarget{}
	}
	c := fuzzCount.targets[target]
	if c == nil {
		c = &fuzzTarget{}
		fuzzCount.targets[target] = c
	}
	c.n++
	// Every 5000 executions, and at least every quarter of a second: a
	// worker is killed when the time is up, and a slow target (a few hundred
	// executions a second, such as FuzzTree) never reached 5000.
	if c.n%5000 == 1 || time.Since(c.written) >= time.Second/4 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d", target, os.Getpid())), []byte(fmt.Sprintf("%d\n", c.n)), 0o644)
		c.written = time.Now()
	}
}
