package traceevent

import (
	"reflect"
	"testing"
)

func TestThreads(t *testing.T) {
	n := func(v int64) Ident { return Ident{Num: v, Present: true} }
	s := func(v string) Ident { return Ident{Str: v, IsStr: true, Present: true} }
	none := Ident{}
	th := NewThreads()
	type pair struct{ ipid, itid int }
	var got []pair
	for _, ev := range [][2]Ident{
		{n(10), n(11)},       // process 10 (ipid 1) + main thread 10 (itid 1), thread 11 (itid 2)
		{n(10), n(0)},        // tid 0 with pid ≠ 0: the main thread
		{n(10), none},        // missing tid: the main thread
		{s("gpu"), s("gpu")}, // string pid: synthetic number, its main thread
		{s("gpu"), s("io")},  // a second string: the next synthetic number
		{none, n(7)},         // missing pid: process 0
		{n(20), n(11)},       // same tid in another process: another thread
	} {
		ipid, itid := th.Lookup(ev[0], ev[1])
		got = append(got, pair{ipid, itid})
	}
	want := []pair{{1, 2}, {1, 1}, {1, 1}, {2, 3}, {2, 4}, {0, 5}, {3, 7}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lookups %v, want %v", got, want)
	}
	var pids, tids []int64
	for _, p := range th.Processes {
		pids = append(pids, p.Pid)
	}
	for _, x := range th.Threads {
		tids = append(tids, x.Tid)
	}
	if !reflect.DeepEqual(pids, []int64{0, 10, Synthetic, 20}) ||
		!reflect.DeepEqual(tids, []int64{0, 10, 11, Synthetic, Synthetic + 1, 7, 20, 11}) || th.StringIDs != 2 {
		t.Errorf("pids %v tids %v strings %d", pids, tids, th.StringIDs)
	}
	if th.Threads[4].Str != "io" || th.Processes[2].Str != "gpu" || th.Threads[4].Ipid != 2 {
		t.Errorf("threads %+v", th.Threads)
	}
}
