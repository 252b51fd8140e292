package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// The integer arrays of a heap snapshot are most of its bytes, and turning
// their digits into numbers is most of the time one goroutine spends reading
// them. To spread that over several, IntsText takes the text of the next
// elements off the stream, finding where they end by their commas alone,
// and a Decoder made by NewBytesAt reads that text, on any goroutine, with
// ReadIntsLenient: the values, errors and offsets of reading the elements
// from the stream itself, as the text is the same.

// IntsText appends to dst the text of the next n elements of the array
// being read (after its '['; first says that no element was read yet), up to
// and with the comma that ends the n-th, and consumes it but for that comma,
// when it holds no string, array or object (no '"', '[', ']', '{' or '}', so
// that no comma in it is inside an element), is at most limit bytes long
// and fits in the buffer, which it refills as needed. Otherwise it returns
// false and consumes nothing (the buffer may have been refilled).
//
// Reading the text with ReadIntsLenient (the same first; NewBytesAt at the
// offset the text starts at) gives what reading the elements from the
// stream would: the same n values and non-integers, ending at the same
// offset, or the same error at the same offset, as the bytes it reads are
// the same. The text of n well-formed elements is followed by the comma:
// when they are read without an error and More(false) fails instead, it
// fails as it would have on the stream.
func (d *Decoder) IntsText(dst []byte, n int, first bool, limit int) ([]byte, bool) {
	commas := n // the comma after the n-th element is the n-th, or the n+1-th
	if !first {
		commas++
	}
	seen, at := 0, d.pos // commas counted, and where counting goes on
	for {
		end, k, stop := nthComma(d.buf[at:d.end], commas-seen)
		if end >= 0 {
			end += at
			if end+1-d.pos > limit {
				return dst, false
			}
			dst = append(dst, d.buf[d.pos:end+1]...)
			d.pos = end
			return dst, true
		}
		if stop || d.end-d.pos >= min(limit, len(d.buf)) {
			return dst, false // an element that is not a scalar, or too long a text
		}
		seen, at = seen+k, d.end
		rel := at - d.pos
		if !d.fill() {
			return dst, false
		}
		at = d.pos + rel
	}
}

// nthComma returns the index of the k-th comma of b, or -1 with the number
// of commas b has when it has fewer; stop says that b has a byte that may
// begin or end a string, array or object before that comma (the index is
// then -1).
func nthComma(b []byte, k int) (at, commas int, stop bool) {
	const lo = 0x0101010101010101
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		y := x | lo*0x20 // '[' and ']' as '{' and '}'
		c, s := zeroBytes(x^(lo*',')), zeroBytes(x^(lo*'"'))|zeroBytes(y^(lo*'{'))|zeroBytes(y^(lo*'}'))
		if s != 0 {
			// Only what comes before the first such byte counts.
			c &= s&-s - 1
		}
		n := bits.OnesCount64(c)
		if n >= k {
			for range k - 1 {
				c &= c - 1
			}
			return i + bits.TrailingZeros64(c)>>3, 0, false
		}
		if s != 0 {
			return -1, 0, true
		}
		k -= n
		commas += n
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',':
			if k--; k == 0 {
				return i, 0, false
			}
			commas++
		case '"', '[', ']', '{', '}':
			return -1, 0, true
		}
	}
	return -1, commas, false
}

// zeroBytes returns the top bit of each byte of x that is 0, exactly (no
// borrow from one byte into the next).
func zeroBytes(x uint64) uint64 {
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	return ^((x&lo7 + lo7) | x) & hi
}

// NewBytesAt returns a Decoder of b that lies at offset base of a document:
// its offsets, and those its errors name, are the document's.
func NewBytesAt(b []byte, base int64) *Decoder {
	d := NewBytes(b)
	d.base = base
	return d
}
