package tables

import (
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Dict is the data_dict table: one id per distinct string, id 0 being the
// empty string. Rows are appended as strings are first seen. One Dict is
// shared by every writer of a run.
type Dict struct {
	ids map[string]int64
	w   DataDictWriter
}

// NewDict starts the dictionary, writing its rows to sink.
func NewDict(sink rows.Sink, t *schema.Tables) *Dict {
	d := &Dict{ids: map[string]int64{}, w: NewDataDict(sink, t)}
	d.ID("")
	return d
}

// ID returns the id of s, adding it if new.
func (d *Dict) ID(s string) int64 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	id := int64(len(d.ids))
	d.ids[s] = id
	d.w.Append(&DataDict{ID: id, Data: s})
	return id
}

// Flush hands pending rows to the sink.
func (d *Dict) Flush() { d.w.Flush() }
