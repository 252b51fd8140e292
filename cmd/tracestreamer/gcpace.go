package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcPace sets the collector's percentage (GOGC) for the input being read,
// and optionally a floor: memory the run may use before it collects at all.
// The runtime starts collecting at a 4 MB heap, so a run whose live heap
// ends near 70 MB (the Trace Event importer on a 29 MB file) collected ten
// times or more at GOGC=50 on its way up.
//
// While the live heap is under half the floor, the percentage is off and
// the floor is the runtime's soft memory limit: the collector runs only when
// the run's memory reaches the floor, and the heap cannot grow past it
// (a percentage computed to reach the floor would let a heap that grew
// meanwhile run far past it until the next adjustment). After each
// collection (a cleanup of a sentinel object, made again each time) the
// live heap is looked at again; once it passes half the floor, the base
// percentage and the memory limit the run had (GOMEMLIMIT or the command's
// default) pace it, so a large input is collected at that percentage and
// limit from then on.
type gcPace struct {
	mu      sync.Mutex
	percent int   // the base GOGC
	floor   int64 // bytes; 0: none
	limit   int64 // the memory limit outside the floor
	armed   bool  // a sentinel is waiting for the next collection
	sample  []metrics.Sample
	// percent0 is the percentage before the pace was made; restored is
	// set once restore has put it and the limit back.
	percent0 int
	restored bool
}

// sentinel is an object whose cleanup runs after the collection that finds
// it unreachable (not a tiny allocation, which may share a block).
type sentinel struct{ _ [4]*int }

func newGCPace() *gcPace {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return &gcPace{limit: debug.SetMemoryLimit(-1), percent0: p, percent: p,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// restore puts back the percentage and the memory limit there were when
// the pace was made; it changes nothing after that.
func (g *gcPace) restore() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.restored = true
	debug.SetGCPercent(g.percent0)
	debug.SetMemoryLimit(g.limit)
}

// set makes percent the base percentage and floor (0: none) the floor.
func (g *gcPace) set(percent int, floor int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.restored {
		return
	}
	g.percent, g.floor = percent, floor
	g.applyLocked()
}

// applyLocked paces the collector from the live heap, and arms a sentinel
// while the floor does.
func (g *gcPace) applyLocked() {
	if g.floor > 0 {
		metrics.Read(g.sample)
		var live int64 // 0 before the first collection
		if v := g.sample[0].Value; v.Kind() == metrics.KindUint64 {
			live = int64(v.Uint64())
		}
		if live < g.floor/2 {
			debug.SetMemoryLimit(min(g.floor, g.limit))
			debug.SetGCPercent(-1)
			if !g.armed {
				g.armed = true
				// The cleanup only starts the pacing: SetGCPercent(-1) waits
				// for a running mark phase, and the runtime's cleanup
				// goroutine is shared with every other cleanup.
				runtime.AddCleanup(&sentinel{}, func(g *gcPace) { go g.collected() }, g)
			}
			return
		}
	}
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.limit)
}

// collected runs after a collection: it paces the next one.
func (g *gcPace) collected() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed = false
	if !g.restored {
		g.applyLocked()
	}
}

// traceEventFloor is the memory the Trace Event importer may use before it
// collects. The 29 MB real-mix trace collects twice (its live heap passes
// half the floor at the first), against 4 times at an 80 MB floor and 12 at
// GOGC=50 alone. Its peak RSS: 103-105 MiB (af07352, 2026-11-27, 5 runs
// beside Perfetto's 99 MiB); when the floor was chosen (a77bc54), the 45 MB
// trace's 125-128 MB against 113-118 MB at an 80 MB floor and 121-137 MB at
// GOGC=50 alone. The 519 MB trace passes it early and is then paced at
// GOGC=50 and the run's memory limit.
const traceEventFloor = 96 << 20
