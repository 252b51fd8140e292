package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// The Go fuzzer's progress lines undercount executions badly on some machines
// (workers report late), so `make fuzz` counts them itself: with
// TRACESTREAMER_FUZZ_COUNT set to a directory, every fuzz worker process keeps
// its execution count in <dir>/<target>-<pid>.
var fuzzCount struct {
	sync.Mutex
	n map[string]int64
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
		fuzzCount.n = map[string]int64{}
	}
	fuzzCount.n[target]++
	if n := fuzzCount.n[target]; n%5000 == 1 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d", target, os.Getpid())), []byte(fmt.Sprintf("%d\n", n)), 0o644)
	}
}
