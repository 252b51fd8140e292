package tracker

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// InstantScope classifies an instant event (i, I, R) by its s field (spec
// docs/format/traceevent.md#thread-instants, docs/format/traceevent.md#process-and-global-instants): 't' for thread scope (also when s is missing), 'p' for
// process, 'g' for global. known is false for any other s, which is then
// treated as thread scope and counted not_supported.
func InstantScope(ev *event.Event) (scope byte, known bool) {
	switch ev.S {
	case "", "t":
		return 't', true
	case "p":
		return 'p', true
	case "g":
		return 'g', true
	}
	return 't', false
}

// Instant is one process- or global-scoped instant: an instant row plus its
// instant_extra row (docs/format/traceevent.md#process-and-global-instants). Thread-scoped instants are slices instead.
type Instant struct {
	RowID   int // 1-based rowid of the instant row
	TS      int64
	Name    string
	HasName bool
	Scope   byte // 'p' or 'g'
	Ipid    int  // the instant's ref for 'p'; the emitting process for 'g'
	Itid    int  // emitting thread
	Cat     string
	HasCat  bool
	Args    []byte // raw args object (nil: none)
	SF      []byte // raw sf value (nil: none)
}

// Ref is the instant row's ref column: the ipid for a process-scoped instant,
// no value (ok false) for a global one.
func (in *Instant) Ref() (ref int, ok bool) { return in.Ipid, in.Scope == 'p' }

// RefType is the instant row's ref_type column.
func (in *Instant) RefType() string {
	if in.Scope == 'p' {
		return "ipid"
	}
	return "global"
}

// Instants collects process- and global-scoped instants in processing order.
type Instants struct {
	rows made[Instant]
}

// Take hands over the instants made since the last call (valid until the
// next event) and forgets them.
func (is *Instants) Take() []Instant { return is.rows.take() }

// Add handles an i, I or R event emitted by (ipid, itid). It returns true when
// the event was taken as a process or global instant; false means the caller
// makes it a thread-scoped zero-length slice (or drops it for a bad ts). An
// unknown scope is the caller's to count (InstantScope).
func (is *Instants) Add(ipid, itid int, ev *event.Event) bool {
	if !ev.TS.Valid {
		return false
	}
	scope, _ := InstantScope(ev)
	if scope == 't' {
		return false
	}
	is.rows.add(Instant{
		RowID: is.rows.next() + 1, TS: ev.TS.NS, Name: ev.Name, HasName: ev.HasName,
		Scope: scope, Ipid: ipid, Itid: itid, Cat: ev.Cat, HasCat: ev.HasCat,
		Args: ev.Args, SF: ev.SF,
	})
	return true
}

// MetadataEvent is one metadata_event row (docs/format/traceevent.md#metadata): every M event,
// verbatim.
type MetadataEvent struct {
	ID         int
	TS         int64
	HasTS      bool
	Ipid, Itid int
	Name       string
	HasName    bool
	Args       []byte // raw args object (nil: none)
}

// Metadata records M events and applies their effect on process and thread
// names through Threads.
type Metadata struct {
	rows  made[MetadataEvent]
	stats Stats
}

// Take hands over the rows made since the last call (valid until the next
// event) and forgets them.
func (m *Metadata) Take() []MetadataEvent { return m.rows.take() }

// NewMetadata returns an empty recorder.
func NewMetadata(st Stats) *Metadata { return &Metadata{stats: st} }

// Add records an M event of (ipid, itid) and applies it to t.
func (m *Metadata) Add(t *Threads, ipid, itid int, ev *event.Event) {
	m.rows.add(MetadataEvent{
		ID: m.rows.next(), TS: ev.TS.NS, HasTS: ev.TS.Valid, Ipid: ipid, Itid: itid,
		Name: ev.Name, HasName: ev.HasName, Args: ev.Args,
	})
	known, usable := t.Metadata(ipid, itid, ev)
	switch {
	case !known:
		m.stats.Add(stat.JSONMetadata, stat.NotSupported, 1, ev.Offset) // unknown name: the row is kept
	case !usable:
		m.stats.Add(stat.JSONMetadata, stat.InvalidData, 1, ev.Offset) // known name, unusable argument
	}
}
