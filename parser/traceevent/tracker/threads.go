package tracker

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// synthetic is the first number given to a pid or tid that is a non-numeric
// string (docs/format/traceevent.md#processes-and-threads): 4294967296 + k, k in order of first appearance, one map
// for pids and tids.
const synthetic = 4294967296

// Process is one row of the process table (ipid = position).
type Process struct {
	Pid  int64
	str  string // the string pid, when it was one
	name string // process_name metadata
	// hasName tells whether process_name metadata named it.
	hasName bool
}

// Thread is one row of the thread table (itid = position).
type Thread struct {
	Tid     int64
	Ipid    int
	str     string // the string tid, when it was one
	name    string // thread_name metadata
	hasName bool
}

// Threads maps event pids and tids to process and thread rows in processing
// order, as the reference does: row 0 of each table is the placeholder
// (pid/tid 0, "swapper"); a new process gets its main thread (tid = pid) at
// once; a thread is identified by (pid, tid).
type Threads struct {
	Processes []Process
	Threads   []Thread
	max       int // the most threads kept (0: no bound); see Lookup

	stats Stats
	strs  map[string]int64
	procs map[int64]int
	thrs  map[[2]int64]int
	// last is the pid and tid numbers Lookup resolved last and their rows:
	// most events are of the same thread as the one before.
	last struct {
		ok         bool
		pid, tid   int64
		ipid, itid int
	}
}

// NewThreads returns the registry with the placeholder rows, keeping at most
// maxThreads threads (0: no bound; see Lookup).
func NewThreads(st Stats, maxThreads int) *Threads {
	t := &Threads{stats: st, max: maxThreads, strs: map[string]int64{}, procs: map[int64]int{0: 0}, thrs: map[[2]int64]int{{0, 0}: 0}}
	t.Processes = []Process{{Pid: 0, name: "swapper"}}
	t.Threads = []Thread{{Tid: 0, Ipid: 0, name: "swapper"}}
	return t
}

// number resolves an Ident to its number, mapping strings to synthetic ones.
// fresh tells that the string was not seen before.
func (t *Threads) number(id event.Ident) (n int64, str string, fresh bool) {
	if !id.IsStr {
		return id.Num, "", false
	}
	n, ok := t.strs[id.Str]
	if !ok {
		n = synthetic + int64(len(t.strs))
		t.strs[id.Str] = n
	}
	return n, id.Str, !ok
}

// Lookup returns the ipid and itid of an event's pid and tid, creating rows as
// needed: a missing pid is 0; a missing tid, or tid 0 with a pid other than 0,
// is the pid (the main thread). A pid or tid string not seen before counts
// json_pid_tid received. With max threads already there, an event of a new
// process or thread gets none: ok is false, and it counts json_pid_tid
// data_lost (each thread costs memory until the end of the run).
func (t *Threads) Lookup(ev *event.Event) (ipid, itid int, ok bool) {
	pid, tid := ev.Pid, ev.Tid
	var p int64
	var pstr string
	var fresh bool
	if pid.Present {
		if p, pstr, fresh = t.number(pid); fresh {
			t.stats.Add(stat.JSONPidTid, stat.Received, 1, ev.Offset)
		}
	}
	if l := &t.last; l.ok && p == l.pid && !tid.IsStr {
		th := tid.Num
		if !tid.Present || (th == 0 && p != 0) {
			th = p
		}
		if th == l.tid {
			return l.ipid, l.itid, true
		}
	}
	ipid, known := t.procs[p]
	if !known {
		if t.full() {
			t.stats.Add(stat.JSONPidTid, stat.DataLost, 1, ev.Offset)
			return 0, 0, false
		}
		ipid = t.process(p, pstr)
	}
	var th int64
	var tstr string
	if tid.Present {
		if th, tstr, fresh = t.number(tid); fresh {
			t.stats.Add(stat.JSONPidTid, stat.Received, 1, ev.Offset)
		}
	}
	if !tid.Present || (th == 0 && p != 0) {
		th, tstr = p, ""
	}
	itid, known = t.thrs[[2]int64{p, th}]
	if !known {
		if t.full() {
			t.stats.Add(stat.JSONPidTid, stat.DataLost, 1, ev.Offset)
			return 0, 0, false
		}
		itid = t.thread(ipid, p, th, tstr)
	}
	t.last.ok, t.last.pid, t.last.tid, t.last.ipid, t.last.itid = true, p, th, ipid, itid
	return ipid, itid, true
}

// full reports whether max threads are there.
func (t *Threads) full() bool { return t.max > 0 && len(t.Threads) >= t.max }

func (t *Threads) process(pid int64, str string) int {
	if ipid, ok := t.procs[pid]; ok {
		return ipid
	}
	ipid := len(t.Processes)
	t.Processes = append(t.Processes, Process{Pid: pid, str: str})
	t.procs[pid] = ipid
	t.thread(ipid, pid, pid, str) // its main thread
	return ipid
}

func (t *Threads) thread(ipid int, pid, tid int64, str string) int {
	key := [2]int64{pid, tid}
	if itid, ok := t.thrs[key]; ok {
		return itid
	}
	itid := len(t.Threads)
	t.Threads = append(t.Threads, Thread{Tid: tid, Ipid: ipid, str: str})
	t.thrs[key] = itid
	return itid
}

// Metadata applies an M event's effect on names (docs/format/traceevent.md#metadata): process_name and
// thread_name set the name of the event's process or thread. It reports
// whether the metadata name is one the importer knows, and whether its
// argument was usable.
func (t *Threads) Metadata(ipid, itid int, ev *event.Event) (known, usable bool) {
	switch ev.Name {
	case "process_name", "thread_name":
		name, ok := argString(ev.Args, "name")
		if !ok {
			return true, false
		}
		if ev.Name == "process_name" {
			t.Processes[ipid].name, t.Processes[ipid].hasName = name, true
		} else {
			t.Threads[itid].name, t.Threads[itid].hasName = name, true
		}
		return true, true
	case "process_labels", "process_sort_index", "thread_sort_index", "process_uptime_seconds",
		"num_cpus", "typeNames", "TraceConfig", "stackFrames":
		return true, true
	}
	return false, true
}

// argString returns the string member key of a raw args object.
func argString(args []byte, key string) (string, bool) {
	if args == nil {
		return "", false
	}
	list, err := event.FlattenArgs(args)
	if err != nil {
		return "", false
	}
	for _, a := range list {
		if a.Key == key && a.Type == event.ArgString && !a.Null {
			return a.Str, true
		}
	}
	return "", false
}

// ProcessName is the name a process row gets (docs/format/traceevent.md#names): its last
// process_name, else its string pid, else its main thread's thread_name.
func (t *Threads) ProcessName(ipid int) (string, bool) {
	p := t.Processes[ipid]
	switch {
	case p.hasName || ipid == 0:
		return p.name, true
	case p.str != "":
		return p.str, true
	}
	if itid, ok := t.thrs[[2]int64{p.Pid, p.Pid}]; ok && t.Threads[itid].hasName {
		return t.Threads[itid].name, true
	}
	return "", false
}

// ThreadName is the name a thread row gets (docs/format/traceevent.md#names): its last thread_name,
// else for the main thread the process name, else its string tid.
func (t *Threads) ThreadName(itid int) (string, bool) {
	th := t.Threads[itid]
	if th.hasName || itid == 0 {
		return th.name, true
	}
	p := t.Processes[th.Ipid]
	if th.Tid == p.Pid && itid != 0 {
		if p.hasName {
			return p.name, true
		}
		if p.str != "" {
			return p.str, true
		}
	}
	if th.str != "" {
		return th.str, true
	}
	return "", false
}

// MainThread returns the itid of the main thread (tid = pid) of process ipid.
func (t *Threads) MainThread(ipid int) int {
	p := t.Processes[ipid]
	return t.thrs[[2]int64{p.Pid, p.Pid}]
}

// ByTid returns the thread with tid that has the lowest itid, creating a
// process with pid = tid and its main thread when none exists (docs/format/traceevent.md#samples-and-stack-frames, for
// the top-level samples, which carry only a tid).
func (t *Threads) ByTid(tid event.Ident) int {
	n, str := int64(0), ""
	if tid.Present {
		n, str, _ = t.number(tid) // not counted: see Lookup
	}
	for itid, th := range t.Threads {
		if itid > 0 && th.Tid == n {
			return itid
		}
	}
	ipid := t.process(n, str)
	return t.MainThread(ipid)
}
