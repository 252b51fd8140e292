package tracker

import (
	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
)

// Track is one async_track row: one async key (docs/format/traceevent.md#async-slices).
type Track struct {
	ID     int
	Kind   string // "nestable" (b/n/e) or "legacy" (S/T/p/F)
	Cat    string // nestable: key part ("" = NULL); legacy: first event's category
	HasCat bool
	Name   string // legacy: key part
	Scope  string
	IDKind string // "id", "id2.global" or "id2.local"
	RawID  string
	Ipid   int // owning process of id2.local keys, -1 otherwise
}

type trackKey struct {
	kind, catOrName, scope, idKind, id string
	ipid                               int
}

// Tracks registers async keys.
type Tracks struct {
	Rows  []Track
	byKey map[trackKey]int
}

// NewTracks returns an empty registry.
func NewTracks() *Tracks { return &Tracks{byKey: map[trackKey]int{}} }

// eventID resolves the id of an async event: plain id (global), or id2 with
// global or local (process-local) member (docs/format/traceevent.md#ids-and-scopes). both tells that id and
// id2 were both given (id is used).
func eventID(ev *event.Event) (kind, id string, local, both, ok bool) {
	if ev.ID != nil {
		id, ok = NormaliseID(ev.ID)
		return "id", id, false, ev.ID2 != nil, ok
	}
	if ev.ID2 == nil {
		return "", "", false, false, false
	}
	var global, localID []byte
	js := jsonscan.NewBytes(ev.ID2)
	err := js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		switch string(k) {
		case "global":
			global = ev.ID2[start:js.Offset()]
		case "local":
			localID = ev.ID2[start:js.Offset()]
		}
		return nil
	})
	if err != nil {
		return "", "", false, false, false
	}
	if global != nil {
		id, ok = NormaliseID(global)
		return "id2.global", id, false, false, ok
	}
	if localID != nil {
		id, ok = NormaliseID(localID)
		return "id2.local", id, true, false, ok
	}
	return "", "", false, false, false
}

// Lookup returns the track of an async event of process ipid, creating it on
// first use; ok is false when the event has no usable id.
func (t *Tracks) Lookup(ev *event.Event, ipid int, legacy bool) (track int, both, ok bool) {
	return t.lookup(ev, ipid, legacy, true)
}

// Find is Lookup for events that cannot start a track (e, T, p, F): known is
// false when the key has no track yet.
func (t *Tracks) Find(ev *event.Event, ipid int, legacy bool) (track int, both, ok, known bool) {
	track, both, ok = t.lookup(ev, ipid, legacy, false)
	return track, both, ok, track >= 0
}

func (t *Tracks) lookup(ev *event.Event, ipid int, legacy, create bool) (track int, both, ok bool) {
	idKind, id, local, both, ok := eventID(ev)
	if !ok {
		return 0, both, false
	}
	k := trackKey{kind: "nestable", catOrName: ev.Cat, scope: ev.Scope, idKind: idKind, id: id, ipid: -1}
	if legacy {
		k.kind, k.catOrName = "legacy", ev.Name
	}
	if local {
		k.ipid = ipid
	}
	if tr, found := t.byKey[k]; found {
		return tr, both, true
	}
	if !create {
		return -1, both, true
	}
	tr := Track{ID: len(t.Rows), Kind: k.kind, Scope: ev.Scope, IDKind: idKind, RawID: id, Ipid: k.ipid}
	if legacy {
		tr.Name, tr.Cat, tr.HasCat = ev.Name, ev.Cat, ev.HasCat
	} else {
		tr.Cat, tr.HasCat = ev.Cat, ev.HasCat
	}
	t.Rows = append(t.Rows, tr)
	t.byKey[k] = tr.ID
	return tr.ID, both, true
}
