package rawheap

import "testing"

// TestAddrMap checks V2's address map: the first number of an address kept
// (table indexes) or the last (names), address 0 and the largest, a map
// filled to three quarters whose probes wrap past its last slot, and
// addresses it does not hold.
func TestAddrMap(t *testing.T) {
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newAddrMap(tc.n)
			for _, p := range tc.puts {
				m.put(p.addr, p.v, tc.replace)
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
	// Three addresses whose probes start at the last of 8 slots: the
	// second and third wrap to the first two.
	m8 := newAddrMap(6)
	var last []uint32
	for a := uint32(0); len(last) < 3; a += 8 {
		if m8.slot(a) == 7 {
			last = append(last, a)
		}
	}
	for i, a := range last {
		m8.put(a, uint32(i), false)
	}
	m8.put(last[1], 3, true)
	if len(m8.slots) != 8 || uint32(m8.slots[0]>>32) != last[1] || uint32(m8.slots[1]>>32) != last[2] {
		t.Fatalf("slots %#x, want the second and third address in the first two", m8.slots)
	}
	for i, want := range []int64{0, 3, 2} {
		if got, ok := m8.find(last[i]); !ok || got != want {
			t.Errorf("wrapped: find(%#x) = %d, %v; want %d", last[i], got, ok, want)
		}
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

// TestAddrMapCollisions: addresses that a fixed multiplier would put in the
// first 64 of 64 K slots (with 0x9E3779B97F4A7C15, the one addrMap had
// first: one run of 32 768 occupied slots, each lookup walking it; 1.9 s
// for these, against 1 ms for V2's addresses) spread over the map, whose
// multiplier is drawn per map.
func TestAddrMapCollisions(t *testing.T) {
	const n = 32768
	m := newAddrMap(n)
	if len(m.slots) != 1<<16 {
		t.Fatalf("%d slots, want %d", len(m.slots), 1<<16)
	}
	var addrs []uint32
	for a := uint32(0); len(addrs) < n; a++ {
		if uint64(a)*0x9E3779B97F4A7C15>>48 < 64 {
			addrs = append(addrs, a)
		}
	}
	for i, a := range addrs {
		m.put(a, uint32(i), false)
	}
	longest, run := 0, 0
	for _, x := range append(m.slots, m.slots...) { // a run may wrap
		if x == 0 {
			run = 0
			continue
		}
		run++
		longest = max(longest, min(run, len(m.slots)))
	}
	// At half full, the longest run of a random placement is some tens.
	if longest > 1000 {
		t.Errorf("longest run of occupied slots %d for %d addresses in %d slots", longest, n, len(m.slots))
	}
	for i, a := range addrs {
		if got, ok := m.find(a); !ok || got != int64(i) {
			t.Fatalf("find(%#x) = %d, %v; want %d", a, got, ok, i)
		}
	}
}
