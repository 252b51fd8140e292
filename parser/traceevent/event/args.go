package event

import (
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
	var js *jsonscan.Decoder
	if d != nil {
		js = &d.args
		js.ResetBytes(raw)
	} else {
		js = jsonscan.NewBytes(raw)
	}
	if c, err := js.Peek(); err != nil || c != '{' {
		return dst, ErrNotObject
	}
	f := flattener{js: js, raw: raw, out: &dst, dec: d}
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
