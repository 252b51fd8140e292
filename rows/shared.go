package rows

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
