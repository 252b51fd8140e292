package main

import "testing"

// TestMapKernelFindsEachKey checks that the map kernel's lookups find the
// value stored under each key: every key i holds i, so the sum equals the
// sum of the indices drawn, computed here without the map.
func TestMapKernelFindsEachKey(t *testing.T) {
	x, want := uint64(1), uint64(0)
	for range mapLookups {
		x = x*6364136223846793005 + 1442695040888963407
		want += (x >> 33) % mapKeys
	}
	if got := mapKernel(); got != want {
		t.Fatalf("mapKernel() = %d, want %d", got, want)
	}
}

func TestCeilingString(t *testing.T) {
	for _, tc := range []struct {
		c    ceiling
		want string
	}{
		{ceiling{arith: []float64{0.61, 0.52, 0.59}, maps: []float64{0.9, 0.7, 0.75}},
			"arithmetic 0.52–0.61 (median 0.59), map lookups 0.70–0.90 (median 0.75)"},
		{ceiling{arith: []float64{0.5}, maps: []float64{1}},
			"arithmetic 0.50–0.50 (median 0.50), map lookups 1.00–1.00 (median 1.00)"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
