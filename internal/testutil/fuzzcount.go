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
	n       map[string]int64
	written map[string]time.Time
}

// CountExec counts one execution of a fuzz target.
func CountExec(target string) {
	dir := os.Getenv("TRACESTREAMER_FUZZ_COUNT")
	if dir == "" {
		return
	}
	fuzzCount.Lock()
	defer fuzzCount.Unlock()
	if fuzzCount.n == nil {
		fuzzCount.n, fuzzCount.written = map[string]int64{}, map[string]time.Time{}
	}
	fuzzCount.n[target]++
	// Every 5000 executions, and at least every quarter of a second: a
	// worker is killed when the time is up, and a slow target (a few hundred
	// executions a second, such as FuzzTree) never reached 5000.
	if n := fuzzCount.n[target]; n%5000 == 1 || time.Since(fuzzCount.written[target]) >= time.Second/4 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d", target, os.Getpid())), []byte(fmt.Sprintf("%d\n", n)), 0o644)
		fuzzCount.written[target] = time.Now()
	}
}
