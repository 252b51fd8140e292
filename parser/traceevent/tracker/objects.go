package tracker

import (
	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// Instance is one object_instance row (docs/format/traceevent.md#objects).
type Instance struct {
	ID             int
	Ipid           int
	Scope          string
	IDKind, RawID  string
	Cat, Name      string
	CreateTS       int64
	CreateItid     int
	DeleteTS       int64
	DeleteItid     int
	Deleted        bool
	ExplicitCreate bool
}

// ObjectSnapshot is one object_snapshot row.
type ObjectSnapshot struct {
	ID       int
	ObjectID int
	TS       int64
	Itid     int
	Cat      string
	Name     string
	BaseType string
	Args     []byte // the snapshot object without cat and base_type, raw
}

type objectKey struct {
	ipid        int
	scope, kind string
	id          string
}

// Objects follows object life cycles: N creates, O snapshots, D deletes.
type Objects struct {
	Instances []Instance
	Snapshots []ObjectSnapshot
	stats     Stats
	alive     map[objectKey]int
}

// NewObjects returns an empty tracker.
func NewObjects(st Stats) *Objects { return &Objects{stats: st, alive: map[objectKey]int{}} }

// ObjectOutcome is what Objects.Add did with an event.
type ObjectOutcome uint8

// Outcomes of Objects.Add.
const (
	ObjectApplied ObjectOutcome = iota // the event changed an instance or made a snapshot
	ObjectBadID                        // no usable id: dropped
	ObjectIgnored                      // valid but without effect: a D with no live instance, an O without args.snapshot
)

// Add handles an N, O or D event of thread itid in process ipid. Plain ids
// are process-local for objects. It counts what did not match (an N of a
// live id, an O creating its instance, a D with none) and an O without
// args.snapshot (invalid_data) under the event's phase.
func (o *Objects) Add(ipid, itid int, ev *event.Event) ObjectOutcome {
	kind, id, _, _, ok := eventID(ev)
	if !ok {
		return ObjectBadID
	}
	k := objectKey{ipid: ipid, scope: ev.Scope, kind: kind, id: id}
	t := ev.TS.NS
	create := func(explicit bool) int {
		i := len(o.Instances)
		o.Instances = append(o.Instances, Instance{ID: i, Ipid: ipid, Scope: ev.Scope, IDKind: kind, RawID: id,
			Cat: ev.Cat, Name: ev.Name, CreateTS: t, CreateItid: itid, ExplicitCreate: explicit})
		o.alive[k] = i
		return i
	}
	switch ev.Ph {
	case 'N':
		if i, ok := o.alive[k]; ok {
			o.Instances[i].DeleteTS, o.Instances[i].DeleteItid, o.Instances[i].Deleted = t, itid, true
			o.stats.Add(stat.JSONObjectNew, stat.NotMatch, 1, ev.Offset) // its id is still alive
		}
		create(true)
	case 'O':
		snap, ok := snapshotArg(ev.Args)
		if !ok {
			o.stats.Add(stat.JSONObjectSnapshot, stat.InvalidData, 1, ev.Offset)
			return ObjectIgnored
		}
		i, alive := o.alive[k]
		if !alive {
			i = create(false)
			o.stats.Add(stat.JSONObjectSnapshot, stat.NotMatch, 1, ev.Offset) // instance created implicitly
		}
		s := ObjectSnapshot{ID: len(o.Snapshots), ObjectID: i, TS: t, Itid: itid, Cat: ev.Cat, Name: ev.Name}
		s.Args = snapshotMembers(snap, &s, textCount{o.stats, ev.Offset})
		o.Snapshots = append(o.Snapshots, s)
	case 'D':
		i, ok := o.alive[k]
		if !ok {
			o.stats.Add(stat.JSONObjectDelete, stat.NotMatch, 1, ev.Offset) // no live instance
			return ObjectIgnored
		}
		o.Instances[i].DeleteTS, o.Instances[i].DeleteItid, o.Instances[i].Deleted = t, itid, true
		delete(o.alive, k)
	}
	return ObjectApplied
}

// snapshotArg returns the raw args.snapshot value.
func snapshotArg(args []byte) ([]byte, bool) {
	if args == nil {
		return nil, false
	}
	var snap []byte
	js := jsonscan.NewBytes(args)
	err := js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		if string(k) == "snapshot" {
			snap = event.TrimSpace(args[start:js.Offset()])
		}
		return nil
	})
	return snap, err == nil && snap != nil
}

// snapshotMembers takes cat and base_type out of a snapshot object into s and
// returns the other members as a JSON object (the snapshot itself when it is
// not an object); c counts the replaced texts of the two taken out (the
// others are counted as args).
func snapshotMembers(snap []byte, s *ObjectSnapshot, c textCount) []byte {
	if len(snap) == 0 || snap[0] != '{' {
		return snap
	}
	out := []byte{'{'}
	js := jsonscan.NewBytes(snap)
	js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		raw := event.TrimSpace(snap[start:js.Offset()])
		switch string(k) {
		case "cat", "base_type":
			if v, ok := event.StringValue(raw); ok {
				c.decoded(v, raw)
				if string(k) == "cat" {
					s.Cat = v
				} else {
					s.BaseType = v
				}
				return nil
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonscan.AppendString(out, k)
		out = append(out, ':')
		out = append(out, raw...)
		return nil
	})
	return append(out, '}')
}
