package tracker

import (
	"hash/maphash"
	"strconv"

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

// trackKey identifies an async key by a 128-bit hash of its parts: every key
// ever seen stays in the map (a later event may reuse it), and millions of
// keys must fit; two keys colliding in 128 bits is not a practical concern.
type trackKey [2]uint64

// Tracks registers async keys; tracks are final when made.
type Tracks struct {
	rows     made[Track]
	byKey    map[trackKey]int32
	nestable []bool // by track id
	seeds    [2]maphash.Seed
	keyBuf   []byte // key's scratch space
}

// NewTracks returns an empty registry.
func NewTracks() *Tracks {
	return &Tracks{byKey: map[trackKey]int32{}, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

// Take hands over the tracks made since the last call (valid until the next
// event) and forgets them.
func (t *Tracks) Take() []Track { return t.rows.take() }

// Nestable reports whether track id is a nestable (b/n/e) one.
func (t *Tracks) Nestable(id int) bool { return t.nestable[id] }

// key hashes the parts of an async key: each part, a 0 byte and its length
// in decimal (parts may contain anything but cannot run into each other),
// then the owner. The parts are put together once and hashed with each
// seed (hashing them piece by piece, twice, was 2 % of the import's CPU on
// the 29 MB real-mix trace).
func (t *Tracks) key(kind, catOrName, scope, idKind string, id []byte, ipid int) trackKey {
	b := t.keyBuf[:0]
	for _, part := range [...]string{kind, catOrName, scope, idKind} {
		b = append(b, part...)
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(len(part)), 10)
	}
	b = append(b, id...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(len(id)), 10)
	b = strconv.AppendInt(b, int64(ipid), 10)
	t.keyBuf = b
	var k trackKey
	for i, seed := range t.seeds {
		k[i] = maphash.Bytes(seed, b)
	}
	return k
}

// eventID resolves the id of an async event: plain id (global), or id2 with
// global or local (process-local) member (docs/format/traceevent.md#ids-and-scopes). both tells that id and
// id2 were both given (id is used).
func eventID(ev *event.Event) (kind, id string, local, both, ok bool) {
	kind, raw, local, both := eventIDRaw(ev)
	if raw == nil {
		return "", "", false, false, false
	}
	id, ok = NormaliseID(raw) // one string, whatever the id
	return kind, id, local, both, ok
}

// eventIDBytes is eventID giving the id as idBytes does: for the usual ids,
// a part of the event's bytes, valid as long as they are.
func eventIDBytes(ev *event.Event) (kind string, id []byte, local, both, ok bool) {
	kind, raw, local, both := eventIDRaw(ev)
	if raw == nil {
		return "", nil, false, false, false
	}
	id, ok = idBytes(raw)
	return kind, id, local, both, ok
}

// eventIDRaw is eventID giving the id's JSON value; raw is nil when the
// event has no id and no usable id2.
func eventIDRaw(ev *event.Event) (kind string, raw []byte, local, both bool) {
	if ev.ID != nil {
		return "id", ev.ID, false, ev.ID2 != nil
	}
	if ev.ID2 == nil {
		return "", nil, false, false
	}
	member, local, ok := event.ID2Member(ev.ID2)
	if !ok {
		return "", nil, false, false
	}
	if local {
		return "id2.local", member, true, false
	}
	return "id2.global", member, false, false
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
	idKind, id, local, both, ok := eventIDBytes(ev) // id: a string made only for a new track
	if !ok {
		return 0, both, false
	}
	kind, catOrName, owner := "nestable", ev.Cat, -1
	if legacy {
		kind, catOrName = "legacy", ev.Name
	}
	if local {
		owner = ipid
	}
	k := t.key(kind, catOrName, ev.Scope, idKind, id, owner)
	if tr, found := t.byKey[k]; found {
		return int(tr), both, true
	}
	if !create {
		return -1, both, true
	}
	tr := Track{ID: len(t.nestable), Kind: kind, Scope: ev.Scope, IDKind: idKind, RawID: string(id), Ipid: owner}
	if legacy {
		tr.Name, tr.Cat, tr.HasCat = ev.Name, ev.Cat, ev.HasCat
	} else {
		tr.Cat, tr.HasCat = ev.Cat, ev.HasCat
	}
	t.rows.add(tr)
	t.nestable = append(t.nestable, !legacy)
	t.byKey[k] = int32(tr.ID)
	return tr.ID, both, true
}
