package rawheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByAddr compares sortByAddr with a comparison sort by address,
// then seq, on pairs made in seq order: short and long inputs, addresses
// that repeat, share their high bytes, or need all 64 bits.
func TestSortByAddr(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		addr func() uint64
	}{
		{"empty", 0, nil},
		{"one", 1, func() uint64 { return 0x7F00_0000_1000 }},
		{"short, random", 1000, func() uint64 { return rng.Uint64() &^ 7 }},
		{"a heap's addresses", 200_000, func() uint64 { return 0x7F12_0000_0000 + rng.Uint64N(1<<30)&^7 }},
		{"repeated", 50_000, func() uint64 { return 0x4000 + 8*rng.Uint64N(500) }},
		{"all 64 bits", 20_000, rng.Uint64},
		{"all equal", 10_000, func() uint64 { return 42 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]pair, tc.n)
			for i := range p {
				p[i] = pair{tc.addr(), uint32(i)}
			}
			want := slices.Clone(p)
			slices.SortFunc(want, func(a, b pair) int {
				if a.addr != b.addr {
					if a.addr < b.addr {
						return -1
					}
					return 1
				}
				return int(a.seq) - int(b.seq)
			})
			if got := sortByAddr(p); !slices.Equal(got, want) {
				t.Errorf("sortByAddr differs from the comparison sort")
			}
		})
	}
}

// TestSeqRanks: the rank of every seq up to n is the number of the set's
// seqs below it.
func TestSeqRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []uint32{0, 1, 63, 64, 65, 1000, 100_000} {
		var p []pair
		var sorted []uint32
		for s := range n {
			if rng.IntN(3) == 0 {
				p = append(p, pair{uint64(rng.Uint32()), s})
				sorted = append(sorted, s)
			}
		}
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		r := newSeqRanks(n, p)
		for s := range n + 1 {
			want, _ := slices.BinarySearch(sorted, s)
			if got := r.rank(s); got != uint32(want) {
				t.Fatalf("n %d: rank(%d) = %d, want %d", n, s, got, want)
			}
		}
	}
}
