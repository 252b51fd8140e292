package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcPace sets the collector's percentage (GOGC) for the input being read,
// and optionally a floor: the heap may grow to floor bytes before a
// collection, whatever the percentage says. The runtime starts collecting at
// a 4 MB heap, so a run whose live heap ends near 70 MB (the Trace Event
// importer on a 29 MB file) collects eleven times at GOGC=50 on its way up;
// with a floor it collects once or twice, its peak still near the floor.
// Past the floor the percentage alone paces it, so large inputs peak as
// before.
//
// After each collection (a cleanup of a sentinel object, made again each
// time) it sets the percentage that puts the next goal at the floor, or the
// base percentage where that is larger.
type gcPace struct {
	mu      sync.Mutex
	percent int    // the base GOGC
	floor   uint64 // bytes; 0: none
	armed   bool   // a sentinel is waiting for the next collection
	sample  []metrics.Sample
}

// sentinel is an object whose cleanup runs after the collection that finds
// it unreachable (not a tiny allocation, which may share a block).
type sentinel struct{ _ [4]*int }

func newGCPace() *gcPace {
	return &gcPace{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// set makes percent the base percentage and floor (0: none) the floor.
func (g *gcPace) set(percent int, floor uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.percent, g.floor = percent, floor
	g.applyLocked()
}

// applyLocked sets the collector's percentage from the live heap, and arms
// a sentinel while a floor is set.
func (g *gcPace) applyLocked() {
	pct := g.percent
	if g.floor > 0 {
		metrics.Read(g.sample)
		live := uint64(4 << 20) // the runtime's smallest goal, before any collection
		if v := g.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > live {
			live = v.Uint64()
		}
		if live < g.floor {
			pct = max(pct, int((g.floor-live)*100/live))
		}
		if !g.armed {
			g.armed = true
			s := &sentinel{}
			runtime.AddCleanup(s, func(g *gcPace) { g.collected() }, g)
		}
	}
	debug.SetGCPercent(pct)
}

// collected runs after a collection: it paces the next one.
func (g *gcPace) collected() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed = false
	g.applyLocked()
}

// traceEventHeapFloor is the heap the Trace Event importer may grow to
// before it collects. On the 29 MB real-mix trace it collects 4–5 times
// instead of 10–12 (the collector's CPU 36–57 → 25–27 ms, gctrace) at the
// same peak (113–124 MB; 45 MB trace: 132 → 112–114 MB). The 519 MB trace's
// live heap passes it early, and GOGC=50 paces it as before.
const traceEventHeapFloor = 64 << 20
