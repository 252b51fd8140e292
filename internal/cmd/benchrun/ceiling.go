package main

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

// ceiling is what this machine gives two threads of independent work: the
// wall time of two equal units of work run side by side with GOMAXPROCS=2,
// over their wall time with GOMAXPROCS=1 (one after the other). 0.5 is perfect
// scaling; cores that share a physical core, cache or memory bandwidth, or a
// host's other guests, give more. It bounds the GOMAXPROCS 2/1 ratio any
// conversion can reach here: the cores table's ratios are read beside it.
type ceiling struct {
	arith, maps []float64 // ratios of each round
}

// The kernels: arith is arithmetic over a 512 KiB table (within the L2
// cache of many cores); maps is string-keyed map lookups over a 200 000-key
// map (8 MB of keys and table), the memory-bound shape of the parsers'
// interning. Only the work is timed: each unit's map is built before.
const (
	arithSteps = 150_000_000
	mapKeys    = 200_000
	mapLookups = 3_000_000
)

// arithUnit makes a unit of arithmetic: a fixed amount over its own table.
func arithUnit() func() uint64 {
	t := make([]uint64, 1<<16)
	return func() uint64 {
		x := uint64(1)
		for range arithSteps {
			x = x*6364136223846793005 + 1442695040888963407
			t[x>>48] += x
		}
		return x + t[5]
	}
}

// lookupTable is a map of mapKeys keys: key i holds i.
type lookupTable struct {
	keys []string
	m    map[string]uint64
}

func newLookupTable() *lookupTable {
	lt := &lookupTable{keys: make([]string, mapKeys), m: make(map[string]uint64, mapKeys)}
	for i := range lt.keys {
		lt.keys[i] = "key-" + strconv.Itoa(i*7919)
		lt.m[lt.keys[i]] = uint64(i)
	}
	return lt
}

// lookups looks keys up in a pseudo-random order and returns the sum of
// the values found.
func (lt *lookupTable) lookups() uint64 {
	x, sum := uint64(1), uint64(0)
	for range mapLookups {
		x = x*6364136223846793005 + 1442695040888963407
		sum += lt.m[lt.keys[(x>>33)%mapKeys]]
	}
	return sum
}

// mapUnit makes a unit of map lookups over a table of its own.
func mapUnit() func() uint64 { return newLookupTable().lookups }

// twoUnits makes two units with unit, then runs them at once with
// GOMAXPROCS set to procs and returns the wall time of the runs.
func twoUnits(procs int, unit func() func() uint64) time.Duration {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	units := []func() uint64{unit(), unit()}
	runtime.GC()
	var wg sync.WaitGroup
	sums := make([]uint64, len(units))
	start := time.Now()
	for i, f := range units {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i] = f()
		}()
	}
	wg.Wait()
	d := time.Since(start)
	if sums[0] != sums[1] {
		panic("ceiling: the kernel is not deterministic")
	}
	return d
}

// measureCeiling runs each kernel rounds times at GOMAXPROCS 1 and 2,
// alternating.
func measureCeiling(rounds int) ceiling {
	var c ceiling
	for range rounds {
		for _, k := range []struct {
			f   func() func() uint64
			out *[]float64
		}{{arithUnit, &c.arith}, {mapUnit, &c.maps}} {
			one := twoUnits(1, k.f)
			two := twoUnits(2, k.f)
			*k.out = append(*k.out, two.Seconds()/one.Seconds())
		}
	}
	return c
}

// String gives each kernel's ratios as min–max and median.
func (c ceiling) String() string {
	f := func(r []float64) string {
		s := slices.Clone(r)
		slices.Sort(s)
		return fmt.Sprintf("%.2f–%.2f (median %.2f)", s[0], s[len(s)-1], s[len(s)/2])
	}
	return fmt.Sprintf("arithmetic %s, map lookups %s", f(c.arith), f(c.maps))
}
