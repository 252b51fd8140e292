package traceevent

// sliceOrder holds closed slices until every slice with a lower id is
// written, so that callstack rows reach the database in rowid order, which
// SQLite appends, instead of closing order (children close before their
// parents), where each insert is a B-tree search. A slice left open for
// long (Chrome's message loop) would hold back everything after it: beyond
// maxHeld slices the lowest held one goes out anyway, leaving a gap that the
// late slice fills when it closes.
type sliceOrder struct {
	held []*Slice // min-heap on ID
	next int64    // the id written next when in order
	max  int      // maxHeld when 0 (tests set it lower)
}

// maxHeld bounds the slices held back (about 200 bytes each).
const maxHeld = 1 << 15

// push adds a closed slice and calls write for every slice that may now go
// out, in id order.
func (o *sliceOrder) push(r *Slice, write func(*Slice)) {
	if r.ID == o.next && len(o.held) == 0 {
		o.next++
		write(r)
		return
	}
	o.held = append(o.held, r)
	o.up(len(o.held) - 1)
	limit := o.max
	if limit == 0 {
		limit = maxHeld
	}
	for len(o.held) > 0 && (o.held[0].ID <= o.next || len(o.held) > limit) {
		r := o.pop()
		o.next = max(o.next, r.ID+1)
		write(r)
	}
}

// flush writes every held slice in id order.
func (o *sliceOrder) flush(write func(*Slice)) {
	for len(o.held) > 0 {
		r := o.pop()
		o.next = max(o.next, r.ID+1)
		write(r)
	}
}

func (o *sliceOrder) pop() *Slice {
	h := o.held
	r := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = nil
	o.held = h[:last]
	o.down(0)
	return r
}

func (o *sliceOrder) up(i int) {
	h := o.held
	for i > 0 {
		p := (i - 1) / 2
		if h[p].ID <= h[i].ID {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (o *sliceOrder) down(i int) {
	h := o.held
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].ID < h[c].ID {
			c++
		}
		if h[i].ID <= h[c].ID {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
