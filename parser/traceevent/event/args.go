package event

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"tracestreamer/parser/jsonscan"
)

// Arg types (data_type.typeId of the reference).
const (
	ArgInt    = 0
	ArgString = 1
	ArgDouble = 2
	ArgBool   = 3
)

// MaxArgDepth is the nesting depth below which a subtree is kept as one JSON
// text value.
const MaxArgDepth = 64

// Arg is one flattened argument (docs/format/traceevent.md#arguments).
type Arg struct {
	Key   string
	Type  int
	Int   int64   // ArgInt, ArgBool (0/1)
	Float float64 // ArgDouble
	Str   string  // ArgString
	Null  bool    // ArgString with a NULL value (JSON null)
}

// FlattenArgs flattens a JSON object into arguments in JSON order: members
// join with ".", array elements use "[i]" ({"a":{"b":[7]}} gives a.b[0]). A
// member repeated in one object takes the place of its first occurrence with
// the value of its last, as JSON.parse (catapult, DevTools) and Perfetto
// read it; keys and strings with invalid UTF-8 have it replaced by U+FFFD
// (docs/format/traceevent.md#arguments).
func FlattenArgs(raw []byte) ([]Arg, error) { return flattenArgs(raw, nil) }

// flattenArgs is FlattenArgs sharing repeated keys and string values through
// d (nil: no sharing).
func flattenArgs(raw []byte, d *Decoder) ([]Arg, error) {
	list, _, err := AppendArgs(nil, raw, d)
	return list, err
}

// ArgProblems counts what flattening an args object tolerated.
type ArgProblems struct {
	BadStrings int // keys and strings with invalid UTF-8 or lone surrogates replaced, once each
	DupKeys    int // members repeated in one object, the last value kept
}

// AppendArgs is flattenArgs appending to dst, with what it tolerated.
func AppendArgs(dst []Arg, raw []byte, d *Decoder) ([]Arg, ArgProblems, error) {
	if len(raw) == 2 && raw[0] == '{' && raw[1] == '}' {
		// No arguments, as most b, e, B and E events of Chrome's traces
		// have: nothing to decode.
		return dst, ArgProblems{}, nil
	}
	var js *jsonscan.Decoder
	if d != nil {
		js = &d.args
		js.ResetBytes(raw)
	} else {
		js = jsonscan.NewBytes(raw)
	}
	if c, err := js.Peek(); err != nil || c != '{' {
		return dst, ArgProblems{}, ErrNotObject
	}
	// f stays on the stack: the output grows in f.out, the buffers come
	// from d and go back to it.
	f := flattener{js: js, raw: raw, out: dst, dec: d, seen: js.LoneSurrogates}
	if d != nil {
		f.flattenBufs = d.flat
	}
	err := f.flatten("", 0)
	if d != nil {
		d.flat = f.flattenBufs.reset()
	}
	return f.out, f.problems, err
}

// flattenBufs is the memory a flattener reuses from one call to the next.
type flattenBufs struct {
	// members are the members of the objects being flattened, innermost
	// last; byKey finds those of objects with many members.
	members []member
	byKey   map[memberKey]int
	tmp     []Arg
	// names holds the member names of the objects being read, innermost
	// last; scratch is where keys and string values are put together.
	names   []byte
	scratch []byte
}

// reset empties the buffers for the next call, letting go of large ones
// (the strings they still hold are the decoder's shared ones).
func (b flattenBufs) reset() flattenBufs {
	const large = 1 << 12
	if len(b.byKey) > large {
		b.byKey = nil
	} else {
		clear(b.byKey)
	}
	if cap(b.members) > large {
		b.members = nil
	}
	if cap(b.tmp) > large {
		b.tmp = nil
	}
	if cap(b.names) > large {
		b.names = nil
	}
	if cap(b.scratch) > large {
		b.scratch = nil
	}
	return flattenBufs{members: b.members[:0], byKey: b.byKey, tmp: b.tmp[:0], names: b.names[:0],
		scratch: b.scratch[:0]}
}

// flattener holds the state of one FlattenArgs call.
type flattener struct {
	js       *jsonscan.Decoder
	raw      []byte
	out      []Arg
	dec      *Decoder
	problems ArgProblems
	// seen is js.LoneSurrogates at the latest str: the lone surrogates
	// replaced since are in the key or string str is given.
	seen int64
	flattenBufs
}

// member is a member of an object being flattened: its full key and where
// the arguments of its latest value lie in out.
type member struct {
	key        string
	start, end int
}

// memberKey identifies a member among those of the objects being flattened:
// base is where its object's members start in members.
type memberKey struct {
	base int
	key  string
}

// linearMembers is the most members of an object searched one by one for a
// repeated key; beyond, byKey finds them.
const linearMembers = 8

// str makes a string of b, shared through the decoder when there is one;
// invalid UTF-8 is replaced. b is a key or string value read since the
// previous call (with its parent's key in front, valid already): one with
// invalid UTF-8 or a lone surrogate escape, or both, is counted once.
func (f *flattener) str(b []byte) string {
	surrogate := f.js.LoneSurrogates != f.seen
	f.seen = f.js.LoneSurrogates
	if !utf8.Valid(b) {
		f.problems.BadStrings++
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	if surrogate {
		f.problems.BadStrings++
	}
	if f.dec != nil {
		return f.dec.intern(b)
	}
	return string(b)
}

// text makes a string of JSON text b, invalid UTF-8 replaced (and counted).
func (f *flattener) text(b []byte) string {
	if !utf8.Valid(b) {
		f.problems.BadStrings++
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(b)
}

// find returns the position in members of the member of the object whose
// members start at base with key key, -1 if there is none.
func (f *flattener) find(base int, key string) int {
	if len(f.members)-base <= linearMembers {
		for i := base; i < len(f.members); i++ {
			if f.members[i].key == key {
				return i
			}
		}
		return -1
	}
	if f.byKey == nil {
		f.byKey = map[memberKey]int{}
	}
	if len(f.members)-base == linearMembers+1 { // the first search by key in this object
		for i := base; i < len(f.members); i++ {
			f.byKey[memberKey{base, f.members[i].key}] = i
		}
	}
	i, ok := f.byKey[memberKey{base, key}]
	if ok && i >= base && i < len(f.members) && f.members[i].key == key {
		return i
	}
	return -1
}

// member flattens the value of member key of the object whose members start
// at base. A repeated member's new arguments are left at the end of out,
// and freed (-1 for a member not repeated) is how many of the previous
// occurrence's are left behind: the caller puts each member's in their
// place (compact). Moving them there at once cost time in proportion to
// the arguments after the first occurrence, for each repeat.
func (f *flattener) member(base int, key string, depth int) (freed int, err error) {
	start := len(f.out)
	prev := f.find(base, key)
	i := prev
	if prev < 0 {
		i = len(f.members)
		f.members = append(f.members, member{key: key})
		if f.byKey != nil && len(f.members)-base > linearMembers {
			f.byKey[memberKey{base, key}] = i
		}
	}
	if err := f.flatten(key, depth); err != nil {
		return -1, err
	}
	m := &f.members[i]
	freed = m.end - m.start
	m.start, m.end = start, len(f.out)
	if prev < 0 {
		return -1, nil
	}
	f.problems.DupKeys++
	return freed, nil
}

// compact puts the arguments of the members from base on in their order,
// each member's latest ones only, from out[from:] on.
func (f *flattener) compact(base, from int) {
	f.tmp = f.tmp[:0]
	for i := base; i < len(f.members); i++ {
		m := &f.members[i]
		start := from + len(f.tmp)
		f.tmp = append(f.tmp, f.out[m.start:m.end]...)
		m.start, m.end = start, from+len(f.tmp)
	}
	f.out = append(f.out[:from], f.tmp...)
}

func (f *flattener) flatten(key string, depth int) error {
	js, raw := f.js, f.raw
	c, err := js.Peek()
	if err != nil {
		return err
	}
	start := js.Offset()
	if (c == '{' || c == '[') && depth >= MaxArgDepth {
		if err := js.SkipValue(); err != nil {
			return err
		}
		f.out = append(f.out, Arg{Key: key, Type: ArgString, Str: f.text(TrimSpace(raw[start:js.Offset()]))})
		return nil
	}
	switch c {
	case '{':
		n, err := f.object(key, depth)
		if err == nil && n == 0 && depth > 0 {
			f.out = append(f.out, Arg{Key: key, Type: ArgString, Str: "{}"})
		}
		return err
	case '[':
		n := 0
		err := js.Array(func(i int) error {
			n++
			f.scratch = append(append(f.scratch[:0], key...), '[')
			f.scratch = append(strconv.AppendInt(f.scratch, int64(i), 10), ']')
			return f.flatten(f.str(f.scratch), depth+1)
		})
		if err == nil && n == 0 {
			f.out = append(f.out, Arg{Key: key, Type: ArgString, Str: "[]"})
		}
		return err
	case '"':
		b, err := js.ReadString(f.scratch[:0])
		f.scratch = b[:0]
		f.out = append(f.out, Arg{Key: key, Type: ArgString, Str: f.str(b)})
		return err
	case 't', 'f', 'n':
		if err := js.SkipValue(); err != nil {
			return err
		}
		switch raw[start] {
		case 't':
			f.out = append(f.out, Arg{Key: key, Type: ArgBool, Int: 1})
		case 'f':
			f.out = append(f.out, Arg{Key: key, Type: ArgBool})
		default:
			f.out = append(f.out, Arg{Key: key, Type: ArgString, Null: true})
		}
		return nil
	}
	num, err := js.ReadNumber()
	if err != nil {
		return err
	}
	if IsIntegerLiteral(num) {
		if v, ok := parseIntLiteral(num); ok {
			f.out = append(f.out, Arg{Key: key, Type: ArgInt, Int: v})
		} else {
			f.out = append(f.out, Arg{Key: key, Type: ArgString, Str: string(num)}) // beyond int64: exact digits
		}
		return nil
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return js.Errorf("%q is not a number", num)
	}
	f.out = append(f.out, Arg{Key: key, Type: ArgDouble, Float: v})
	return nil
}

// object flattens the members of the object at the reader under key,
// returning how many it has. It reads them as jsonscan's Object does, with
// the member names in f.names instead of a buffer of each object's own and
// no function value per object; an error is returned inside the member's
// name as Object returns it.
func (f *flattener) object(key string, depth int) (n int, err error) {
	if err := f.js.Expect('{'); err != nil {
		return 0, err
	}
	// A repeated member's new arguments wait at the end of out (moved) and
	// its earlier ones (dead) in out, until compact puts them in place:
	// when the object ends, or as soon as the dead ones outnumber both the
	// others and 256, so that they cost neither time nor memory out of
	// proportion to those.
	base, mark, from, dead, moved := len(f.members), len(f.names), len(f.out), 0, false
	for ; ; n++ {
		// The name goes after those of the enclosing objects, where the
		// members' values do not write: it is valid until this member's
		// value is read, and its bytes stay as they are if names grows.
		var k []byte
		var ok bool
		k, ok, err = f.js.Key(f.names[:mark], n == 0)
		f.names = k
		if err != nil || !ok {
			break
		}
		name := k[mark:]
		f.scratch = f.scratch[:0]
		if key != "" {
			f.scratch = append(append(f.scratch, key...), '.')
		}
		f.scratch = append(f.scratch, name...)
		freed, merr := f.member(base, f.str(f.scratch), depth+1)
		if merr != nil {
			n, err = n+1, jsonscan.InMember(string(name), merr)
			break
		}
		if freed >= 0 {
			moved = true
			if dead += freed; dead > max(len(f.out)-from-dead, 256) {
				f.compact(base, from)
				dead, moved = 0, false
			}
		}
	}
	if moved && err == nil {
		f.compact(base, from)
	}
	f.members, f.names = f.members[:base], f.names[:mark]
	return n, err
}

// parseIntLiteral is strconv.ParseInt of an integer literal (IsIntegerLiteral)
// without its error value: ok is false when the value is beyond int64.
func parseIntLiteral(b []byte) (v int64, ok bool) {
	limit := uint64(math.MaxInt64)
	neg := b[0] == '-'
	if neg {
		b, limit = b[1:], limit+1
	}
	var u uint64
	for _, c := range b {
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return -int64(u), true // -(1<<63) included: int64(1<<63) is its own negation
	}
	return int64(u), true
}

func IsIntegerLiteral(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FlattenOrNil flattens raw args, nil when there are none or they are not an
// object.
func FlattenOrNil(raw []byte) []Arg { return flattenShared(raw, nil) }

// flattenShared is FlattenOrNil sharing repeated strings through d (nil: no
// sharing).
func flattenShared(raw []byte, d *Decoder) []Arg {
	if raw == nil {
		return nil
	}
	list, err := flattenArgs(raw, d)
	if err != nil {
		return nil
	}
	return list
}
