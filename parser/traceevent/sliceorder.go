package traceevent

import (
	"container/heap"
	"tracestreamer/parser/traceevent/tracker"
)

// sliceOrder holds closed slices until every slice with a lower id is
// written, so that callstack rows reach the database in rowid order, which
// SQLite appends, instead of closing order (children close before their
// parents), where each insert is a B-tree search. A slice left open for
// long (Chrome's message loop) would hold back everything after it: beyond
// maxHeld slices the lowest held one goes out anyway, leaving a gap that the
// late slice fills when it closes.
type sliceOrder struct {
	held slicesByID
	next int64 // the id written next when in order
	max  int   // maxHeld when 0 (tests set it lower)
}

// maxHeld bounds the slices held back (about 200 bytes each).
const maxHeld = 1 << 15

// push adds a closed slice and calls write for every slice that may now go
// out, in id order.
func (o *sliceOrder) push(r *tracker.Slice, write func(*tracker.Slice)) {
	if r.ID == o.next && len(o.held) == 0 {
		o.next++
		write(r)
		return
	}
	heap.Push(&o.held, r)
	limit := o.max
	if limit == 0 {
		limit = maxHeld
	}
	for len(o.held) > 0 && (o.held[0].ID <= o.next || len(o.held) > limit) {
		o.pop(write)
	}
}

// flush writes every held slice in id order.
func (o *sliceOrder) flush(write func(*tracker.Slice)) {
	for len(o.held) > 0 {
		o.pop(write)
	}
}

// pop writes the lowest held slice.
func (o *sliceOrder) pop(write func(*tracker.Slice)) {
	r := heap.Pop(&o.held).(*tracker.Slice)
	o.next = max(o.next, r.ID+1)
	write(r)
}

// slicesByID is a min-heap of slices on ID (container/heap).
type slicesByID []*tracker.Slice

func (h slicesByID) Len() int           { return len(h) }
func (h slicesByID) Less(i, j int) bool { return h[i].ID < h[j].ID }
func (h slicesByID) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slicesByID) Push(x any)        { *h = append(*h, x.(*tracker.Slice)) }
func (h *slicesByID) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}
