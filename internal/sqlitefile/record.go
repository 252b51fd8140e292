// Package sqlitefile writes table b-trees in SQLite's file format
// (https://www.sqlite.org/fileformat2.html) into a page file, and splices them
// with a database file that SQLite made and closed: SQLite's pages are copied
// into a gap left for them at the page file's start, which then becomes the
// database (or, when they outgrow it, the trees' pages are copied after them).
//
// Why it exists: SQLite's own insert path (bind each value, step the VDBE,
// search and balance the b-tree) is the bottleneck of a conversion. Through
// modernc's SQLite it inserts about 14 M values a second: 9 s of the 11 s a
// 5 M-node heap snapshot takes. Rows that only ever arrive in rowid order need
// none of that work: their records can be packed into leaf pages one after the
// other and the interior pages built at the end, which is what this package
// does: 10 M rows a second for rows of 7 integers into 64 KiB pages, page
// file writes included (BenchmarkTree), where SQLite's INSERT does 2 M;
// whole-run numbers are in store's package comment. No library writes SQLite
// pages this way; the format is small, stable since 2004 and documented byte
// for byte.
//
// What it must not do: know tables or schemas (the caller encodes each row's
// values in column order), open SQLite, or touch a database that is open.
// Splice refuses files whose header it does not expect (auto-vacuum, reserved
// bytes, another text encoding or page size, a root page that is not an empty
// leaf) rather than guess.
package sqlitefile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Record builds one row's record: a header of serial types followed by the
// values, as SQLite's OP_MakeRecord stores them. Values are given in column
// order and stored as given: the caller applies the column's affinity.
type Record struct {
	types []uint64
	body  []byte
	out   []byte
}

// Reset starts a new record.
func (r *Record) Reset() {
	r.types = r.types[:0]
	r.body = r.body[:0]
}

// Null appends a NULL.
func (r *Record) Null() { r.types = append(r.types, 0) }

// Int appends an integer in the fewest bytes SQLite would use: 0 and 1 take
// none (serial types 8 and 9, schema format 4).
func (r *Record) Int(v int64) {
	var st byte
	r.body, st = appendInt(r.body, v)
	r.types = append(r.types, uint64(st))
}

// appendInt appends v's bytes for the smallest serial type that holds it and
// returns that type.
func appendInt(b []byte, v int64) ([]byte, byte) {
	switch {
	case v == 0:
		return b, 8
	case v == 1:
		return b, 9
	case v >= -1<<7 && v < 1<<7:
		return append(b, byte(v)), 1
	case v >= -1<<15 && v < 1<<15:
		return append(b, byte(v>>8), byte(v)), 2
	case v >= -1<<23 && v < 1<<23:
		return append(b, byte(v>>16), byte(v>>8), byte(v)), 3
	case v >= -1<<31 && v < 1<<31:
		return binary.BigEndian.AppendUint32(b, uint32(v)), 4
	case v >= -1<<47 && v < 1<<47:
		return binary.BigEndian.AppendUint32(append(b, byte(v>>40), byte(v>>32)), uint32(v)), 5
	}
	return binary.BigEndian.AppendUint64(b, uint64(v)), 6
}

// Real appends a floating-point value as SQLite stores one in a column of
// INTEGER, REAL or NUMERIC affinity: NaN as NULL (sqlite3_bind_double), and a
// whole number strictly between the smallest and largest int64 as that
// integer (sqlite3VdbeIntegerAffinity; a REAL column reads it back as a real,
// so -0.0 comes back as 0.0, as from SQLite).
func (r *Record) Real(f float64) {
	if math.IsNaN(f) {
		r.Null()
		return
	}
	if f > -(1<<63) && f < 1<<63 {
		if ix := int64(f); float64(ix) == f && ix != math.MinInt64 {
			r.Int(ix)
			return
		}
	}
	r.types = append(r.types, 7)
	r.body = binary.BigEndian.AppendUint64(r.body, math.Float64bits(f))
}

// Text appends a text value (bytes as given; the database's encoding is UTF-8).
func (r *Record) Text(s string) {
	r.types = append(r.types, 13+2*uint64(len(s)))
	r.body = append(r.body, s...)
}

// Bytes returns the record. It is valid until the next Reset.
func (r *Record) Bytes() []byte {
	// Most records have fewer than 127 values, each of a serial type under
	// 128: every varint of the header is then one byte, written as is.
	if len(r.types) < 127 {
		small := true
		for _, t := range r.types {
			if t >= 1<<7 {
				small = false
				break
			}
		}
		if small {
			h := 1 + len(r.types)
			out := slices.Grow(r.out[:0], h+len(r.body))[:h+len(r.body)]
			out[0] = byte(h)
			for i, t := range r.types {
				out[1+i] = byte(t)
			}
			copy(out[h:], r.body)
			r.out = out
			return out
		}
	}
	n := 0
	for _, t := range r.types {
		n += varintLen(t)
	}
	// The header's length counts its own varint.
	h := n + 1
	for varintLen(uint64(h)) != h-n {
		h = n + varintLen(uint64(h))
	}
	out := r.out[:0]
	out = appendVarint(out, uint64(h))
	for _, t := range r.types {
		out = appendVarint(out, t)
	}
	out = append(out, r.body...)
	r.out = out
	return out
}

// Ints returns the record of a row of integers, as Reset, Int for each value
// and Bytes would, in one pass: every serial type of an integer takes one
// byte, so the header's size is known before the values are looked at. It is
// valid until the next call.
func (r *Record) Ints(vals []int64) []byte {
	n := len(vals)
	if n > 126 {
		r.Reset()
		for _, v := range vals {
			r.Int(v)
		}
		return r.Bytes()
	}
	h := 1 + n
	// Each value is stored as 8 bytes, its own first, at the end of what
	// is written so far: the next value overwrites the rest. The last one
	// needs room for 8.
	if cap(r.out) < h+8*n {
		r.out = make([]byte, h+8*n)
	}
	out := r.out[:h+8*n]
	out[0] = byte(h)
	p := h
	for i, v := range vals {
		t := intSerial(v)
		out[1+i] = t.st
		// 0 and 1 take no bytes: the 8 written are overwritten too.
		binary.BigEndian.PutUint64(out[p:p+8], uint64(v)<<(t.shift&63))
		p += int(t.size)
	}
	r.out = out
	return out[:p]
}

// serial is the serial type of an integer, the bytes of its value and the
// shift that brings them to the top of 8.
type serial struct{ st, size, shift uint8 }

// intSerials holds, at 2+n, the serial type of an integer that needs n bits
// beside its sign (as appendInt chooses it), and at 0 and 1 those of 0 and 1.
var intSerials = func() (t [128]serial) {
	t[0], t[1] = serial{st: 8}, serial{st: 9}
	for n := range 64 {
		var st, size uint8
		switch {
		case n < 8:
			st, size = 1, 1
		case n < 16:
			st, size = 2, 2
		case n < 24:
			st, size = 3, 3
		case n < 32:
			st, size = 4, 4
		case n < 48:
			st, size = 5, 6
		default:
			st, size = 6, 8
		}
		t[2+n] = serial{st, size, 64 - 8*size}
	}
	return t
}()

// intSerial returns the serial type appendInt chooses for v, and its size.
func intSerial(v int64) serial {
	// v's bits beside the sign: those of v, or of its complement if negative.
	i := 2 + bits.Len64(uint64(v^(v>>63)))
	if uint64(v) <= 1 {
		i = int(v)
	}
	return intSerials[i&127]
}

// varintLen is the length of v as a SQLite varint.
func varintLen(v uint64) int {
	if v >= 1<<56 {
		return 9
	}
	return max(1, (bits.Len64(v)+6)/7)
}

// putVarint writes v as a SQLite varint of n bytes (varintLen(v)) at b's
// start.
func putVarint(b []byte, v uint64, n int) {
	if n == 9 {
		for i := range 8 {
			b[i] = byte(v>>(57-7*i)) | 0x80
		}
		b[8] = byte(v)
		return
	}
	_ = b[n-1]
	for i := range n - 1 {
		b[i] = byte(v>>(7*(n-1-i))) | 0x80
	}
	b[n-1] = byte(v) & 0x7f
}

// appendVarint appends v as a SQLite varint: big-endian groups of 7 bits, the
// high bit set on all but the last byte; a ninth byte carries 8 bits.
func appendVarint(b []byte, v uint64) []byte {
	if v < 1<<7 {
		return append(b, byte(v))
	}
	if v >= 1<<56 {
		b = append(b, byte(v>>57)|0x80, byte(v>>50)|0x80, byte(v>>43)|0x80, byte(v>>36)|0x80,
			byte(v>>29)|0x80, byte(v>>22)|0x80, byte(v>>15)|0x80, byte(v>>8)|0x80)
		return append(b, byte(v))
	}
	n := varintLen(v)
	for i := n - 1; i > 0; i-- {
		b = append(b, byte(v>>(7*i))|0x80)
	}
	return append(b, byte(v)&0x7f)
}

// readVarint reads a SQLite varint from b, returning the value and its length
// (0 if b is too short).
func readVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// Kind is the storage class of a value in a record.
type Kind uint8

// The storage classes a Record writes.
const (
	Null Kind = iota
	Integer
	Float
	Text
)

// Value is one value of a record.
type Value struct {
	Kind Kind
	Int  int64
	Real float64
	Text string
}

// Values appends the values of a record that Record made (no BLOBs) to dst.
func Values(dst []Value, rec []byte) ([]Value, error) {
	hlen, n := readVarint(rec)
	if n == 0 || hlen > uint64(len(rec)) || hlen < uint64(n) {
		return dst, fmt.Errorf("record header of %d bytes in a record of %d", hlen, len(rec))
	}
	head, body := rec[n:hlen], rec[hlen:]
	for len(head) > 0 {
		st, n := readVarint(head)
		if n == 0 {
			return dst, fmt.Errorf("truncated record header")
		}
		head = head[n:]
		size := 0
		switch {
		case st <= 4:
			size = int(st)
		case st == 5:
			size = 6
		case st == 6, st == 7:
			size = 8
		case st >= 13 && st%2 == 1:
			size = int((st - 13) / 2)
		case st == 8, st == 9:
		default:
			return dst, fmt.Errorf("serial type %d", st)
		}
		if size > len(body) {
			return dst, fmt.Errorf("record body ends within a value")
		}
		v := body[:size]
		body = body[size:]
		switch {
		case st == 0:
			dst = append(dst, Value{Kind: Null})
		case st == 7:
			dst = append(dst, Value{Kind: Float, Real: math.Float64frombits(binary.BigEndian.Uint64(v))})
		case st >= 13:
			dst = append(dst, Value{Kind: Text, Text: string(v)})
		case st == 8, st == 9:
			dst = append(dst, Value{Kind: Integer, Int: int64(st - 8)})
		default:
			// Big-endian two's complement of 1 to 8 bytes.
			x := int64(int8(v[0]))
			for _, c := range v[1:] {
				x = x<<8 | int64(c)
			}
			dst = append(dst, Value{Kind: Integer, Int: x})
		}
	}
	return dst, nil
}
