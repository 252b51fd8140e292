package extsort

import (
	"slices"
)

// sortOrder returns the order of recs by key as indexes into recs. Records
// are added in file order, so Seq grows with the index and a stable sort
// on TS keeps it: a least-significant-digit radix sort of the timestamps
// (digits on which all records agree are skipped), then each run of equal
// timestamps sorted by the whole key. scratch is reused when large enough.
func sortOrder(recs *recList, scratch []tsIndex) ([]uint32, []tsIndex) {
	n := recs.len()
	if n == 0 {
		return nil, scratch
	}
	if cap(scratch) < 2*n {
		scratch = make([]tsIndex, 2*n)
	}
	a, b := scratch[:n], scratch[n:2*n]
	for b, block := range recs.blocks {
		i0 := b * recBlock
		if i0 >= n {
			break
		}
		for j := range block[:min(recBlock, n-i0)] {
			// Flipping the sign bit makes unsigned order signed order.
			a[i0+j] = tsIndex{ts: uint64(block[j].key.TS) ^ 1<<63, i: uint32(i0 + j)}
		}
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, e := range a {
			count[byte(e.ts>>shift)]++
		}
		if count[byte(a[0].ts>>shift)] == n {
			continue // every record has this digit
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for _, e := range a {
			d := byte(e.ts >> shift)
			b[count[d]] = e
			count[d]++
		}
		a, b = b, a
	}
	order := make([]uint32, n)
	for i, e := range a {
		order[i] = e.i
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && a[hi].ts == a[lo].ts {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(order[lo:hi], func(x, y uint32) int { return recs.at(int(x)).key.Compare(recs.at(int(y)).key) })
		}
		lo = hi
	}
	return order, scratch
}

// tsIndex is a record's timestamp (sign flipped) and index, as sorted.
type tsIndex struct {
	ts uint64
	i  uint32
}
