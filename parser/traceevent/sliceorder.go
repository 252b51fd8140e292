package traceevent

import (
	"tracestreamer/parser/traceevent/tracker"
)

// sliceOrder holds closed slices until every slice with a lower id is
// written, so that callstack rows reach the database in rowid order, which
// SQLite appends, instead of closing order (children close before their
// parents), where each insert is a B-tree search. A slice left open for
// long (Chrome's message loop) would hold back everything after it: beyond
// maxHeld slices the lowest held one goes out anyway, leaving a gap that the
// late slice fills when it closes.
//
// Held slices sit in a ring indexed by id: every held id lies between next
// and next plus the held slices and the slices still open, so the ring stays
// small, and finding the lowest held slice walks forward from next, each
// step passed once. (A binary heap did the same in O(log n) pointer-chasing
// compares per slice, a fifth of the second pass's CPU on real traces.)
type sliceOrder struct {
	ring []*tracker.Slice // held slice of id i at i & (len(ring)-1); len a power of two
	held int              // slices in ring
	next int64            // the id written next when in order; every held id is above it
	max  int              // maxHeld when 0 (tests set it lower)
}

// maxHeld bounds the slices held back (about 200 bytes each).
const maxHeld = 1 << 15

// push adds a closed slice and calls write for every slice that may now go
// out, in id order.
func (o *sliceOrder) push(r *tracker.Slice, write func(*tracker.Slice)) {
	if r.ID < o.next || (r.ID == o.next && o.held == 0) {
		// In order, or a late slice filling its gap.
		o.next = max(o.next, r.ID+1)
		write(r)
		o.drain(write)
		return
	}
	o.fit(r.ID)
	o.ring[r.ID&int64(len(o.ring)-1)] = r
	o.held++
	o.drain(write)
	limit := o.max
	if limit == 0 {
		limit = maxHeld
	}
	for o.held > limit {
		o.pop(write)
		o.drain(write)
	}
}

// drain writes the held slices that continue the written ones.
func (o *sliceOrder) drain(write func(*tracker.Slice)) {
	for o.held > 0 {
		i := o.next & int64(len(o.ring)-1)
		r := o.ring[i]
		if r == nil {
			return
		}
		o.ring[i] = nil
		o.held--
		o.next++
		write(r)
	}
}

// pop writes the lowest held slice, passing the gap before it.
func (o *sliceOrder) pop(write func(*tracker.Slice)) {
	mask := int64(len(o.ring) - 1)
	for o.ring[o.next&mask] == nil {
		o.next++
	}
	i := o.next & mask
	r := o.ring[i]
	o.ring[i] = nil
	o.held--
	o.next++
	write(r)
}

// fit grows the ring until it has a slot for id.
func (o *sliceOrder) fit(id int64) {
	if id-o.next < int64(len(o.ring)) {
		return
	}
	n := max(len(o.ring), 1024)
	for id-o.next >= int64(n) {
		n *= 2
	}
	ring := make([]*tracker.Slice, n)
	for _, r := range o.ring {
		if r != nil {
			ring[r.ID&int64(n-1)] = r
		}
	}
	o.ring = ring
}

// flush writes every held slice in id order.
func (o *sliceOrder) flush(write func(*tracker.Slice)) {
	for o.held > 0 {
		o.pop(write)
	}
}
