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

// kernels: arith stays in the core's own cache; maps is string-keyed map
// lookups over a 200 000-key map (8 MB of keys and table), the memory-bound
// shape of the parsers' interning.
const (
	arithSteps = 150_000_000
	mapKeys    = 200_000
	mapLookups = 3_000_000
)

// arithKernel is a fixed amount of arithmetic over a 512 KiB table.
func arithKernel() uint64 {
	x := uint64(1)
	t := make([]uint64, 1<<16)
	for range arithSteps {
		x = x*6364136223846793005 + 1442695040888963407
		t[x>>48] += x
	}
	return x + t[5]
}

// mapKernel builds a string-keyed map and looks keys up in a pseudo-random
// order; the sum of the values found is returned.
func mapKernel() uint64 {
	keys := make([]string, mapKeys)
	m := make(map[string]uint64, mapKeys)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i*7919)
		m[keys[i]] = uint64(i)
	}
	x, sum := uint64(1), uint64(0)
	for range mapLookups {
		x = x*6364136223846793005 + 1442695040888963407
		sum += m[keys[(x>>33)%mapKeys]]
	}
	return sum
}

// twoUnits runs two units of f at once with GOMAXPROCS set to procs and
// returns the wall time.
func twoUnits(procs int, f func() uint64) time.Duration {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	runtime.GC()
	var wg sync.WaitGroup
	sums := make([]uint64, 2)
	start := time.Now()
	for i := range sums {
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
			f   func() uint64
			out *[]float64
		}{{arithKernel, &c.arith}, {mapKernel, &c.maps}} {
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
