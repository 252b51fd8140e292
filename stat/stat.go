// Package stat counts what a run received, dropped or could not use, in the
// reference's `stat` table layout (event name × stat type), and prints warnings.
// Events and types are typed constants declared in one table (events.go), in
// the manner of Perfetto's stats.h, so that a misspelt name does not compile.
//
// It must not import anything of the module, nor know what an input format
// means: parsers choose the cell, stat counts it.
package stat

import (
	"fmt"
	"io"
	"sync"
)

// Type is a stat_type: what happened to the items counted.
type Type uint8

// Stat types, in the reference's order.
const (
	Received Type = iota
	DataLost
	NotMatch
	NotSupported
	InvalidData
	numTypes
)

var typeNames = [numTypes]string{"received", "data_lost", "not_match", "not_supported", "invalid_data"}

// String returns the type's stat_type text.
func (t Type) String() string { return typeNames[t] }

// Severity returns the reference's severity text of the type.
func (t Type) Severity() string {
	switch t {
	case Received, NotMatch:
		return "info"
	case NotSupported:
		return "warn"
	}
	return "error"
}

// Types lists the stat types in table order.
func Types() []Type { return []Type{Received, DataLost, NotMatch, NotSupported, InvalidData} }

// Event is an event_name of the stat table: a kind of input item. The
// constants are in events.go.
type Event uint16

// String returns the event's event_name text.
func (e Event) String() string { return events[e].name }

// Description says what the event counts.
func (e Event) Description() string { return events[e].desc }

// IsJSON reports whether e is one of the Trace Event rows.
func (e Event) IsJSON() bool { return e >= firstJSON && e <= lastJSON }

// Events returns every event in table order.
func Events() []Event {
	out := make([]Event, numEvents)
	for i := range out {
		out[i] = Event(i)
	}
	return out
}

// Log counts stat events and writes warnings. It is safe for concurrent use.
// Each distinct (event, type) prints at most MaxWarnings lines; the rest are only
// counted, and Summary reports how many were suppressed.
type Log struct {
	mu          sync.Mutex
	counts      [numEvents][numTypes]int64
	printed     [numEvents][numTypes]int
	w           io.Writer
	json        bool
	MaxWarnings int
}

// UseJSON puts the Trace Event rows (the json_* events) in the table, right after the
// reference's rows, zero counts included.
func (l *Log) UseJSON() {
	l.mu.Lock()
	l.json = true
	l.mu.Unlock()
}

// NewLog returns a Log that prints warnings to w (nil: print nothing).
func NewLog(w io.Writer) *Log {
	return &Log{w: w, MaxWarnings: 5}
}

// Add adds n to the counter of (event, typ).
func (l *Log) Add(event Event, typ Type, n int64) {
	l.mu.Lock()
	l.counts[event][typ] += n
	l.mu.Unlock()
}

// Warn counts one (event, typ) and prints "tracestreamer: warning: <where>: <msg>".
func (l *Log) Warn(event Event, typ Type, where, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[event][typ]++
	if l.w == nil {
		return
	}
	l.printed[event][typ]++
	if l.printed[event][typ] <= l.MaxWarnings {
		fmt.Fprintf(l.w, "tracestreamer: warning: %s: %s\n", where, fmt.Sprintf(format, args...))
	}
}

// Report adds n to the counter of (event, typ) and prints
// "tracestreamer: warning: <where>: <msg>" once for it.
func (l *Log) Report(event Event, typ Type, n int64, where, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[event][typ] += n
	if l.w == nil {
		return
	}
	l.printed[event][typ]++
	if l.printed[event][typ] <= l.MaxWarnings {
		fmt.Fprintf(l.w, "tracestreamer: warning: %s: %s\n", where, msg)
	}
}

// Count returns the counter of (event, typ).
func (l *Log) Count(event Event, typ Type) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[event][typ]
}

// Problems returns the total of all data_lost, not_match, not_supported and
// invalid_data counters.
func (l *Log) Problems() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for e := range l.counts {
		for t, c := range l.counts[e] {
			if Type(t) != Received {
				n += c
			}
		}
	}
	return n
}

// Summary prints how many warnings were suppressed per kind.
func (l *Log) Summary() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return
	}
	for e := range l.printed {
		for t, n := range l.printed[e] {
			if n > l.MaxWarnings {
				fmt.Fprintf(l.w, "tracestreamer: warning: %d more %s/%s warnings not shown (see table stat)\n",
					n-l.MaxWarnings, Event(e), Type(t))
			}
		}
	}
}

// Row is one row of the stat table.
type Row struct {
	Event, Type, Severity string
	Count                 int64
}

// Rows returns the stat table: the reference's 98 events × 5 types, then the
// Trace Event rows if UseJSON was called, then tracestreamer's own events
// (from rawheap on, each only when it counted something).
func (l *Log) Rows() []Row {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Row
	for e := range Event(numEvents) {
		if e.IsJSON() && !l.json || e >= firstOptional && l.counts[e] == [numTypes]int64{} {
			continue
		}
		for _, t := range Types() {
			out = append(out, Row{Event: e.String(), Type: t.String(), Severity: t.Severity(), Count: l.counts[e][t]})
		}
	}
	return out
}
