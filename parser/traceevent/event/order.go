package event

import (
	"strings"

	"tracestreamer/parser/traceevent/extsort"
)

type threadKey struct {
	pid, tid       int64
	pidStr, tidStr string
}

func keyOf(ev *Event) threadKey {
	k := threadKey{pid: ev.Pid.Num, pidStr: ev.Pid.Str, tid: ev.Tid.Num, tidStr: ev.Tid.Str}
	if !ev.Tid.Present || (!ev.Tid.IsStr && ev.Tid.Num == 0 && (ev.Pid.IsStr || ev.Pid.Num != 0)) {
		k.tid, k.tidStr = k.pid, k.pidStr
	}
	return k
}

type glueState struct {
	ts    int64
	names []string // names of the B events at ts not yet followed by an E ("" = no name)
}

// Orderer computes the sort keys of events in file order. It remembers, per
// thread, the B events at the thread's current timestamp, so that an E at the
// same timestamp closing the latest of them stays right after it ("glued"):
// zero-length B/E pairs then survive the E-first rule.
type Orderer struct {
	threads map[threadKey]*glueState
}

// NewOrderer returns an Orderer.
func NewOrderer() *Orderer { return &Orderer{threads: map[threadKey]*glueState{}} }

// Key returns the sort key of ev; events must be given in file order.
func (o *Orderer) Key(ev *Event) extsort.Key {
	k := extsort.Key{TS: ev.TS.NS, Rank: 2, Seq: ev.Seq}
	if !ev.TS.Valid {
		k.TS = 0
	}
	switch ev.Ph {
	case 'X':
		k.Rank = 1
		if ev.Dur.Valid {
			k.DurKey = -ev.Dur.NS
		}
	case 'B':
		if ev.TS.Valid {
			tk := keyOf(ev)
			st := o.threads[tk]
			if st == nil {
				st = &glueState{}
				// The event's strings may be borrowed (Decoder.BorrowStrings).
				tk.pidStr, tk.tidStr = strings.Clone(tk.pidStr), strings.Clone(tk.tidStr)
				o.threads[tk] = st
			}
			if len(st.names) == 0 || st.ts != ev.TS.NS {
				st.ts, st.names = ev.TS.NS, st.names[:0]
			}
			st.names = append(st.names, strings.Clone(ev.Name))
		}
	case 'E':
		k.Rank = 0
		if st := o.threads[keyOf(ev)]; st != nil && ev.TS.Valid && len(st.names) > 0 && st.ts == ev.TS.NS {
			if last := st.names[len(st.names)-1]; !ev.HasName || last == "" || last == ev.Name {
				st.names = st.names[:len(st.names)-1]
				k.Rank = 2 // glued: stays right after its B
				if len(st.names) == 0 {
					delete(o.threads, keyOf(ev)) // nothing left to glue: forget the thread
				}
			}
		}
	}
	return k
}
