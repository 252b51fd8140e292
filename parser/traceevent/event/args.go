package event

import (
	"bytes"
	"strconv"

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
// join with ".", array elements use "[i]" ({"a":{"b":[7]}} gives a.b[0]).
func FlattenArgs(raw []byte) ([]Arg, error) { return flattenArgs(raw, nil) }

// flattenArgs is FlattenArgs sharing repeated keys and string values through
// d (nil: no sharing).
func flattenArgs(raw []byte, d *Decoder) ([]Arg, error) { return AppendArgs(nil, raw, d) }

// AppendArgs is flattenArgs appending to dst.
func AppendArgs(dst []Arg, raw []byte, d *Decoder) ([]Arg, error) {
	return appendArgs(dst, raw, d, d == nil || !d.general)
}

// appendArgs is AppendArgs; fast tries fastValue before the general
// flattener (tests compare the two).
func appendArgs(dst []Arg, raw []byte, d *Decoder, fast bool) ([]Arg, error) {
	if i := skipSpace(raw, 0); i >= len(raw) || raw[i] != '{' {
		return dst, ErrNotObject
	}
	f := flattener{raw: raw, out: &dst, dec: d}
	if fast {
		n := len(dst)
		if _, ok := f.fastValue(0, "", 0); ok {
			return dst, nil
		}
		dst = dst[:n]
	}
	if d != nil {
		f.js = &d.args
		f.js.ResetBytes(raw)
	} else {
		f.js = jsonscan.NewBytes(raw)
	}
	err := f.flatten("", 0)
	return dst, err
}

// flattener holds the state of one FlattenArgs call.
type flattener struct {
	js      *jsonscan.Decoder
	raw     []byte
	out     *[]Arg
	dec     *Decoder
	scratch []byte
}

// str makes a string of b, shared through the decoder when there is one.
func (f *flattener) str(b []byte) string {
	if f.dec != nil {
		return f.dec.intern(b)
	}
	return string(b)
}

func (f *flattener) flatten(key string, depth int) error {
	js, raw, out := f.js, f.raw, f.out
	c, err := js.Peek()
	if err != nil {
		return err
	}
	start := js.Offset()
	if (c == '{' || c == '[') && depth >= MaxArgDepth {
		if err := js.SkipValue(); err != nil {
			return err
		}
		*out = append(*out, Arg{Key: key, Type: ArgString, Str: string(TrimSpace(raw[start:js.Offset()]))})
		return nil
	}
	switch c {
	case '{':
		n := 0
		err := js.Object(func(k []byte) error {
			n++
			f.scratch = f.scratch[:0]
			if key != "" {
				f.scratch = append(append(f.scratch, key...), '.')
			}
			f.scratch = append(f.scratch, k...)
			return f.flatten(f.str(f.scratch), depth+1)
		})
		if err == nil && n == 0 && depth > 0 {
			*out = append(*out, Arg{Key: key, Type: ArgString, Str: "{}"})
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
			*out = append(*out, Arg{Key: key, Type: ArgString, Str: "[]"})
		}
		return err
	case '"':
		b, err := js.ReadString(f.scratch[:0])
		f.scratch = b[:0]
		*out = append(*out, Arg{Key: key, Type: ArgString, Str: f.str(b)})
		return err
	case 't', 'f', 'n':
		if err := js.SkipValue(); err != nil {
			return err
		}
		switch raw[start] {
		case 't':
			*out = append(*out, Arg{Key: key, Type: ArgBool, Int: 1})
		case 'f':
			*out = append(*out, Arg{Key: key, Type: ArgBool})
		default:
			*out = append(*out, Arg{Key: key, Type: ArgString, Null: true})
		}
		return nil
	}
	num, err := js.ReadNumber()
	if err != nil {
		return err
	}
	if IsIntegerLiteral(num) {
		if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			*out = append(*out, Arg{Key: key, Type: ArgInt, Int: v})
		} else {
			*out = append(*out, Arg{Key: key, Type: ArgString, Str: string(num)}) // beyond int64: exact digits
		}
		return nil
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return js.Errorf("%q is not a number", num)
	}
	*out = append(*out, Arg{Key: key, Type: ArgDouble, Float: v})
	return nil
}

// fastValue flattens the value at raw[i:] like flatten, for the common case:
// strings and keys without escapes or control characters, strict
// punctuation, nesting below MaxArgDepth. It returns the position after the
// value, or false for anything else (the general flattener then decides,
// from the start, what the arguments are).
func (f *flattener) fastValue(i int, key string, depth int) (int, bool) {
	raw, out := f.raw, f.out
	i = skipSpace(raw, i)
	if i >= len(raw) {
		return 0, false
	}
	switch raw[i] {
	case '{':
		if depth >= MaxArgDepth {
			return 0, false
		}
		i = skipSpace(raw, i+1)
		if i < len(raw) && raw[i] == '}' {
			if depth > 0 {
				*out = append(*out, Arg{Key: key, Type: ArgString, Str: "{}"})
			}
			return i + 1, true
		}
		for {
			if i >= len(raw) || raw[i] != '"' {
				return 0, false
			}
			ke, ok := plainStringEnd(raw, i+1)
			if !ok {
				return 0, false
			}
			f.scratch = f.scratch[:0]
			if key != "" {
				f.scratch = append(append(f.scratch, key...), '.')
			}
			f.scratch = append(f.scratch, raw[i+1:ke]...)
			i = skipSpace(raw, ke+1)
			if i >= len(raw) || raw[i] != ':' {
				return 0, false
			}
			if i, ok = f.fastValue(i+1, f.str(f.scratch), depth+1); !ok {
				return 0, false
			}
			if i = skipSpace(raw, i); i >= len(raw) {
				return 0, false
			}
			switch raw[i] {
			case ',':
				i = skipSpace(raw, i+1)
			case '}':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case '[':
		if depth >= MaxArgDepth {
			return 0, false
		}
		i = skipSpace(raw, i+1)
		if i < len(raw) && raw[i] == ']' {
			*out = append(*out, Arg{Key: key, Type: ArgString, Str: "[]"})
			return i + 1, true
		}
		for n := 0; ; n++ {
			f.scratch = append(append(f.scratch[:0], key...), '[')
			f.scratch = append(strconv.AppendInt(f.scratch, int64(n), 10), ']')
			var ok bool
			if i, ok = f.fastValue(i, f.str(f.scratch), depth+1); !ok {
				return 0, false
			}
			if i = skipSpace(raw, i); i >= len(raw) {
				return 0, false
			}
			switch raw[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case '"':
		e, ok := plainStringEnd(raw, i+1)
		if !ok {
			return 0, false
		}
		*out = append(*out, Arg{Key: key, Type: ArgString, Str: f.str(raw[i+1 : e])})
		return e + 1, true
	case 't':
		if !bytes.HasPrefix(raw[i:], []byte("true")) {
			return 0, false
		}
		*out = append(*out, Arg{Key: key, Type: ArgBool, Int: 1})
		return i + 4, true
	case 'f':
		if !bytes.HasPrefix(raw[i:], []byte("false")) {
			return 0, false
		}
		*out = append(*out, Arg{Key: key, Type: ArgBool})
		return i + 5, true
	case 'n':
		if !bytes.HasPrefix(raw[i:], []byte("null")) {
			return 0, false
		}
		*out = append(*out, Arg{Key: key, Type: ArgString, Null: true})
		return i + 4, true
	}
	// A number: the bytes jsonscan takes for one, converted as flatten does.
	j := i
	for j < len(raw) && numberByte[raw[j]] {
		j++
	}
	if j == i {
		return 0, false
	}
	num := raw[i:j]
	if IsIntegerLiteral(num) {
		if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			*out = append(*out, Arg{Key: key, Type: ArgInt, Int: v})
		} else {
			*out = append(*out, Arg{Key: key, Type: ArgString, Str: string(num)})
		}
		return j, true
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return 0, false
	}
	*out = append(*out, Arg{Key: key, Type: ArgDouble, Float: v})
	return j, true
}

// numberByte marks the bytes jsonscan reads as part of a number.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true,
	'7': true, '8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// plainStringEnd returns the index of the quote that ends the string whose
// text starts at raw[i], or false if the text has an escape or a control
// character, or does not end.
func plainStringEnd(raw []byte, i int) (int, bool) {
	for ; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return i, true
		case c == '\\' || c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\r' || raw[i] == '\t') {
		i++
	}
	return i
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
