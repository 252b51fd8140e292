package traceevent

import (
	"encoding/binary"
	"hash/maphash"
	"math"

	"tracestreamer/parser/traceevent/event"
	"tracestreamer/rows"
	"tracestreamer/tables"
)

// argSets writes arg sets into table args (docs/format/traceevent.md#arguments): identical
// argument lists share one set, whose id is allocated when the first of them
// is written; rows carry the flattened arguments in JSON order, keys and
// string values go to data_dict.
type argSets struct {
	app  tables.ArgsWriter
	dict *tables.Dict
	next int64 // next set id
	row  int64 // next args.id

	// byList finds the set of an argument list by its encoding (key ids,
	// types, values: enc); byRaw the set of an args object by its JSON text,
	// so that a repeated one is neither flattened nor looked up again (none:
	// it has no arguments). Together their keys hold at most maxShared bytes;
	// past that, new lists get sets of their own.
	byList, byRaw textIDs
	shared        int
	maxShared     int // 0: defaultMaxShared; < 0: no sharing (tests)
	enc           []byte
	vals          []argVal
	dec           event.Decoder // flattens what was not flattened ahead of time
	list          []event.Arg   // what dec flattened last
	src, dst      []event.Arg   // what mergedFlat flattened last
	// count receives what flattening tolerated (invalid UTF-8, repeated
	// keys), each time an args object is stored; rawProblems keeps it for
	// the texts of byRaw that had any.
	count       func(event.ArgProblems)
	rawProblems map[string]event.ArgProblems
}

// argVal is one argument's row values, found while encoding its list.
type argVal struct {
	key   int64
	value rows.Int
}

// defaultMaxShared bounds the bytes of the keys that find shared sets (with
// the maps' own overhead, about twice that in memory).
const defaultMaxShared = 16 << 20

// sharedEntry is what a map entry costs beside its key, counted against the bound.
const sharedEntry = 48

// none is the set id of "no arguments" (argsetid NULL).
const none = -1

// set returns the id of the set holding list (none when it is empty),
// writing its rows if no identical list was written before.
func (a *argSets) set(list []event.Arg) int64 {
	if len(list) == 0 {
		return none
	}
	a.enc, a.vals = a.enc[:0], a.vals[:0]
	for _, arg := range list {
		key := a.dict.ID(arg.Key) // before the value's: data_dict ids follow first use
		var value rows.Int        // NULL for a JSON null
		a.enc = binary.AppendUvarint(a.enc, uint64(key))
		switch {
		case arg.Type == event.ArgString && arg.Null:
			a.enc = append(a.enc, 0xff)
		case arg.Type == event.ArgString:
			value = rows.I(a.dict.ID(arg.Str))
			a.enc = binary.AppendUvarint(append(a.enc, byte(arg.Type)), uint64(value.Bits()))
		case arg.Type == event.ArgDouble:
			value = rows.R(arg.Float)
			a.enc = binary.LittleEndian.AppendUint64(append(a.enc, byte(arg.Type)), math.Float64bits(arg.Float))
		default:
			value = rows.I(arg.Int)
			a.enc = binary.AppendVarint(append(a.enc, byte(arg.Type)), arg.Int)
		}
		a.vals = append(a.vals, argVal{key: key, value: value})
	}
	hList := a.byList.hash(a.enc)
	if id, ok := a.byList.get(hList, a.enc); ok {
		return id
	}
	id := a.next
	a.next++
	for i, arg := range list {
		v := &a.vals[i]
		a.app.Append(&tables.Args{ID: a.row, Key: v.key, Datatype: int64(arg.Type), Value: v.value, Argset: id})
		a.row++
	}
	if a.room(len(a.enc)) {
		a.byList.put(hList, string(a.enc), id)
	}
	return id
}

// room reports whether a key of n bytes may still be kept, counting it.
func (a *argSets) room(n int) bool {
	max := a.maxShared
	if max == 0 {
		max = defaultMaxShared
	}
	if a.shared+n+sharedEntry > max {
		return false
	}
	a.shared += n + sharedEntry
	return true
}

// of returns the set of ev's arguments (none when it has none), flattening
// them only when their JSON text was not seen before and they were not
// flattened ahead of time.
func (a *argSets) of(ev *event.Event) int64 {
	list, ok := ev.Flattened()
	switch {
	case !ok:
		return a.addFlat(ev, ev.Args, false, nil, event.ArgProblems{}, false)
	case !mayMerge(ev.Ph):
		// Flattened ahead of time only to spare this goroutine the work
		// (batch.decode): as if flattened here.
		return a.addFlat(ev, ev.Args, true, list, ev.ArgProblems(), false)
	case list == nil:
		return none // did not flatten; its problems were counted with the event
	}
	return a.addFlat(ev, ev.Args, true, list, ev.ArgProblems(), true)
}

// add returns the set of raw args (none when there are no arguments or they
// do not flatten: not an object), flattening them unless their text was
// seen before, and counting what flattening tolerated.
func (a *argSets) add(raw []byte) int64 {
	return a.addFlat(nil, raw, false, nil, event.ArgProblems{}, false)
}

// addFlat is add where flat tells that raw was flattened already, into list
// (nil and empty alike: no arguments) with problems probs; counted tells
// that those were counted with its event (and are not again for later events
// of the same text).
func (a *argSets) addFlat(ev *event.Event, raw []byte, flat bool, list []event.Arg, probs event.ArgProblems, counted bool) int64 {
	if raw == nil {
		return none
	}
	hRaw, ok := uint64(0), false
	if ev != nil {
		hRaw, ok = ev.ArgsHash() // computed by a decoding worker (seenTexts)
	}
	if !ok {
		hRaw = a.byRaw.hash(raw)
	}
	if id, ok := a.byRaw.get(hRaw, raw); ok {
		if p, ok := a.rawProblems[string(raw)]; ok && !counted && a.count != nil {
			a.count(p)
		}
		return id
	}
	if !flat {
		var err error
		if a.list, probs, err = event.AppendArgs(a.list[:0], raw, &a.dec); err != nil {
			a.list = a.list[:0]
		}
		list = a.list
	}
	if counted {
		probs = event.ArgProblems{}
	} else if probs != (event.ArgProblems{}) && a.count != nil {
		a.count(probs)
	}
	id := a.set(list)
	if a.room(len(raw)) {
		a.byRaw.put(hRaw, string(raw), id)
		if probs != (event.ArgProblems{}) {
			if a.rawProblems == nil {
				a.rawProblems = map[string]event.ArgProblems{}
			}
			a.rawProblems[string(raw)] = probs
		}
	}
	return id
}

// mergedFlat is mergeArgs of FlattenOrNil of src and of dst (an args object
// each, nil: none), flattened through a.dec into buffers of a's: valid until
// the next call.
func (a *argSets) mergedFlat(src, dst []byte) []event.Arg {
	base, over := a.flatInto(a.src[:0], src), a.flatInto(a.dst[:0], dst)
	list := mergeArgs(base, over)
	if len(base) > 0 {
		a.src = list[:0] // base, grown
	} else {
		a.src = base[:0]
	}
	a.dst = over[:0]
	return list
}

// flatInto is FlattenOrNil of raw appended to dst.
func (a *argSets) flatInto(dst []event.Arg, raw []byte) []event.Arg {
	if raw == nil {
		return dst
	}
	list, _, err := event.AppendArgs(dst, raw, &a.dec)
	if err != nil {
		return list[:len(dst)]
	}
	return list
}

// mergeArgs returns base with the arguments of over merged in: a key already
// in base keeps its position and takes the value from over; new keys are
// appended in over's order. A key that base has twice (a flattened "a.b"
// and "a":{"b"}) is the later one's.
func mergeArgs(base, over []event.Arg) []event.Arg {
	if len(base) == 0 {
		return over
	}
	if len(base)+len(over) > linearMerge {
		return mergeArgsMap(base, over)
	}
	return mergeArgsLinear(base, over)
}

// linearMerge is the most arguments of both ends mergeArgs searches one by
// one; beyond, a map finds them. BenchmarkMergeArgs (half the keys shared):
// 14 ns against 55 ns at 2+2, 0.57 µs against 1.4 µs at 16+16, 2.6 µs
// against 3.1 µs at 32+32, where the map's cost no longer grows faster.
const linearMerge = 32

// mergeArgsLinear is mergeArgs for a few arguments, without a map.
func mergeArgsLinear(base, over []event.Arg) []event.Arg {
	for _, a := range over {
		i := len(base) - 1 // the later of a repeated key, as the map has it
		for i >= 0 && base[i].Key != a.Key {
			i--
		}
		if i >= 0 {
			base[i] = a
		} else {
			base = append(base, a)
		}
	}
	return base
}

// mergeArgsMap is mergeArgs for many arguments.
func mergeArgsMap(base, over []event.Arg) []event.Arg {
	pos := make(map[string]int, len(base))
	for i, a := range base {
		pos[a.Key] = i
	}
	for _, a := range over {
		if i, ok := pos[a.Key]; ok {
			base[i] = a
			continue
		}
		pos[a.Key] = len(base)
		base = append(base, a)
	}
	return base
}

// textIDs maps texts (args objects, encoded lists) to set ids by their hash:
// a text is hashed once, and the map grows without hashing its keys again
// (a map keyed by the texts themselves hashed each again every time it grew:
// 2 % of the import's CPU on the 29 MB real-mix trace). A text whose hash
// another text has goes to a map of its own.
type textIDs struct {
	s      maphash.Seed // the seed of hash (seeded tells it is made)
	seeded bool
	first  map[uint64]textID // the first text of each hash
	more   map[string]int64  // texts whose hash a text in first has
}

type textID struct {
	text string
	id   int64
}

// hash returns the hash of b that get and put take.
func (m *textIDs) hash(b []byte) uint64 { return maphash.Bytes(m.seed(), b) }

// seed returns the seed of hash.
func (m *textIDs) seed() maphash.Seed {
	if !m.seeded {
		m.s, m.seeded = maphash.MakeSeed(), true
	}
	return m.s
}

// get returns the id of text b, whose hash is h.
func (m *textIDs) get(h uint64, b []byte) (int64, bool) {
	e, ok := m.first[h]
	switch {
	case !ok:
		return 0, false
	case e.text == string(b):
		return e.id, true
	}
	id, ok := m.more[string(b)]
	return id, ok
}

// put gives text s, whose hash is h and which get did not find, the id id.
func (m *textIDs) put(h uint64, s string, id int64) {
	if m.first == nil {
		m.first = map[uint64]textID{}
	}
	if _, ok := m.first[h]; !ok {
		m.first[h] = textID{s, id}
		return
	}
	if m.more == nil {
		m.more = map[string]int64{}
	}
	m.more[s] = id
}
