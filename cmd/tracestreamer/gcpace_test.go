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
	g := newGCPace()

	// A test's live heap is far below 1 GiB: the percentage puts the next
	// goal near the floor, well above the base.
	g.set(50, 1<<30)
	if p := gcPercent(); p < 1000 {
		t.Fatalf("with a 1 GiB floor: GOGC %d, want ≥ 1000", p)
	}

	// After a collection the cleanup sets it again (here over a percentage
	// changed behind its back).
	debug.SetGCPercent(50)
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() == 50 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p < 1000 {
		t.Fatalf("after a collection with a 1 GiB floor: GOGC %d, want ≥ 1000", p)
	}

	// Without a floor, the base percentage; a floor below the live heap
	// leaves the base too.
	for _, tc := range []struct {
		percent int
		floor   uint64
	}{{10, 0}, {50, 0}, {50, 1}} {
		g.set(tc.percent, tc.floor)
		if p := gcPercent(); p != tc.percent {
			t.Errorf("set(%d, %d): GOGC %d, want %d", tc.percent, tc.floor, p, tc.percent)
		}
	}
}
