package extsort

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
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
		err := s.Sorted(nil, func(k Key, off int64, raw []byte) error {
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

// TestSortOrder compares the radix sort with a comparison sort on keys
// whose timestamps share digits, span the whole int64 range, or tie.
func TestSortOrder(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	tests := []struct {
		name string
		ts   func(i int) int64
	}{
		{"one timestamp", func(int) int64 { return 5 }},
		{"narrow", func(int) int64 { return 1e12 + int64(rnd.Intn(1000)) }},
		{"wide and negative", func(int) int64 { return rnd.Int63() - rnd.Int63() }},
		{"extremes", func(i int) int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[i%5] }},
		{"sorted", func(i int) int64 { return int64(i) * 1000 }},
		{"reversed", func(i int) int64 { return -int64(i) }},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 2, 3000, 2*recBlock + 5} {
			recs := make([]rec, n)
			for i := range recs {
				recs[i].key = Key{TS: tt.ts(i), Rank: uint8(rnd.Intn(3)), DurKey: -int64(rnd.Intn(3)), Seq: int64(i)}
			}
			var list recList
			for _, r := range recs {
				list.add(r)
			}
			order, _ := sortOrder(&list, nil)
			want := slices.Clone(recs)
			slices.SortFunc(want, func(a, b rec) int { return a.key.Compare(b.key) })
			if len(order) != n {
				t.Fatalf("%s, %d records: order has %d", tt.name, n, len(order))
			}
			for i, k := range order {
				if recs[k].key != want[i].key {
					t.Fatalf("%s, %d records: position %d has %+v, want %+v", tt.name, n, i, recs[k].key, want[i].key)
				}
			}
		}
	}
}

// TestSorterLargeRecords spills records larger than a run's read buffer
// next to small ones: every record comes back whole.
func TestSorterLargeRecords(t *testing.T) {
	sizes := []int{10, 300 << 10, 5, 1 << 20, 0, 70}
	s := NewSorter(64) // every record spills
	for i, n := range sizes {
		raw := bytes.Repeat([]byte{byte('a' + i)}, n)
		if err := s.Add(Key{TS: int64(len(sizes) - i), Seq: int64(i)}, int64(i), raw); err != nil {
			t.Fatal(err)
		}
	}
	if s.Runs() < 2 {
		t.Fatalf("%d runs, want several", s.Runs())
	}
	var got []int
	err := s.Sorted(nil, func(k Key, off int64, raw []byte) error {
		want := bytes.Repeat([]byte{byte('a' + off)}, sizes[off])
		if !bytes.Equal(raw, want) {
			return fmt.Errorf("record %d: %d bytes, want %d", off, len(raw), len(want))
		}
		got = append(got, int(off))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{5, 4, 3, 2, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestSorterBoundedFanIn spills every record as a run of its own (several
// times MaxFanIn runs): the merge goes in rounds, so that no more than
// MaxFanIn runs are ever open, and the order is still right. Closing stop
// ends a merge early.
func TestSorterBoundedFanIn(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	const n = 5*MaxFanIn + 3
	fill := func() *Sorter {
		s := NewSorter(1) // every record spills
		for i := range n {
			if err := s.Add(Key{TS: int64((i * 7919) % n), Seq: int64(i)}, int64(i), []byte(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	base := fds()
	s := fill()
	if s.Runs() < n-1 {
		t.Fatalf("%d runs, want about %d", s.Runs(), n)
	}
	var ts []int64
	most := 0
	err := s.Sorted(nil, func(k Key, off int64, raw []byte) error {
		if string(raw) != fmt.Sprint(off) {
			return fmt.Errorf("record %d holds %q", off, raw)
		}
		ts = append(ts, k.TS)
		most = max(most, fds()-base)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != n || !slices.IsSorted(ts) {
		t.Errorf("%d records, sorted %v", len(ts), slices.IsSorted(ts))
	}
	if most > MaxFanIn+1 || most < 2 {
		t.Errorf("%d files open while merging, want 2..%d", most, MaxFanIn+1)
	}

	s = fill()
	stop := make(chan struct{})
	close(stop)
	if err := s.Sorted(stop, func(Key, int64, []byte) error { return nil }); !errors.Is(err, ErrStopped) {
		t.Errorf("stopped merge returned %v", err)
	}
	if left := fds() - base; left > 0 {
		t.Errorf("%d files left open", left)
	}
}

// TestWriteRunStops: a run being written gives up once its stop flag is set
// (Close, or Sorted's stop), after at most a few thousand records, instead
// of sorting and writing the whole half budget before an interrupted import
// can exit.
func TestWriteRunStops(t *testing.T) {
	s := NewSorter(1 << 30)
	const n = 50_000
	for i := range n {
		if err := s.Add(Key{TS: int64(n - i), Seq: int64(i)}, int64(i), []byte(`{"ph":"X"}`)); err != nil {
			t.Fatal(err)
		}
	}
	for _, stop := range []bool{false, true} {
		f, err := os.CreateTemp(t.TempDir(), "run-*")
		if err != nil {
			t.Fatal(err)
		}
		var flag atomic.Bool
		flag.Store(stop)
		_, err = writeRun(f, s.recs, s.chunks, nil, &flag)
		f.Close()
		info, _ := os.Stat(f.Name())
		switch {
		case stop && !errors.Is(err, ErrStopped):
			t.Errorf("stopped: error %v, want ErrStopped", err)
		case stop && info.Size() != 0:
			t.Errorf("stopped: %d bytes written", info.Size())
		case !stop && (err != nil || info.Size() < n*10):
			t.Errorf("not stopped: error %v, %d bytes written", err, info.Size())
		}
	}
	s.Close()
}

// TestSortedStoppedDuringSpill: closing stop while the last run is being
// written ends Sorted with ErrStopped, and no temporary file stays.
func TestSortedStoppedDuringSpill(t *testing.T) {
	s := NewSorter(256 << 10)
	for i := range 100_000 {
		if err := s.Add(Key{TS: int64(i % 977), Seq: int64(i)}, int64(i), []byte(`{"ph":"X","ts":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	s.spill() // the last run is being written, or was
	dir := s.dir
	stop := make(chan struct{})
	close(stop)
	calls := 0
	err := s.Sorted(stop, func(Key, int64, []byte) error { calls++; return nil })
	if !errors.Is(err, ErrStopped) {
		t.Errorf("error %v, want ErrStopped", err)
	}
	if calls > 4096 {
		t.Errorf("%d records handed on after the stop", calls)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary folder %s left: %v", dir, err)
	}
}

// TestStopOnEndsAdd: once StopOn's channel is closed, the runs being written
// stop and Add fails with ErrStopped within two spills, instead of waiting
// for each run to be sorted and written (an interrupted first pass).
func TestStopOnEndsAdd(t *testing.T) {
	s := NewSorter(64 << 10)
	defer s.Close()
	stop := make(chan struct{})
	s.StopOn(stop)
	add := func(i int) error {
		return s.Add(Key{TS: int64(i % 977), Seq: int64(i)}, int64(i), []byte(`{"ph":"X","ts":1}`))
	}
	i := 0
	for ; s.Runs() < 2; i++ {
		if err := add(i); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	for !s.closing.Load() {
		runtime.Gosched()
	}
	runs := s.Runs()
	var err error
	for ; err == nil && s.Runs() <= runs+3; i++ {
		err = add(i)
	}
	if !errors.Is(err, ErrStopped) {
		t.Errorf("Add after the stop: %v (%d runs, %d before the stop), want ErrStopped", err, s.Runs(), runs)
	}
}
