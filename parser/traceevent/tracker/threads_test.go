package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestThreads(t *testing.T) {
	n := func(v int64) event.Ident { return event.Ident{Num: v, Present: true} }
	s := func(v string) event.Ident { return event.Ident{Str: v, IsStr: true, Present: true} }
	none := event.Ident{}
	st := cells{}
	th := NewThreads(st, 0)
	type pair struct{ ipid, itid int }
	var got []pair
	for _, ev := range [][2]event.Ident{
		{n(10), n(11)},       // process 10 (ipid 1) + main thread 10 (itid 1), thread 11 (itid 2)
		{n(10), n(11)},       // the same thread again (the last one Lookup found)
		{n(10), n(0)},        // tid 0 with pid ≠ 0: the main thread
		{n(10), none},        // missing tid: the main thread
		{n(10), n(10)},       // the main thread by its number
		{s("gpu"), s("gpu")}, // string pid: synthetic number, its main thread
		{s("gpu"), s("io")},  // a second string: the next synthetic number
		{s("gpu"), s("io")},  // the same again
		{none, n(7)},         // missing pid: process 0
		{n(20), n(11)},       // same tid in another process: another thread
		{n(10), n(11)},       // back to the first thread
	} {
		ipid, itid, _ := th.Lookup(&event.Event{Pid: ev[0], Tid: ev[1]})
		got = append(got, pair{ipid, itid})
	}
	want := []pair{{1, 2}, {1, 2}, {1, 1}, {1, 1}, {1, 1}, {2, 3}, {2, 4}, {2, 4}, {0, 5}, {3, 7}, {1, 2}}
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
	if !reflect.DeepEqual(pids, []int64{0, 10, synthetic, 20}) ||
		!reflect.DeepEqual(tids, []int64{0, 10, 11, synthetic, synthetic + 1, 7, 20, 11}) || st["json_pid_tid/received"] != 2 {
		t.Errorf("pids %v tids %v counts %v", pids, tids, st)
	}
	if th.Threads[4].str != "io" || th.Processes[2].str != "gpu" || th.Threads[4].Ipid != 2 {
		t.Errorf("threads %+v", th.Threads)
	}
}

func TestNames(t *testing.T) {
	th := NewThreads(cells{}, 0)
	dec := func(s string) *event.Event {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(s)})
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	apply := func(s string) (bool, bool) {
		ev := dec(s)
		ipid, itid, _ := th.Lookup(ev)
		return th.Metadata(ipid, itid, ev)
	}
	apply(`{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"worker"}}`)
	apply(`{"ph":"M","pid":1,"name":"process_name","args":{"name":"Browser"}}`)
	apply(`{"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"CrGpuMain"}}`)
	th.Lookup(&event.Event{Pid: event.Ident{Str: "io", IsStr: true, Present: true}, Tid: event.Ident{Num: 9, Present: true}})
	if known, usable := apply(`{"ph":"M","pid":1,"name":"thread_name","args":{"name":5}}`); !known || usable {
		t.Errorf("bad thread_name: known %v usable %v", known, usable)
	}
	if known, _ := apply(`{"ph":"M","pid":1,"name":"weird"}`); known {
		t.Error("unknown metadata name accepted")
	}
	var procs, threads []string
	for i := range th.Processes {
		n, _ := th.ProcessName(i)
		procs = append(procs, n)
	}
	for i := range th.Threads {
		n, _ := th.ThreadName(i)
		threads = append(threads, n)
	}
	// Processes: swapper, 1 (named), 3 (named after its main thread), "io".
	if want := []string{"swapper", "Browser", "CrGpuMain", "io"}; !reflect.DeepEqual(procs, want) {
		t.Errorf("process names %q, want %q", procs, want)
	}
	// Threads: swapper, 1's main (process name), 2, 3's main, io's main, 9 (no name).
	if want := []string{"swapper", "Browser", "worker", "CrGpuMain", "io", ""}; !reflect.DeepEqual(threads, want) {
		t.Errorf("thread names %q, want %q", threads, want)
	}
}

// TestThreadLimit: with max threads there, events of new threads and
// processes get none and are counted; known ones still resolve.
func TestThreadLimit(t *testing.T) {
	st := cells{}
	th := NewThreads(st, 3) // the placeholder, process 10's main thread, thread 11
	ev := func(pid, tid int64) *event.Event {
		return &event.Event{Pid: event.Ident{Num: pid, Present: true}, Tid: event.Ident{Num: tid, Present: true}}
	}
	var got []string
	for _, e := range []*event.Event{ev(10, 11), ev(10, 12), ev(20, 20), ev(10, 11), ev(10, 10)} {
		ipid, itid, ok := th.Lookup(e)
		got = append(got, fmt.Sprintf("%d/%d/%v", ipid, itid, ok))
	}
	if want := []string{"1/2/true", "0/0/false", "0/0/false", "1/2/true", "1/1/true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lookups %v, want %v", got, want)
	}
	if !st.equal(cells{"json_pid_tid/data_lost": 2}) || len(th.Threads) != 3 {
		t.Errorf("counts %v, %d threads", st, len(th.Threads))
	}
}
