package traceevent

import (
	"fmt"
	"math/rand"
	"os"
	"slices"
	"testing"
)

func TestSorterSpillsAndMerges(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	var keys []Key
	for i := range 5000 {
		keys = append(keys, Key{TS: int64(rnd.Intn(300)), Rank: uint8(rnd.Intn(3)), DurKey: -int64(rnd.Intn(4)), Seq: int64(i)})
	}
	for _, budget := range []int64{1 << 30, 4096} { // all in memory; many runs
		s := NewSorter(budget)
		for _, k := range keys {
			if err := s.Add(k, k.Seq*10, []byte(fmt.Sprintf(`{"seq":%d}`, k.Seq))); err != nil {
				t.Fatal(err)
			}
		}
		runs, dir := s.Runs(), s.dir
		var got []Key
		err := s.Sorted(func(k Key, off int64, raw []byte) error {
			if off != k.Seq*10 || string(raw) != fmt.Sprintf(`{"seq":%d}`, k.Seq) {
				return fmt.Errorf("record %+v carries offset %d and %q", k, off, raw)
			}
			got = append(got, k)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, func(a, b Key) int {
			if a.Less(b) {
				return -1
			}
			return 1
		})
		if !slices.Equal(got, want) {
			t.Errorf("budget %d: order differs", budget)
		}
		if budget == 4096 && runs < 10 {
			t.Errorf("budget %d: only %d runs", budget, runs)
		}
		if dir != "" {
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("temporary directory %s left behind", dir)
			}
		}
	}
}
