package event

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/tokenizer"
)

// Ident is a pid or tid: a number, or a string that is not one (the importer
// maps those to synthetic numbers).
type Ident struct {
	Num     int64
	Str     string
	IsStr   bool
	Present bool
}

// Time is a decoded timestamp or duration in ns.
type Time struct {
	NS      int64
	Present bool // the field was there
	Valid   bool // and decoded to a value in [0, 2^63)
}

// Event is the decoded common fields of one traceEvents element (docs/format/traceevent.md#element-fields).
type Event struct {
	Seq    int64
	Offset int64

	Ph     byte // first character of ph; 0 when missing or not a string
	PhLong bool // ph had more than one character

	TS, Dur, TTS, TDur Time
	Pid, Tid           Ident

	Name, Cat string // "" when missing, empty or not a string
	HasName   bool
	HasCat    bool

	Args           []byte // raw JSON object of args (nil: none)
	ArgsInvalid    bool   // args was neither an object nor "__stripped__"
	ID, ID2        []byte // raw JSON values
	Scope          string
	S              string // instant scope
	BP             string
	BindID         []byte
	FlowIn         bool
	FlowOut        bool
	SF, ESF        []byte
	CName          string
	HasStack       bool // stack or estack given (not symbolised)
	DupKeys        int  // duplicate keys in the element
	TrailingCommas int  // tolerated trailing commas inside the element
	NumericStrs    int  // numeric fields given as strings
	BadStrings     int  // strings with invalid UTF-8 replaced
	BadThreadTime  bool // tts or tdur present but unusable

	dec *Decoder // while decoding: where strings are interned

	// flat holds Args flattened ahead of time (by the decoding goroutine),
	// in memory its batch reuses; hasFlat tells that it is set.
	flat     []Arg
	hasFlat  bool
	argProbs ArgProblems
	// argsHash is a hash of Args computed ahead of time (SetArgsHash);
	// hasArgsHash tells that it is set.
	argsHash    uint64
	hasArgsHash bool
}

// SetArgsHash records h, a hash of Args computed ahead of time (by the
// decoding goroutine), for whoever looks Args up by the same hash.
func (ev *Event) SetArgsHash(h uint64) { ev.argsHash, ev.hasArgsHash = h, true }

// ArgsHash returns the hash SetArgsHash recorded, and whether there is one.
func (ev *Event) ArgsHash() (uint64, bool) { return ev.argsHash, ev.hasArgsHash }

// FlatArgs returns the event's flattened arguments (nil: none).
func (ev *Event) FlatArgs() []Arg {
	if ev.hasFlat {
		return ev.flat
	}
	return FlattenOrNil(ev.Args)
}

// Flattened returns the arguments flattened ahead of time (SetFlatArgs),
// and whether they were.
func (ev *Event) Flattened() ([]Arg, bool) { return ev.flat, ev.hasFlat }

// SetFlatArgs records the event's arguments flattened ahead of time (nil:
// none) and what flattening them tolerated, so that FlatArgs does not
// flatten them again.
func (ev *Event) SetFlatArgs(list []Arg, p ArgProblems) {
	ev.flat, ev.hasFlat, ev.argProbs = list, true, p
}

// ArgProblems returns what flattening the arguments tolerated, when they
// were flattened ahead of time (SetFlatArgs).
func (ev *Event) ArgProblems() ArgProblems { return ev.argProbs }

// ErrNotObject is returned by Decode for an element that is not an object.
var ErrNotObject = errors.New("element is not an object")

// Decode decodes the common fields of an element. Trailing commas inside it
// are tolerated (counted in TrailingCommas); any other syntax error is
// returned (the element is then skipped). The event's byte fields (Args, ID,
// …) point into el.Raw.
func Decode(el *tokenizer.Element) (*Event, error) {
	var d Decoder
	ev, err := d.Decode(el)
	if err != nil {
		return nil, err
	}
	out := *ev
	return &out, nil
}

// maxInterned bounds how many distinct strings a Decoder shares.
const maxInterned = 1 << 16

// Decoder decodes elements like Decode, reusing one Event between calls and
// keeping one copy of strings that repeat (names, categories), which is what
// most of a trace's strings do. The zero value is ready to use.
type Decoder struct {
	ev     *Event // the event decoded into: own, or the caller's (Into)
	own    Event
	strs   map[string]string
	keyBuf []byte              // the keys of the current element, one after the other
	keyEnd []uint32            // where each ends in keyBuf
	keySet map[string]struct{} // the keys of an element of many (addKey)
	// general makes the decoder skip its fast path (tests compare the two).
	general bool
	borrow  bool             // Decode's strings point into the element (BorrowStrings)
	args    jsonscan.Decoder // reused to flatten arguments
	flat    flattenBufs      // reused to flatten arguments
	last    [6]string        // DecodeRecord: the latest of each string field
	// recent holds strings DecodeRecord interned lately, at a hash of
	// their length and three of their bytes (internRecent).
	recent [256]string
}

// Decode decodes el. The returned Event is valid until the next call.
func (d *Decoder) Decode(el *tokenizer.Element) (*Event, error) {
	err := d.decode(el, el.Raw)
	if err == nil || errors.Is(err, ErrNotObject) {
		if err != nil {
			return nil, err
		}
		return d.ev, nil
	}
	fixed, n := stripTrailingCommas(el.Raw)
	if n == 0 {
		return nil, err
	}
	if d.decode(el, fixed) != nil {
		return nil, err
	}
	d.ev.TrailingCommas = n
	return d.ev, nil
}

// Into makes Decode and DecodeRecord decode into ev, which the caller owns,
// instead of the decoder's own Event (nil: its own again), and return it:
// a caller that keeps each event in a place of its own spares copying it
// there (some 500 bytes). ev is overwritten whole, whether the decoding
// succeeds or not.
func (d *Decoder) Into(ev *Event) { d.ev = ev }

// target makes d.ev the event decoded into.
func (d *Decoder) target() {
	if d.ev == nil {
		d.ev = &d.own
	}
}

// BorrowStrings sets whether the string fields of the events Decode returns
// point into the element's bytes (or a buffer of their own) instead of being
// copied or shared with earlier ones: valid only as long as the element's
// bytes are, for a caller that copies what it keeps (the first pass, which
// encodes each event as a record). It spares a map lookup per string.
// DecodeRecord and argument flattening always copy or share.
func (d *Decoder) BorrowStrings(on bool) { d.borrow = on }

// intern returns a string equal to b, shared with earlier equal strings.
func (d *Decoder) intern(b []byte) string {
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.strs == nil {
		d.strs = map[string]string{}
	}
	if len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s
}

// internRecent is intern for DecodeRecord, which meets the same few names
// and categories over and over: a string met lately is found in recent
// without a map lookup.
func (d *Decoder) internRecent(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	i := byte(len(b)*7) ^ b[0] ^ b[len(b)/2]<<1 ^ b[len(b)-1]<<2
	if s := d.recent[i]; s == string(b) {
		return s
	}
	s := d.intern(b)
	d.recent[i] = s
	return s
}

// stripTrailingCommas removes commas that are followed (after white space) by
// a closing bracket, outside strings.
func stripTrailingCommas(b []byte) ([]byte, int) {
	out := make([]byte, 0, len(b))
	n := 0
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				n++
				continue
			}
		}
		out = append(out, c)
	}
	return out, n
}

func (d *Decoder) decode(el *tokenizer.Element, raw []byte) error {
	d.target()
	*d.ev = Event{Seq: el.Seq, Offset: el.Offset, dec: d}
	ev := d.ev
	js := jsonscan.NewBytes(raw)
	if c, err := js.Peek(); err != nil || c != '{' {
		return ErrNotObject
	}
	d.resetKeys()
	if !d.general && d.fastDecode(raw) {
		ev.id2Surrogate()
		ev.dec = nil
		return nil
	}
	// The general decoder: start over.
	*ev = Event{Seq: el.Seq, Offset: el.Offset, dec: d}
	d.resetKeys()
	var seen uint64
	err := js.Object(func(key []byte) error {
		d.addKey(key, &seen)
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		ev.field(key, TrimSpace(raw[start:js.Offset()]))
		return nil
	})
	ev.id2Surrogate()
	ev.dec = nil
	return err
}

func TrimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// str decodes a JSON string value; ok is false for other values and for "".
func (ev *Event) str(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var b []byte
	replaced := false // a lone surrogate escape or invalid UTF-8, replaced by U+FFFD
	if i := bytes.IndexByte(raw[1:], '"'); i >= 0 && bytes.IndexByte(raw[1:i+1], '\\') < 0 {
		b = raw[1 : i+1] // no escapes: the text itself
	} else {
		var err error
		d := jsonscan.NewBytes(raw)
		if b, err = d.ReadString(nil); err != nil {
			return "", false
		}
		replaced = d.LoneSurrogates > 0
	}
	var s string
	switch {
	case ev.dec != nil && ev.dec.borrow && len(b) > 0:
		s = unsafe.String(&b[0], len(b))
	case ev.dec != nil:
		s = ev.dec.intern(b)
	default:
		s = string(b)
	}
	if !utf8.ValidString(s) {
		replaced = true
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if replaced {
		ev.BadStrings++ // counted once per string, whatever was replaced
	}
	return s, s != ""
}

// idText keeps the JSON text of an id member as it is (the trackers decode
// it, invalid UTF-8 and lone surrogate escapes replaced: tracker.NormaliseID)
// and counts text with invalid UTF-8 once, as str counts a string, and a
// string whose decoding meets a lone surrogate escape. id2, an object, is
// looked at for those once the element is read (id2Surrogate).
func (ev *Event) idText(raw []byte, isID2 bool) []byte {
	if !utf8.Valid(raw) || !isID2 && LoneSurrogateString(raw) {
		ev.BadStrings++
	}
	return raw
}

// id2Surrogate counts id2 when the member the trackers decode (ID2Member)
// meets a lone surrogate escape, and only where they decode it: not beside
// an id, which wins, and not when invalid UTF-8 counted it already.
func (ev *Event) id2Surrogate() {
	if ev.ID2 == nil || ev.ID != nil || !utf8.Valid(ev.ID2) || bytes.IndexByte(ev.ID2, '\\') < 0 {
		return
	}
	if m, _, ok := ID2Member(ev.ID2); ok && LoneSurrogateString(m) {
		ev.BadStrings++
	}
}

// ID2Member returns the member of the id2 object raw that names the event
// (docs/format/traceevent.md#ids-and-scopes): "global", else "local" (local
// true); ok is false when raw is not an object or has neither.
func ID2Member(raw []byte) (member []byte, local, ok bool) {
	var global, loc []byte
	js := jsonscan.NewBytes(raw)
	err := js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		switch string(k) {
		case "global":
			global = raw[start:js.Offset()]
		case "local":
			loc = raw[start:js.Offset()]
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, false, false
	case global != nil:
		return global, false, true
	case loc != nil:
		return loc, true, true
	}
	return nil, false, false
}

// LoneSurrogateString tells whether the JSON value raw is a string whose
// decoding meets a \u escape of half a surrogate pair (replaced by U+FFFD).
// It allocates at most the string's decoded size; a value that is not a
// string is not decoded.
func LoneSurrogateString(raw []byte) bool {
	raw = TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' || bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	js := jsonscan.NewBytes(raw)
	_, err := js.ReadString(nil)
	return err == nil && js.LoneSurrogates > 0
}

// number returns the text of a number given as a JSON number or as a numeric
// string (docs/format/traceevent.md#numbers-given-as-strings).
func (ev *Event) number(raw []byte) ([]byte, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	if raw[0] == '"' {
		s, ok := ev.str(raw)
		if !ok {
			return nil, false
		}
		if _, ok := jsonscan.ScaleDecimal([]byte(s), 0); !ok {
			return nil, false
		}
		ev.NumericStrs++
		return []byte(s), true
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		return raw, true
	}
	return nil, false
}

func (ev *Event) time(raw []byte) Time {
	t := Time{Present: true}
	if b, ok := ev.number(raw); ok {
		if v, ok := jsonscan.ScaleDecimal(b, 3); ok && v >= 0 {
			t.NS, t.Valid = v, true
		}
	}
	return t
}

func (ev *Event) ident(raw []byte) Ident {
	id := Ident{Present: true}
	if b, ok := ev.number(raw); ok {
		// An integer's text is read without making a string of it; one
		// with a fraction or an exponent is truncated below (up to 9.2e18,
		// where jsonscan.ParseInt would take whole ones up to 2^63).
		if bytes.IndexAny(b, ".eE") < 0 {
			if v, err := jsonscan.ParseInt(b); err == nil {
				id.Num = v
				return id
			}
		}
		if f, err := strconv.ParseFloat(string(b), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) &&
			math.Abs(f) < 9.2e18 {
			id.Num = int64(f) // truncated toward zero
			return id
		}
		// A number no int64 holds is kept by its text, like a string id (it
		// used to become 0, merging its events into the placeholder process).
		id.Str, id.IsStr = string(b), true
		return id
	}
	if s, ok := ev.str(raw); ok {
		id.Str, id.IsStr = s, true
		return id
	}
	id.Present = false
	return id
}

// field decodes the value raw of the member key into ev. It returns the
// key's number among the keys it knows (fewer than 64), -1 for a key it
// does not.
func (ev *Event) field(key []byte, raw []byte) int {
	k := -1
	switch string(key) {
	case "ph":
		k = 0
		if len(raw) == 3 && raw[0] == '"' && raw[2] == '"' && raw[1] < 0x80 && raw[1] != '\\' && raw[1] != '"' {
			ev.Ph, ev.PhLong = raw[1], false // the usual one-letter phase
		} else if s, ok := ev.str(raw); ok {
			ev.Ph = s[0]
			ev.PhLong = len(s) > 1
		} else {
			ev.Ph = 0
		}
	case "ts":
		k = 1
		ev.TS = ev.time(raw)
	case "dur":
		k = 2
		ev.Dur = ev.time(raw)
	case "tts":
		k = 3
		ev.TTS = ev.time(raw)
		ev.BadThreadTime = ev.BadThreadTime || !ev.TTS.Valid
	case "tdur":
		k = 4
		ev.TDur = ev.time(raw)
		ev.BadThreadTime = ev.BadThreadTime || !ev.TDur.Valid
	case "pid":
		k = 5
		ev.Pid = ev.ident(raw)
	case "tid":
		k = 6
		ev.Tid = ev.ident(raw)
	case "name":
		k = 7
		ev.Name, ev.HasName = ev.str(raw)
	case "cat":
		k = 8
		ev.Cat, ev.HasCat = ev.str(raw)
	case "args":
		k = 9
		ev.Args, ev.ArgsInvalid = nil, false
		switch {
		case len(raw) > 0 && raw[0] == '{':
			ev.Args = raw
		case string(raw) == `"__stripped__"`:
		default:
			ev.ArgsInvalid = true
		}
	case "id":
		k = 10
		ev.ID = ev.idText(raw, false)
	case "id2":
		k = 11
		ev.ID2 = ev.idText(raw, true)
	case "scope":
		k = 12
		ev.Scope, _ = ev.str(raw)
	case "s":
		k = 13
		ev.S, _ = ev.str(raw)
	case "bp":
		k = 14
		ev.BP, _ = ev.str(raw)
	case "bind_id":
		k = 15
		ev.BindID = ev.idText(raw, false)
	case "flow_in":
		k = 16
		ev.FlowIn = string(raw) == "true"
	case "flow_out":
		k = 17
		ev.FlowOut = string(raw) == "true"
	case "sf":
		k = 18
		ev.SF = ev.idText(raw, false)
	case "esf":
		k = 19
		ev.ESF = ev.idText(raw, false)
	case "cname":
		k = 20
		ev.CName, _ = ev.str(raw)
	case "stack":
		k = 21
		ev.HasStack = true
	case "estack":
		k = 22
		ev.HasStack = true
	}
	return k
}

// StringValue decodes a JSON string value as the event fields are decoded
// (invalid UTF-8 and lone surrogates replaced by U+FFFD); ok is false for
// other values and for "".
func StringValue(raw []byte) (string, bool) { return (&Event{}).str(raw) }

// NumberText returns the text of a number given as a JSON number or as a
// numeric string.
func NumberText(raw []byte) ([]byte, bool) { return (&Event{}).number(raw) }
