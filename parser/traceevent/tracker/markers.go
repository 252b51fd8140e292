package tracker

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// ClockSyncMarker is one clock_sync_marker row (docs/format/traceevent.md#clock-sync).
type ClockSyncMarker struct {
	ID       int
	SyncID   string
	TS       int64
	IssueTS  int64
	HasIssue bool
	Itid     int
	Source   string // "c" or "legacy_async"
}

// ContextEvent is one context_event row (docs/format/traceevent.md#contexts-and-linked-ids).
type ContextEvent struct {
	ID            int
	TS            int64
	Itid          int
	Phase         string // "enter" or "leave"
	Cat, Name     string
	Scope         string
	IDKind, RawID string
}

// LinkedID is one linked_id row (docs/format/traceevent.md#contexts-and-linked-ids): recorded, not applied.
type LinkedID struct {
	ID               int
	TS               int64
	Itid             int
	Cat, Name, Scope string
	IDKind, RawID    string
	LinkedRawID      string
}

type contextKey struct {
	itid                  int
	name, scope, kind, id string
}

// Markers collects clock sync markers, context enter/leave events and linked
// ids.
type Markers struct {
	clockSyncs made[ClockSyncMarker]
	contexts   made[ContextEvent]
	linked     made[LinkedID]
	stats      Stats
	entered    map[contextKey]int
}

// MarkerRows are the rows of the markers made since the last Take.
type MarkerRows struct {
	ClockSyncs []ClockSyncMarker
	Contexts   []ContextEvent
	Linked     []LinkedID
}

// Pending reports whether Take has rows to hand over (see Flows.Pending).
func (m *Markers) Pending() bool {
	return m.clockSyncs.pending() || m.contexts.pending() || m.linked.pending()
}

// Take hands over the rows made since the last call (valid until the next
// event) and forgets them.
func (m *Markers) Take() MarkerRows {
	return MarkerRows{ClockSyncs: m.clockSyncs.take(), Contexts: m.contexts.take(), Linked: m.linked.take()}
}

// NewMarkers returns an empty collector.
func NewMarkers(st Stats) *Markers { return &Markers{stats: st, entered: map[contextKey]int{}} }

// ClockSync handles a c event. It reports false for one without
// args.sync_id, which is dropped.
func (m *Markers) ClockSync(itid int, ev *event.Event) bool {
	id, ok := argString(ev.Args, "sync_id")
	if !ok {
		return false
	}
	c := ClockSyncMarker{ID: m.clockSyncs.next(), SyncID: id, TS: ev.TS.NS, Itid: itid, Source: "c"}
	if raw, ok := event.ArgRaw(ev.Args, "issue_ts"); ok {
		if text, ok := event.NumberText(raw); ok {
			if v, ok := event.ScaleText(string(text)); ok {
				c.IssueTS, c.HasIssue = v, true
			}
		}
	}
	m.clockSyncs.add(c)
	return true
}

// LegacyClockSync records an S/F pair named ClockSyncEvent.<id>.
func (m *Markers) LegacyClockSync(syncID string, issueTS, ts int64, itid int) {
	m.clockSyncs.add(ClockSyncMarker{ID: m.clockSyncs.next(), SyncID: syncID, TS: ts,
		IssueTS: issueTS, HasIssue: true, Itid: itid, Source: "legacy_async"})
}

// Context handles ( and ) events; ids are process-local. It reports false
// for an event without a usable id, which is dropped; a ) without an entered
// context is kept and counted json_context_leave not_match.
func (m *Markers) Context(ipid, itid int, ev *event.Event) bool {
	kind, id, _, _, ok := eventID(ev)
	if !ok {
		return false
	}
	c := ContextEvent{ID: m.contexts.next(), TS: ev.TS.NS, Itid: itid, Phase: "enter", Cat: ev.Cat, Name: ev.Name,
		Scope: ev.Scope, IDKind: kind, RawID: id}
	k := contextKey{itid, ev.Name, ev.Scope, kind, id}
	if ev.Ph == ')' {
		c.Phase = "leave"
		if m.entered[k] == 0 {
			m.stats.Add(stat.JSONContextLeave, stat.NotMatch, 1, ev.Offset)
		} else {
			m.entered[k]--
		}
	} else {
		m.entered[k]++
	}
	m.contexts.add(c)
	return true
}

// Link handles an = event. It reports false for one without a usable id or
// args.linked_id, which is dropped.
func (m *Markers) Link(itid int, ev *event.Event) bool {
	kind, id, _, _, ok := eventID(ev)
	linked, lok := "", false
	if ev.Args != nil {
		if raw, found := event.ArgRaw(ev.Args, "linked_id"); found {
			linked, lok = NormaliseID(raw)
			if replacedIn(raw) { // replaced by NormaliseID; args are not flattened for an = event
				m.stats.Add(stat.JSONString, stat.InvalidData, 1, ev.Offset)
			}
		}
	}
	if !ok || !lok {
		return false
	}
	m.linked.add(LinkedID{ID: m.linked.next(), TS: ev.TS.NS, Itid: itid, Cat: ev.Cat, Name: ev.Name,
		Scope: ev.Scope, IDKind: kind, RawID: id, LinkedRawID: linked})
	return true
}
