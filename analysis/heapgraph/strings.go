package heapgraph

import "unsafe"

// Strings is a snapshot's string table: the strings' bytes one after
// another and where each ends, so that a table of millions of strings holds
// no pointer per string for the collector to scan (on the 5.1 M-node
// benchmark snapshot, 975 k strings: 10 MB where a []string took 24 MB).
// Strings are only appended; bytes once written are never written over.
//
// The strings At returns share the table's memory: one kept after the
// table is let go keeps all of it, and is cloned (strings.Clone) where that
// matters.
type Strings struct {
	buf []byte
	// end[i] is where string i ends in buf, less 4 GiB for each entry of
	// wraps at or below i: wraps holds, in order, the first string that
	// ends past each further 4 GiB of text (none below 4 GiB, so that a
	// string costs 4 bytes here rather than 8).
	end   []uint32
	wraps []int
}

// NewStrings makes a table of the given strings.
func NewStrings(s ...string) Strings {
	var t Strings
	for _, x := range s {
		t.Append(x)
	}
	return t
}

// Append adds s as the next string.
func (t *Strings) Append(s string) {
	t.buf = append(t.buf, s...)
	t.appendEnd(uint64(len(t.buf)))
}

// appendEnd records that the next string ends at n in buf.
func (t *Strings) appendEnd(n uint64) {
	for uint64(len(t.wraps)) < n>>32 {
		t.wraps = append(t.wraps, len(t.end))
	}
	t.end = append(t.end, uint32(n))
}

// Len returns the number of strings.
func (t *Strings) Len() int { return len(t.end) }

// endOf returns where string i ends in buf.
func (t *Strings) endOf(i int) int {
	e := uint64(t.end[i])
	for _, w := range t.wraps {
		if w > i {
			break
		}
		e += 1 << 32
	}
	return int(e)
}

// At returns string i, "" past the table's end.
func (t *Strings) At(i uint32) string {
	if int(i) >= len(t.end) {
		return ""
	}
	start := 0
	if i > 0 {
		start = t.endOf(int(i) - 1)
	}
	end := t.endOf(int(i))
	if start == end {
		return ""
	}
	return unsafe.String(&t.buf[start], end-start)
}
