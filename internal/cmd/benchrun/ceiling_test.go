package main

import "testing"

// TestLookupTable: each key holds its own index, every key is distinct,
// and the lookups' sum is that of the indices they draw.
func TestLookupTable(t *testing.T) {
	lt := newLookupTable()
	if len(lt.m) != mapKeys {
		t.Fatalf("%d keys in the map, want %d", len(lt.m), mapKeys)
	}
	for i, k := range lt.keys {
		if v, ok := lt.m[k]; !ok || v != uint64(i) {
			t.Fatalf("key %d (%q) holds %d, %v", i, k, v, ok)
		}
	}
	x, want := uint64(1), uint64(0)
	for range mapLookups {
		x = x*6364136223846793005 + 1442695040888963407
		want += (x >> 33) % mapKeys
	}
	if got := lt.lookups(); got != want {
		t.Fatalf("lookups() = %d, want %d", got, want)
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
