package traceevent

import (
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/rows"
	"tracestreamer/tables"
)

// argSets writes arg sets into table args (docs/format/traceevent.md#arguments): set ids are
// allocated in processing order at first need, rows carry the flattened
// arguments in JSON order, keys and string values go to data_dict.
type argSets struct {
	app  tables.ArgsWriter
	dict *rows.Dict
	next int64 // next set id
	row  int64 // next args.id
}

// none is the set id of "no arguments" (argsetid NULL).
const none = -1

// alloc returns a new set id.
func (a *argSets) alloc() int64 {
	id := a.next
	a.next++
	return id
}

// write writes the arguments of set id.
func (a *argSets) write(id int64, list []event.Arg) {
	for _, arg := range list {
		key := a.dict.ID(arg.Key) // before the value's: data_dict ids follow first use
		var value rows.Int        // NULL for a JSON null
		switch {
		case arg.Type == event.ArgString && arg.Null:
		case arg.Type == event.ArgString:
			value = rows.I(a.dict.ID(arg.Str))
		case arg.Type == event.ArgDouble:
			value = rows.R(arg.Float)
		default:
			value = rows.I(arg.Int)
		}
		a.app.Append(&tables.Args{ID: a.row, Key: key, Datatype: int64(arg.Type), Value: value, Argset: id})
		a.row++
	}
}

// add flattens raw args into a new set and returns its id, or none when
// there are no arguments. Args that do not flatten (not an object) give none.
func (a *argSets) add(raw []byte) int64 {
	if raw == nil {
		return none
	}
	list, err := event.FlattenArgs(raw)
	if err != nil || len(list) == 0 {
		return none
	}
	id := a.alloc()
	a.write(id, list)
	return id
}

// mergeArgs returns base with the arguments of over merged in: a key already
// in base keeps its position and takes the value from over; new keys are
// appended in over's order.
func mergeArgs(base, over []event.Arg) []event.Arg {
	if len(base) == 0 {
		return over
	}
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
