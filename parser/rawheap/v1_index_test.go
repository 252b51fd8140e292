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
