package rawheap

import "testing"

// TestAddrMap checks V2's address map: the first number of an address kept
// (table indexes) or the last (names), address 0 and the largest, a map
// filled to three quarters whose probes wrap past its last slot, and
// addresses it does not hold.
func TestAddrMap(t *testing.T) {
	// Three addresses whose probes start at the last of 8 slots: the
	// second and third wrap to the first slots.
	var last []uint32
	for a, m := uint32(0), newAddrMap(6); len(last) < 3; a += 8 {
		if uint64(a)*0x9E3779B97F4A7C15>>m.shift == 7 {
			last = append(last, a)
		}
	}
	type put struct{ addr, v uint32 }
	for _, tc := range []struct {
		name    string
		n       int64
		puts    []put
		replace bool
		want    map[uint32]int64
		absent  []uint32
	}{
		{"first kept", 4, []put{{0, 5}, {0x10, 1}, {0, 7}, {0xFFFF_FFFF, 0}}, false,
			map[uint32]int64{0: 5, 0x10: 1, 0xFFFF_FFFF: 0}, []uint32{8, 0xFFFF_FFF8}},
		{"last kept", 3, []put{{0x20008, 3}, {0x20008, 4}, {0x8, 0xFFFF_FFFD}}, true,
			map[uint32]int64{0x20008: 4, 0x8: 0xFFFF_FFFD}, []uint32{0, 0x20000}},
		{"empty", 0, nil, false, map[uint32]int64{}, []uint32{0, 1}},
		{"wrapped", 6, []put{{last[0], 0}, {last[1], 1}, {last[2], 2}, {last[1], 3}}, true,
			map[uint32]int64{last[0]: 0, last[1]: 3, last[2]: 2}, []uint32{last[0] + 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newAddrMap(tc.n)
			for _, p := range tc.puts {
				m.put(p.addr, p.v, tc.replace)
			}
			if tc.name == "wrapped" && (len(m.slots) != 8 || uint32(m.slots[0]>>32) != last[1] || uint32(m.slots[1]>>32) != last[2]) {
				t.Fatalf("slots %#x, want the second and third address in the first two", m.slots)
			}
			for a, v := range tc.want {
				if got, ok := m.find(a); !ok || got != v {
					t.Errorf("find(%#x) = %d, %v; want %d", a, got, ok, v)
				}
			}
			for _, a := range tc.absent {
				if got, ok := m.find(a); ok {
					t.Errorf("find(%#x) = %d, want not found", a, got)
				}
			}
		})
	}
	// Full: n addresses in a map of 4n/3 slots, V2's synthetic ones
	// (region in the low half, the offset's 8-byte slot in the high half).
	const n = 3 << 12
	m := newAddrMap(n)
	if len(m.slots) != 4<<12 {
		t.Fatalf("%d slots for %d addresses, want %d", len(m.slots), n, 4<<12)
	}
	addr := func(i uint32) uint32 { return i%96*8 | i/96<<16 }
	for i := uint32(0); i < n; i++ {
		m.put(addr(i), i, false)
	}
	for i := uint32(0); i < n; i++ {
		if got, ok := m.find(addr(i)); !ok || got != int64(i) {
			t.Fatalf("find(%#x) = %d, %v; want %d", addr(i), got, ok, i)
		}
	}
	if got, ok := m.find(addr(n)); ok {
		t.Errorf("find(%#x) = %d, want not found", addr(n), got)
	}
}
