package rawheap

import "testing"

// TestV1Find checks the V1 address index: 48-bit addresses in buckets of
// their top 16 bits, the others (a damaged table's) in the sorted fallback.
func TestV1Find(t *testing.T) {
	addrs := []struct {
		a  uint64
		ix uint32
	}{ // sorted by address, as run makes them
		{0x8, 7}, {0x1000, 3}, {0xFFFF_FFF8, 9}, {0x1_0000_0000, 1}, {0x1_0000_0010, 12},
		{0x7F00_1234_5678, 5}, {0xFFFF_FFFF_FFF0, 2}, {0x1_0000_0000_0000, 4}, {0xFFFF_0000_0000_0001, 6},
	}
	v := &v1{}
	var keys []uint64
	var hi []uint32
	for _, x := range addrs {
		if x.a>>48 != 0 {
			v.big = append(v.big, pair{x.a, x.ix})
			continue
		}
		keys = append(keys, x.a<<32|uint64(x.ix))
		hi = append(hi, uint32(x.a>>32))
	}
	v.index = newAddrIndexTop(keys, hi)
	for _, x := range addrs {
		if got, ok := v.find(x.a); !ok || got != int64(x.ix) {
			t.Errorf("find(%#x) = %d, %v; want %d", x.a, got, ok, x.ix)
		}
	}
	for _, a := range []uint64{0, 0x10, 0x1_0000_0008, 0xFFFF_FFFF_FFF8, 0x1_0000_0000_0008, 0x7F00_1234_5670, ^uint64(0)} {
		if got, ok := v.find(a); ok {
			t.Errorf("find(%#x) = %d, want not found", a, got)
		}
	}
}

// TestV1FindNarrow checks the index on heaps whose objects lie close
// together, as a dump's do (buckets narrower than 4 GiB), among them one
// that crosses a 4 GiB boundary: every address is found, and none of the
// addresses between, before and after them.
func TestV1FindNarrow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, step uint64
		n          int
	}{
		{"one object", 0x7F12_3456_0000, 8, 1},
		{"a few", 0x7F12_3456_0000, 24, 100},
		{"1 GiB, many", 0x7F12_0000_0000, 1 << 13, 1 << 17},
		{"across 4 GiB", 0x1_FFFF_0000, 40, 20000},
		{"from 0", 0, 16, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &v1{}
			var keys []uint64
			var hi []uint32
			for i := range tc.n {
				a := tc.base + uint64(i)*tc.step
				keys = append(keys, a<<32|uint64(i))
				hi = append(hi, uint32(a>>32))
			}
			v.index = newAddrIndexTop(keys, hi)
			if len(v.index.start) > maxAddrBuckets+1 || v.index.shift > 32 {
				t.Fatalf("%d buckets of 1<<%d", len(v.index.start)-1, v.index.shift)
			}
			for i := range tc.n {
				a := tc.base + uint64(i)*tc.step
				if got, ok := v.find(a); !ok || got != int64(i) {
					t.Fatalf("find(%#x) = %d, %v; want %d", a, got, ok, i)
				}
				if got, ok := v.find(a + 8); ok {
					t.Fatalf("find(%#x) = %d, want not found", a+8, got)
				}
			}
			last := tc.base + uint64(tc.n-1)*tc.step
			for _, a := range []uint64{tc.base - 8, last + tc.step, last + 1<<32, tc.base ^ 1<<40} {
				if got, ok := v.find(a); ok {
					t.Errorf("find(%#x) = %d, want not found", a, got)
				}
			}
		})
	}
}
