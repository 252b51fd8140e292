package rows

import "tracestreamer/schema"

// Dict is the data_dict table: one id per distinct string, id 0 being the empty
// string. Rows are appended as strings are first seen.
type Dict struct {
	ids map[string]int64
	app *Appender
}

// NewDict starts the dictionary, writing its rows to sink.
func NewDict(sink Sink, t *schema.Table) *Dict {
	d := &Dict{ids: map[string]int64{}, app: NewAppender(sink, t)}
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
	d.app.Row([]int64{id}, s)
	return id
}

// Flush hands pending rows to the sink.
func (d *Dict) Flush() { d.app.Flush() }

// Range is the trace's time range (trace_range): the smallest and largest time
// added, in ns.
type Range struct {
	min, max int64
	set      bool
}

// Add includes t in the range.
func (r *Range) Add(t int64) {
	if !r.set {
		r.min, r.max, r.set = t, t, true
		return
	}
	r.min = min(r.min, t)
	r.max = max(r.max, t)
}

// Bounds returns the range as trace_range stores it: [-1, 0] when empty, and
// widened to [v-1, v+1] when it holds a single instant v (as the reference does).
func (r *Range) Bounds() (start, end int64) {
	switch {
	case !r.set:
		return -1, 0
	case r.min == r.max:
		return r.min - 1, r.max + 1
	}
	return r.min, r.max
}
