package event

import (
	"encoding/binary"
	"errors"
)

// An event record is a decoded Event in a compact binary form: what the
// first pass hands to the sorter, so that the second pass reads events back
// without decoding their JSON again. Every field but Seq and Offset (which
// travel in the sort key) is kept; byte fields (Args, ID, …) stay raw JSON.
//
// Layout: a uvarint of flag bits, the ph byte, then only the fields the flags
// announce, in the order of the bits: timestamps as varints, pid and tid
// numbers as varints, strings and byte fields as a uvarint length and the
// bytes, and the four problem counts as uvarints.

const (
	recPhLong = 1 << iota
	recFlowIn
	recFlowOut
	recHasStack
	recArgsInvalid
	recBadThreadTime
	recHasName
	recHasCat
	recCounts // DupKeys, TrailingCommas, NumericStrs, BadStrings follow
	recTime   // 4 times × (present, valid): bits recTime … recTime<<7
	_
	_
	_
	_
	_
	_
	_
	recIdent // 2 idents × (present, is string, number ≠ 0, string ≠ ""): recIdent … recIdent<<7
	_
	_
	_
	_
	_
	_
	_
	recStr // 6 strings ≠ "": Name, Cat, Scope, S, BP, CName
	_
	_
	_
	_
	_
	recBytes // 6 byte fields ≠ nil: Args, ID, ID2, BindID, SF, ESF
)

var ErrRecord = errors.New("corrupt event record")

// AppendRecord appends the record of ev to b. Each field is looked at
// once where its flag is set and once where it is written, without copying
// the fields into arrays first (which made it a tenth slower).
func AppendRecord(b []byte, ev *Event) []byte {
	var flags uint64
	bit := func(on bool, f uint64) uint64 {
		if on {
			return f
		}
		return 0
	}
	flags |= bit(ev.PhLong, recPhLong) | bit(ev.FlowIn, recFlowIn) | bit(ev.FlowOut, recFlowOut) |
		bit(ev.HasStack, recHasStack) | bit(ev.ArgsInvalid, recArgsInvalid) |
		bit(ev.BadThreadTime, recBadThreadTime) | bit(ev.HasName, recHasName) | bit(ev.HasCat, recHasCat) |
		bit(ev.DupKeys|ev.TrailingCommas|ev.NumericStrs|ev.BadStrings != 0, recCounts)
	flags |= timeFlags(&ev.TS, 0) | timeFlags(&ev.Dur, 1) | timeFlags(&ev.TTS, 2) | timeFlags(&ev.TDur, 3)
	flags |= identFlags(&ev.Pid, 0) | identFlags(&ev.Tid, 1)
	flags |= bit(ev.Name != "", recStr) | bit(ev.Cat != "", recStr<<1) | bit(ev.Scope != "", recStr<<2) |
		bit(ev.S != "", recStr<<3) | bit(ev.BP != "", recStr<<4) | bit(ev.CName != "", recStr<<5)
	flags |= bit(ev.Args != nil, recBytes) | bit(ev.ID != nil, recBytes<<1) | bit(ev.ID2 != nil, recBytes<<2) |
		bit(ev.BindID != nil, recBytes<<3) | bit(ev.SF != nil, recBytes<<4) | bit(ev.ESF != nil, recBytes<<5)

	b = binary.AppendUvarint(b, flags)
	b = append(b, ev.Ph)
	b = appendTime(b, &ev.TS)
	b = appendTime(b, &ev.Dur)
	b = appendTime(b, &ev.TTS)
	b = appendTime(b, &ev.TDur)
	b = appendIdent(b, &ev.Pid)
	b = appendIdent(b, &ev.Tid)
	b = appendString(b, ev.Name)
	b = appendString(b, ev.Cat)
	b = appendString(b, ev.Scope)
	b = appendString(b, ev.S)
	b = appendString(b, ev.BP)
	b = appendString(b, ev.CName)
	b = appendBytes(b, ev.Args)
	b = appendBytes(b, ev.ID)
	b = appendBytes(b, ev.ID2)
	b = appendBytes(b, ev.BindID)
	b = appendBytes(b, ev.SF)
	b = appendBytes(b, ev.ESF)
	if flags&recCounts != 0 {
		b = binary.AppendUvarint(b, uint64(ev.DupKeys))
		b = binary.AppendUvarint(b, uint64(ev.TrailingCommas))
		b = binary.AppendUvarint(b, uint64(ev.NumericStrs))
		b = binary.AppendUvarint(b, uint64(ev.BadStrings))
	}
	return b
}

// timeFlags returns the record's flags of time i (present, valid).
func timeFlags(t *Time, i int) uint64 { return flagBits(recTime, 2*i, t.Present, t.Valid) }

// identFlags returns the record's flags of ident i (present, is string,
// number ≠ 0, string ≠ "").
func identFlags(id *Ident, i int) uint64 {
	return flagBits(recIdent, 4*i, id.Present, id.IsStr, id.Num != 0, id.Str != "")
}

// flagBits returns the bits of set, the first at unit<<at, the others
// above it in order.
func flagBits(unit uint64, at int, set ...bool) uint64 {
	var f uint64
	for k, on := range set {
		if on {
			f |= unit << (at + k)
		}
	}
	return f
}

func appendTime(b []byte, t *Time) []byte {
	if t.Present {
		b = binary.AppendVarint(b, t.NS)
	}
	return b
}

func appendIdent(b []byte, id *Ident) []byte {
	if id.Num != 0 {
		b = binary.AppendVarint(b, id.Num)
	}
	return appendString(b, id.Str)
}

// appendString appends s, length first, unless it is "".
func appendString(b []byte, s string) []byte {
	if s != "" {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// appendBytes appends r, length first, unless it is nil.
func appendBytes(b []byte, r []byte) []byte {
	if r != nil {
		b = binary.AppendUvarint(b, uint64(len(r)))
		b = append(b, r...)
	}
	return b
}

// recordReader takes a record apart; err is set by the first read past its
// end or of a malformed number.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	if len(r.b) > 0 && r.b[0] < 0x80 { // one byte: most lengths
		v := uint64(r.b[0])
		r.b = r.b[1:]
		return v
	}
	return r.longUvarint()
}

// longUvarint is uvarint of more than one byte, out of line so that
// uvarint's one-byte case is a short function of its own (too long to
// inline all the same: cost 91 against the compiler's budget of 80).
func (r *recordReader) longUvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint reads what binary.AppendVarint wrote: a zig-zag encoded uvarint.
func (r *recordReader) varint() int64 {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// bytes returns the next length-prefixed field, pointing into the record.
func (r *recordReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return []byte{}
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *recordReader) fail() {
	if r.err == nil {
		r.err = ErrRecord
	}
	r.b = nil
}

// DecodeRecord decodes a record made by AppendRecord into d's event, which
// stays valid until the next call; its byte fields point into rec and its
// strings are shared through d. Seq and Offset are left zero.
func (d *Decoder) DecodeRecord(rec []byte) (*Event, error) {
	d.target()
	*d.ev = Event{}
	ev := d.ev
	r := recordReader{b: rec}
	flags := r.uvarint()
	if r.err != nil || len(r.b) == 0 {
		return nil, ErrRecord
	}
	has := func(bit uint64) bool { return flags&bit != 0 }
	ev.Ph, r.b = r.b[0], r.b[1:]
	ev.PhLong = has(recPhLong)
	ev.FlowIn = has(recFlowIn)
	ev.FlowOut = has(recFlowOut)
	ev.HasStack = has(recHasStack)
	ev.ArgsInvalid = has(recArgsInvalid)
	ev.BadThreadTime = has(recBadThreadTime)
	ev.HasName = has(recHasName)
	ev.HasCat = has(recHasCat)
	for i, t := range [4]*Time{&ev.TS, &ev.Dur, &ev.TTS, &ev.TDur} {
		t.Present, t.Valid = has(recTime<<(2*i)), has(recTime<<(2*i+1))
		if t.Present {
			t.NS = r.varint()
		}
	}
	for i, id := range [2]*Ident{&ev.Pid, &ev.Tid} {
		id.Present, id.IsStr = has(recIdent<<(4*i)), has(recIdent<<(4*i+1))
		if has(recIdent << (4*i + 2)) {
			id.Num = r.varint()
		}
		if has(recIdent << (4*i + 3)) {
			id.Str = d.intern(r.bytes())
		}
	}
	for i, s := range [6]*string{&ev.Name, &ev.Cat, &ev.Scope, &ev.S, &ev.BP, &ev.CName} {
		if has(recStr << i) {
			// Most events repeat the string of the event before.
			if b := r.bytes(); string(b) == d.last[i] {
				*s = d.last[i]
			} else {
				*s = d.internRecent(b)
				d.last[i] = *s
			}
		}
	}
	for i, f := range [6]*[]byte{&ev.Args, &ev.ID, &ev.ID2, &ev.BindID, &ev.SF, &ev.ESF} {
		if has(recBytes << i) {
			*f = r.bytes()
		}
	}
	if has(recCounts) {
		for _, n := range [4]*int{&ev.DupKeys, &ev.TrailingCommas, &ev.NumericStrs, &ev.BadStrings} {
			*n = int(r.uvarint())
		}
	}
	if r.err != nil || len(r.b) != 0 || flags >= recBytes<<6 {
		return nil, ErrRecord
	}
	return ev, nil
}
