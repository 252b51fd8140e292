package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent returns the collector's percentage without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestGCPace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	g := newGCPace()

	// A test's live heap is far below half of 1 GiB: the percentage is off
	// and the floor is the memory limit.
	g.set(50, 1<<30)
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != 1<<30 {
		t.Fatalf("with a 1 GiB floor: GOGC %d, memory limit %d; want off, 1 GiB", p, l)
	}

	// After a collection the cleanup looks again (here at a percentage
	// changed behind its back).
	debug.SetGCPercent(50)
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() == 50 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p != -1 {
		t.Fatalf("after a collection with a 1 GiB floor: GOGC %d, want off", p)
	}

	// Without a floor, and with a floor the live heap has passed half of,
	// the base percentage and the memory limit the run had; restore puts
	// back what there was before, for good.
	for _, tc := range []struct {
		percent int
		floor   int64
	}{{10, 0}, {50, 0}, {50, 1}} {
		g.set(tc.percent, tc.floor)
		if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != tc.percent || l != 3<<30 {
			t.Errorf("set(%d, %d): GOGC %d, memory limit %d; want %d, 3 GiB", tc.percent, tc.floor, p, l, tc.percent)
		}
	}
	g.set(50, 1<<30)
	g.restore()
	g.set(50, 1<<30)
	runtime.GC()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != 3<<30 {
		t.Errorf("after restore: GOGC %d, memory limit %d; want 100, 3 GiB", p, l)
	}
}

// TestGCPolicyStart checks that the Trace Event floor paces a run from its
// start, before the first input's format is known, and that the format's
// policy replaces it.
func TestGCPolicyStart(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	g := newGCPace()
	defer g.restore()
	before := gcPolicy(g, true)
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != traceEventFloor {
		t.Fatalf("before the first input: GOGC %d, memory limit %d; want off, %d", p, l, int64(traceEventFloor))
	}
	before("heapsnapshot")
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 10 || l != 3<<30 {
		t.Errorf("heap snapshot with analysis: GOGC %d, memory limit %d; want 10, 3 GiB", p, l)
	}
	before("traceevent")
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != traceEventFloor {
		t.Errorf("Trace Event: GOGC %d, memory limit %d; want off, %d", p, l, int64(traceEventFloor))
	}
}
