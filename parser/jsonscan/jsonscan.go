// Package jsonscan is a small pull tokenizer for large JSON documents. It reads
// from an io.Reader through a fixed buffer (or from a byte slice), so a document of
// any size is decoded in bounded memory: integer arrays are read in batches,
// strings are unescaped into caller-owned buffers, and unknown values are skipped
// without being materialised.
//
// Errors name the byte offset in the document.
//
// Skipping a value has one implementation for values in memory (SkipBytes,
// skip.go), which Decoder.SkipValue uses whenever the value lies within its
// buffer and the Trace Event fast decoder uses for every member, and the
// streaming one of SkipValue for the rest (values across buffer refills,
// nesting deeper than 32, and the exact error message).
//
// It must not know any trace format, nor hold a whole document in memory
// when given a reader.
//
// It is the decoder of heap snapshots, timelines and Trace Event files,
// which can be GBs: github.com/bytedance/sonic decodes only whole values held
// in memory (its stream decoder buffers each top-level value), so it cannot
// read an integer array of GBs or a string split across chunks. For the
// in-memory documents, sonic was measured against it (#12): CPU profiles
// (parser/cpuprofile) and ArkTS message heads (parser/arkts) keep jsonscan,
// for the reasons and with the numbers given there.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrUnexpectedEOF is wrapped by errors about a document that ends too early.
var ErrUnexpectedEOF = errors.New("unexpected end of JSON")

// MaxNumber is the longest number text a Decoder reading from an
// io.Reader reads: no producer of the formats read here writes more than a
// few dozen digits, and CPython, whose integers have no bound, refuses to
// write one of more than 4 300 digits by default. A longer number is
// skipped (in bounded memory) and reported as ErrLongNumber, so that a
// number of any length costs no buffer of its size. A document in memory
// (NewBytes) has its numbers read whole, whatever their length: they cost
// nothing more than the document.
const MaxNumber = 64 << 10

// ErrLongNumber is wrapped by the error about a number longer than
// MaxNumber bytes; the number has been consumed. ReadNumber returns its
// first bytes and "…" with the error (text no number parser accepts), and
// Value returns that as a Number, without the error: the value of a member
// that must be a number is then not one, as for any other non-number.
var ErrLongNumber = fmt.Errorf("number longer than %d bytes", MaxNumber)

// longNumberHead is how many bytes of a long number ReadNumber and Value
// return, before "…".
const longNumberHead = 24

// Decoder tokenizes one JSON document.
type Decoder struct {
	r        io.Reader
	buf      []byte
	pos, end int
	base     int64 // document offset of buf[0]
	rerr     error // sticky read error
	// LoneSurrogates counts the \uD800-\uDFFF escapes without their other
	// half that strings read so far held (each became U+FFFD).
	LoneSurrogates int64
	// streamOnly turns off SkipValue's in-memory path (tests compare the
	// two).
	streamOnly bool
	part       []byte // ReadStringMax's parts as read, reused
}

// NewReader returns a Decoder reading r through a buffer of size bytes.
func NewReader(r io.Reader, size int) *Decoder {
	return &Decoder{r: r, buf: make([]byte, max(size, 64))}
}

// Reset makes d decode r from its start, as NewReader(r, size) would,
// reusing d's buffer where it has that size (one a long token grew is
// let go).
func (d *Decoder) Reset(r io.Reader, size int) {
	buf := d.buf
	if size = max(size, 64); len(buf) != size || d.r == nil && d.rerr == io.EOF {
		buf = make([]byte, size) // a grown buffer, or NewBytes's document
	}
	*d = Decoder{r: r, buf: buf}
}

// NewBytes returns a Decoder of an in-memory document.
func NewBytes(b []byte) *Decoder {
	d := new(Decoder)
	d.ResetBytes(b)
	return d
}

// ResetBytes makes d decode b, as NewBytes(b) would, reusing d.
func (d *Decoder) ResetBytes(b []byte) {
	*d = Decoder{buf: b, end: len(b), rerr: io.EOF}
}

// Offset returns the document offset of the next unread byte.
func (d *Decoder) Offset() int64 { return d.base + int64(d.pos) }

// Errorf returns an error that names the current offset.
func (d *Decoder) Errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", d.Offset(), fmt.Sprintf(format, args...))
}

func (d *Decoder) eofError(what string) error {
	if d.rerr != nil && d.rerr != io.EOF {
		return fmt.Errorf("offset %d: %s: %w", d.Offset(), what, d.rerr)
	}
	return fmt.Errorf("offset %d: %s: %w", d.Offset(), what, ErrUnexpectedEOF)
}

// fill reads more input, keeping the unread bytes. It returns false when no
// more bytes could be read.
func (d *Decoder) fill() bool {
	if d.rerr != nil {
		return false
	}
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:d.end])
		d.base += int64(d.pos)
		d.pos, d.end = 0, n
	}
	if d.end == len(d.buf) {
		// A single token larger than the buffer: grow it.
		nb := make([]byte, 2*len(d.buf))
		copy(nb, d.buf[:d.end])
		d.buf = nb
	}
	for {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err != nil {
			d.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// ensure makes at least n unread bytes available if the input has them.
func (d *Decoder) ensure(n int) bool {
	for d.end-d.pos < n {
		if !d.fill() {
			return false
		}
	}
	return true
}

// Peek returns the next byte that is not white space, without consuming it.
func (d *Decoder) Peek() (byte, error) {
	if c, ok := d.peek(); ok {
		return c, nil
	}
	return 0, d.eofError("expected a value")
}

// peek is Peek without the error value, which AtEOF does not need (ids and
// other small documents are checked for their end by the million).
func (d *Decoder) peek() (byte, bool) {
	for {
		for d.pos < d.end {
			c := d.buf[d.pos]
			if c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
				return c, true
			}
			d.pos++
		}
		if !d.fill() {
			return 0, false
		}
	}
}

// AtEOF reports whether only white space is left.
func (d *Decoder) AtEOF() bool {
	_, ok := d.peek()
	return !ok && d.rerr == io.EOF
}

// Expect consumes the byte c, after white space.
func (d *Decoder) Expect(c byte) error {
	got, err := d.Peek()
	if err != nil {
		return err
	}
	if got != c {
		return d.Errorf("expected %q, found %q", c, got)
	}
	d.pos++
	return nil
}

// More reports whether another element (or member) follows in the array (or
// object) being read, consuming the comma before it, or the closing bracket when
// there is none. first tells whether no element was read yet.
func (d *Decoder) More(first bool) (bool, error) {
	c, err := d.Peek()
	if err != nil {
		return false, err
	}
	if c == ']' || c == '}' {
		d.pos++
		return false, nil
	}
	if !first {
		if c != ',' {
			return false, d.Errorf("expected ',' or closing bracket, found %q", c)
		}
		d.pos++
	}
	return true, nil
}

// Key reads the next member name of an object and its colon, appending the name
// to dst; ok is false at the closing brace.
func (d *Decoder) Key(dst []byte, first bool) (key []byte, ok bool, err error) {
	if ok, err = d.More(first); !ok || err != nil {
		return dst, false, err
	}
	var n memberName
	if err = n.read(d, dst, 0); err != nil {
		return n.key, false, err
	}
	return n.key, true, nil
}

// Object reads an object, calling fn with each member's name (valid during the
// call); fn must read the member's value. fn's errors are returned with the
// member name in front.
func (d *Decoder) Object(fn func(key []byte) error) error { return d.object(0, fn) }

// ObjectKnown is Object for a caller that reads only members whose names
// are shorter than maxKey bytes (maxKey > 0): a longer name is checked as
// Object checks it, but only its first maxKey bytes are kept, and fn gets
// those (which match none of its names), so that a name of any length
// costs bounded memory. An error in such a member names it by those bytes
// and "…".
func (d *Decoder) ObjectKnown(maxKey int, fn func(key []byte) error) error {
	return d.object(max(maxKey, 1), fn)
}

// object is Object keeping at most maxKey bytes of a name, or all of it if
// maxKey is 0.
func (d *Decoder) object(maxKey int, fn func(key []byte) error) error {
	if err := d.Expect('{'); err != nil {
		return err
	}
	var n memberName
	for first := true; ; first = false {
		ok, err := d.More(first)
		if err != nil || !ok {
			return err
		}
		if err := n.read(d, n.key[:0], maxKey); err != nil {
			return err
		}
		if err := fn(n.key); err != nil {
			name := string(n.key)
			if n.long {
				name += "…"
			}
			return InMember(name, err)
		}
	}
}

// memberName is the name of an object's member as read (read); its buffer
// is reused for the next member's.
type memberName struct {
	key  []byte // the name, or its first maxKey bytes
	long bool   // bytes of the name were dropped
}

// read reads a member name and its colon, appending the name to dst. With
// maxKey > 0 only the name's first maxKey bytes are kept (ReadStringMax).
func (n *memberName) read(d *Decoder, dst []byte, maxKey int) (err error) {
	n.long = false
	if maxKey == 0 {
		n.key, err = d.ReadString(dst)
	} else {
		n.key, n.long, err = d.ReadStringMax(dst, maxKey)
	}
	if err != nil {
		return err
	}
	return d.Expect(':')
}

// MemberError is an error inside nested objects, with the names of the
// members that lead to it. Each level adds its name to Path instead of
// formatting the message again, so that an error 65 536 objects deep costs
// memory in proportion to the depth, not to its square.
type MemberError struct {
	Path []string // member names, innermost first
	Err  error
}

// maxShownPath bounds the member names an error message shows.
const maxShownPath = 8

// Error gives the path outermost first ("a: b: c: err"), eliding the middle
// of a long one.
func (e *MemberError) Error() string {
	var b strings.Builder
	n := len(e.Path)
	for i := n - 1; i >= 0; i-- {
		if n > maxShownPath && i == n-maxShownPath/2-1 {
			fmt.Fprintf(&b, "… %d more: ", n-maxShownPath)
			i = maxShownPath/2 - 1
		}
		b.WriteString(e.Path[i])
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *MemberError) Unwrap() error { return e.Err }

// InMember puts err inside member name, as Object does for its members'
// errors: a MemberError returned by an inner object gets the name appended
// to its path. For readers of objects that do not go through Object.
func InMember(name string, err error) error {
	if me, ok := err.(*MemberError); ok {
		me.Path = append(me.Path, name)
		return me
	}
	return &MemberError{Path: []string{name}, Err: err}
}

// Array reads an array, calling fn for each element with its position; fn must
// read the element.
func (d *Decoder) Array(fn func(i int) error) error {
	if err := d.Expect('['); err != nil {
		return err
	}
	for i := 0; ; i++ {
		more, err := d.More(i == 0)
		if err != nil || !more {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
}

// ReadString reads a string and appends its unescaped content to dst. Invalid
// UTF-8 is kept as it is (see Valid).
func (d *Decoder) ReadString(dst []byte) ([]byte, error) { return d.readString(dst, 0, nil) }

// ReadStringParts reads a string like ReadString but hands its unescaped
// content to emit in parts of about size bytes or more (a part may end inside
// a UTF-8 sequence), so that a string of any length is read in bounded
// memory. A part is valid only during the call. When the string is cut or
// malformed, what was read before the error is handed over too.
func (d *Decoder) ReadStringParts(size int, emit func(part []byte) error) error {
	dst, err := d.readString(make([]byte, 0, size), size, emit)
	if len(dst) > 0 {
		if eerr := emit(dst); err == nil {
			err = eerr
		}
	}
	return err
}

// ReadStringMax reads a string like ReadString but appends at most limit
// bytes (limit > 0) of its content to dst: the rest is checked and dropped
// as it is read, so that a string of any length costs limit bytes and a
// buffer. cut reports that bytes were dropped; the bytes kept then end
// before a UTF-8 sequence the cut left incomplete.
func (d *Decoder) ReadStringMax(dst []byte, limit int) (s []byte, cut bool, err error) {
	base, size := len(dst), 0
	keep := func(part []byte) {
		size += len(part)
		dst = append(dst, part[:min(len(part), limit-(len(dst)-base))]...)
	}
	d.part, err = d.readString(d.part[:0], limit, func(part []byte) error {
		keep(part)
		return nil
	})
	keep(d.part)
	if cut = size > limit; cut {
		dst = trimIncomplete(dst, base)
	}
	return dst, cut, err
}

// trimIncomplete removes from the end of b[start:] a UTF-8 sequence that
// is cut short.
func trimIncomplete(b []byte, start int) []byte {
	for i := len(b) - 1; i >= start && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// readString appends the string's content to dst, handing dst to emit (and
// emptying it) whenever it holds size bytes or more, if emit is set.
func (d *Decoder) readString(dst []byte, size int, emit func([]byte) error) ([]byte, error) {
	if err := d.Expect('"'); err != nil {
		return dst, err
	}
	for {
		if emit != nil && len(dst) >= size {
			if err := emit(dst); err != nil {
				return dst[:0], err
			}
			dst = dst[:0]
		}
		// Plain bytes and the one-letter escapes (a chunk of a snapshot
		// is full of \" and \n) are copied here; the rest below.
		buf := d.buf[:d.end]
		i, start := d.pos, d.pos
		for i < len(buf) {
			c := buf[i]
			if c != '"' && c != '\\' && c >= 0x20 {
				// The rest of a run of plain bytes, eight at a time.
				for i++; i+8 <= len(buf); i += 8 {
					if m := special8(binary.LittleEndian.Uint64(buf[i:])); m != 0 {
						i += bits.TrailingZeros64(m) >> 3
						break
					}
				}
				continue
			}
			if c != '\\' || i+1 >= len(buf) {
				break
			}
			e := unescaped[buf[i+1]]
			if e == 0 {
				break
			}
			dst = append(dst, buf[start:i]...)
			dst = append(dst, e)
			i += 2
			start = i
		}
		dst = append(dst, buf[start:i]...)
		d.pos = i
		if i == d.end {
			if !d.fill() {
				return dst, d.eofError("unterminated string")
			}
			continue
		}
		switch c := d.buf[i]; {
		case c == '"':
			d.pos++
			return dst, nil
		case c < 0x20:
			return dst, d.Errorf("control character %#x in string", c)
		}
		var err error
		if dst, err = d.escape(dst); err != nil {
			return dst, err
		}
	}
}

// special8 returns, for the eight bytes of x (the first lowest), a mask
// whose lowest set bit is the top bit of the first byte that is a quote, a
// backslash or a control character, and 0 when none is: the bytes before
// it are copied as they are. Each term sets a byte's top bit where that
// byte matches and, by its borrow, maybe in bytes after one that does,
// never before (Hacker's Delight's haszero and hasless).
func special8(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q, b := x^(lo*'"'), x^(lo*'\\')
	return ((q-lo)&^q | (b-lo)&^b | (x-lo*0x20)&^x) & hi
}

// unescaped maps the letter of a one-letter escape to the byte it stands
// for (0: not one).
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes the escape sequence at d.pos (a backslash).
func (d *Decoder) escape(dst []byte) ([]byte, error) {
	if !d.ensure(2) {
		return dst, d.eofError("unterminated escape")
	}
	c := d.buf[d.pos+1]
	switch c {
	case '"', '\\', '/':
		dst = append(dst, c)
	case 'b':
		dst = append(dst, '\b')
	case 'f':
		dst = append(dst, '\f')
	case 'n':
		dst = append(dst, '\n')
	case 'r':
		dst = append(dst, '\r')
	case 't':
		dst = append(dst, '\t')
	case 'u':
		r, n, err := d.unicode()
		if err != nil {
			return dst, err
		}
		d.pos += n
		return utf8.AppendRune(dst, r), nil
	default:
		return dst, d.Errorf("invalid escape \\%c", c)
	}
	d.pos += 2
	return dst, nil
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unicode decodes \uXXXX (and a following low surrogate) at d.pos; n is the
// number of bytes used. A lone surrogate becomes U+FFFD.
func (d *Decoder) unicode() (r rune, n int, err error) {
	if !d.ensure(6) {
		return 0, 0, d.eofError("unterminated \\u escape")
	}
	r, ok := hex4(d.buf[d.pos+2:])
	if !ok {
		return 0, 0, d.Errorf("invalid \\u escape")
	}
	if !utf16.IsSurrogate(r) {
		return r, 6, nil
	}
	if d.ensure(12) && d.buf[d.pos+6] == '\\' && d.buf[d.pos+7] == 'u' {
		if r2, ok := hex4(d.buf[d.pos+8:]); ok {
			if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
				return c, 12, nil
			}
		}
	}
	d.LoneSurrogates++
	return utf8.RuneError, 6, nil
}

// number returns the bytes of the number at d.pos, consuming them; the slice is
// valid until the next read.
func (d *Decoder) number() ([]byte, error) {
	n := 0 // bytes of the number scanned so far, from d.pos (kept across reads)
	for {
		i := d.pos + n
		for i < d.end {
			c := d.buf[i]
			if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				i++
				continue
			}
			break
		}
		n = i - d.pos
		if n > MaxNumber && d.r != nil {
			start := d.Offset()
			head := append(bytes.Clone(d.buf[d.pos:d.pos+longNumberHead]), "…"...)
			d.pos = i
			d.skipNumber()
			return head, fmt.Errorf("offset %d: %w", start, ErrLongNumber)
		}
		// The number may go on in the next read; fill moves the unread bytes.
		if i == d.end {
			if d.fill() {
				continue
			}
			i = d.pos + n
		}
		if n == 0 {
			if d.pos == d.end {
				return nil, d.eofError("expected a number")
			}
			return nil, d.Errorf("expected a number, found %q", d.buf[d.pos])
		}
		b := d.buf[d.pos:i]
		d.pos = i
		return b, nil
	}
}

// ParseInt converts JSON number text to int64. Integral values written with a
// fraction or exponent (2.0, 1e3) are accepted; other fractions are an error.
func ParseInt(b []byte) (int64, error) {
	var v int64
	neg := false
	i := 0
	if len(b) > 0 && b[0] == '-' {
		neg = true
		i = 1
	}
	if i < len(b) && len(b)-i <= 18 {
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' {
				break
			}
			v = v*10 + int64(c-'0')
		}
		if i == len(b) && (len(b) > 1 || !neg) {
			if neg {
				v = -v
			}
			return v, nil
		}
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err == nil {
		return v, nil
	}
	if !bytes.ContainsAny(b, ".eE") {
		// An integer out of int64's range: not rounded to its end (-2^63-1
		// is no more an int64 than 2^63).
		return 0, fmt.Errorf("%q is not a 64-bit integer", b)
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < -(1<<63) || f >= 1<<63 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%q is not an integer", b)
	}
	return int64(f), nil
}

// ReadInt reads an integer.
func (d *Decoder) ReadInt() (int64, error) {
	if _, err := d.Peek(); err != nil {
		return 0, err
	}
	start := d.Offset()
	b, err := d.number()
	if err != nil {
		return 0, err
	}
	v, err := ParseInt(b)
	if err != nil {
		return 0, fmt.Errorf("offset %d: %w", start, err)
	}
	return v, nil
}

// ReadNumber reads a number and returns its text (valid until the next read).
func (d *Decoder) ReadNumber() ([]byte, error) {
	if _, err := d.Peek(); err != nil {
		return nil, err
	}
	return d.number()
}

// ReadInts reads integers of the array being read (after its '[') into dst until
// dst is full or the array ends. first tells whether no element was read yet and
// is updated. done is true when the closing bracket was consumed.
func (d *Decoder) ReadInts(dst []int64, first *bool) (n int, done bool, err error) {
	return d.readInts(dst, first, nil)
}

// NonIntegers counts the elements ReadIntsLenient read as 0.
type NonIntegers struct {
	N     int64 // how many
	First int64 // input offset of the first
}

// Add counts the elements o counted, which come after those n counted.
func (n *NonIntegers) Add(o NonIntegers) {
	if n.N == 0 {
		n.First = o.First
	}
	n.N += o.N
}

// ReadIntsLenient is ReadInts for arrays where one bad element must not cost
// the rest: an element that is valid JSON but not an integer (1.5, null, a
// string, an array) is read as 0 and counted in bad. Invalid JSON is still an
// error.
func (d *Decoder) ReadIntsLenient(dst []int64, first *bool, bad *NonIntegers) (n int, done bool, err error) {
	return d.readInts(dst, first, bad)
}

func (d *Decoder) readInts(dst []int64, first *bool, bad *NonIntegers) (n int, done bool, err error) {
	for n < len(dst) {
		n = d.plainInts(dst, n, first)
		if n == len(dst) {
			break
		}
		more, err := d.More(*first)
		if err != nil || !more {
			return n, !more && err == nil, err
		}
		*first = false
		if bad != nil {
			if dst[n], err = d.lenientInt(bad); err != nil {
				return n, false, err
			}
		} else if dst[n], err = d.ReadInt(); err != nil {
			return n, false, err
		}
		n++
	}
	return n, false, nil
}

// plainInts is readInts' fast path: it reads elements into dst from n on
// while each is a plain integer of at most 17 digits lying wholly in the
// buffer, with its separator (a comma between white space, none before the
// first element) and the byte after it, and returns the new count. It stops
// at anything else (the array's end, a number of another form, the end of
// the buffer) without consuming it, for the general path.
func (d *Decoder) plainInts(dst []int64, n int, first *bool) int {
	buf := d.buf[:d.end]
	pos := d.pos
	for n < len(dst) {
		i := pos
		if !*first {
			for i < len(buf) && isSpace(buf[i]) {
				i++
			}
			if i >= len(buf) || buf[i] != ',' {
				break
			}
			i++
		}
		for i < len(buf) && isSpace(buf[i]) {
			i++
		}
		neg := i < len(buf) && buf[i] == '-'
		if neg {
			i++
		}
		var v int64
		j := i
		for j < len(buf) && j-i < 18 {
			c := buf[j] - '0'
			if c > 9 {
				break
			}
			v = v*10 + int64(c)
			j++
		}
		if j == i || j >= len(buf) || j-i >= 18 {
			break
		}
		if c := buf[j]; c != ',' && c != ']' && c > ' ' {
			break
		}
		if neg {
			v = -v
		}
		dst[n] = v
		n++
		pos = j
		*first = false
	}
	d.pos = pos
	return n
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// lenientInt reads one value: an integer, or any other valid value counted in
// bad and read as 0.
func (d *Decoder) lenientInt(bad *NonIntegers) (int64, error) {
	c, err := d.Peek()
	if err != nil {
		return 0, err
	}
	start := d.Offset()
	if c == '-' || c >= '0' && c <= '9' {
		b, err := d.number()
		if err != nil && !errors.Is(err, ErrLongNumber) { // a long one is no int64
			return 0, err
		}
		if v, err := ParseInt(b); err == nil {
			return v, nil
		}
	} else if err := d.SkipValue(); err != nil {
		return 0, err
	}
	if bad.N == 0 {
		bad.First = start
	}
	bad.N++
	return 0, nil
}

// SkipValue consumes one value of any kind, checking its syntax.
func (d *Decoder) SkipValue() error {
	// A value that lies wholly in the buffer: the in-memory skipper (a
	// value at the very end may go on after the next read, unless no more
	// input comes).
	if _, err := d.Peek(); err == nil && !d.streamOnly {
		if n, ok := SkipBytes(d.buf[d.pos:d.end], 0); ok && (n < d.end-d.pos || d.rerr != nil) {
			d.pos += n
			return nil
		}
	}
	var stack []byte // open brackets
	var scratch []byte
	first := false
	for {
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			more, err := d.More(first)
			if err != nil {
				return err
			}
			if !more {
				if closing := d.buf[d.pos-1]; (top == '{') != (closing == '}') {
					return d.Errorf("%q closed by %q", top, closing)
				}
				stack = stack[:len(stack)-1]
				first = false
				if len(stack) == 0 {
					return nil
				}
				continue
			}
			if top == '{' {
				if scratch, err = d.skipString(scratch); err != nil {
					return err
				}
				if err := d.Expect(':'); err != nil {
					return err
				}
			}
		}
		first = false
		c, err := d.Peek()
		if err != nil {
			return err
		}
		switch {
		case c == '{' || c == '[':
			d.pos++
			stack = append(stack, c)
			first = true
			continue
		case c == '"':
			scratch, err = d.skipString(scratch)
		case c == 't' || c == 'f' || c == 'n':
			err = d.literal()
		case c == '-' || (c >= '0' && c <= '9'):
			d.skipNumber()
		default:
			err = d.Errorf("unexpected %q", c)
		}
		if err != nil {
			return err
		}
		if len(stack) == 0 {
			return nil
		}
	}
}

// skipNumber consumes what number would, for SkipValue, which has seen its
// first byte: a number longer than the buffer is let go as it is read
// instead of growing the buffer to hold it whole.
func (d *Decoder) skipNumber() {
	for {
		for d.pos < d.end {
			if c := d.buf[d.pos]; (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				d.pos++
				continue
			}
			return
		}
		if !d.fill() {
			return
		}
	}
}

// skipChunk is how much of a skipped string SkipValue holds at a time.
const skipChunk = 4 << 10

// skipString reads a string that SkipValue skips, checking it as ReadString
// does but holding no more than about skipChunk bytes of it in scratch, so
// that a skipped string of any length costs bounded memory.
func (d *Decoder) skipString(scratch []byte) ([]byte, error) {
	return d.readString(scratch[:0], skipChunk, func([]byte) error { return nil })
}

func (d *Decoder) literal() error {
	for _, lit := range []string{"true", "false", "null"} {
		if d.ensure(len(lit)) && string(d.buf[d.pos:d.pos+len(lit)]) == lit {
			d.pos += len(lit)
			return nil
		}
	}
	return d.Errorf("invalid literal")
}

// Number is the text of a JSON number in a value returned by Value.
type Number string

// Int returns the number as an integer.
func (n Number) Int() (int64, error) { return ParseInt([]byte(n)) }

// Value reads a value into Go values: map[string]any, []any, string, Number,
// bool or nil. It is meant for small values; limit bounds the number of strings
// and numbers read.
func (d *Decoder) Value(limit int) (any, error) {
	budget := limit
	return d.value(&budget, 0)
}

func (d *Decoder) value(budget *int, depth int) (any, error) {
	if depth > 64 {
		return nil, d.Errorf("value nested too deeply")
	}
	*budget--
	if *budget < 0 {
		return nil, d.Errorf("value too large")
	}
	c, err := d.Peek()
	if err != nil {
		return nil, err
	}
	switch {
	case c == '{':
		m := map[string]any{}
		err := d.Object(func(k []byte) error {
			v, err := d.value(budget, depth+1)
			m[string(k)] = v
			return err
		})
		return m, err
	case c == '[':
		var a []any
		err := d.Array(func(int) error {
			v, err := d.value(budget, depth+1)
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		s, err := d.ReadString(nil)
		return string(s), err
	case c == 't' || c == 'f' || c == 'n':
		start := d.pos
		if err := d.literal(); err != nil {
			return nil, err
		}
		switch d.buf[start] {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		return nil, nil
	}
	b, err := d.number()
	if errors.Is(err, ErrLongNumber) {
		return Number(b), nil // its head and "…": not a number to its reader
	}
	return Number(b), err
}

// Bytes returns the document bytes between two offsets of a Decoder made by
// NewBytes (nil for a streaming Decoder).
func (d *Decoder) Bytes(start, end int64) []byte {
	if d.r != nil || start < 0 || end > int64(len(d.buf)) || start > end {
		return nil
	}
	return d.buf[start:end]
}

// Escaping says which characters AppendStringEscaping writes as escapes.
type Escaping uint8

const (
	// EscapeMinimal escapes what JSON requires: '"' and '\' escaped, control
	// characters as \n, \r, \t or \u00xx (lower-case hex), everything else,
	// invalid UTF-8 included, as it is.
	EscapeMinimal Escaping = iota
	// EscapeNonASCII writes pure ASCII the way V8's heap snapshot writer does:
	// printable ASCII as it is, '"' and '\' escaped, \b \f \n \r \t, and every
	// other character as \uXXXX (upper-case hex; above U+FFFF a surrogate
	// pair, where V8 keeps only the low 16 bits). A byte that is not valid
	// UTF-8 is written as \uFFFD, which is what a decoder makes of it.
	EscapeNonASCII
)

// AppendString appends s as a JSON string literal with EscapeMinimal.
func AppendString(dst []byte, s []byte) []byte { return AppendStringEscaping(dst, s, EscapeMinimal) }

// AppendStringEscaping appends s as a JSON string literal, escaped as e says.
func AppendStringEscaping(dst []byte, s []byte, e Escaping) []byte {
	hex, ascii := "0123456789abcdef", e == EscapeNonASCII
	if ascii {
		hex = "0123456789ABCDEF"
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && (c < utf8.RuneSelf || !ascii) {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		n := 1
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b' && ascii:
			dst = append(dst, '\\', 'b')
		case c == '\f' && ascii:
			dst = append(dst, '\\', 'f')
		case c < utf8.RuneSelf:
			dst = appendU(dst, hex, rune(c))
		default:
			var r rune
			r, n = utf8.DecodeRune(s[i:])
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				dst = appendU(appendU(dst, hex, r1), hex, r2)
			} else {
				dst = appendU(dst, hex, r)
			}
		}
		i += n
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendU appends \uXXXX for a UTF-16 code unit r.
func appendU(b []byte, hex string, r rune) []byte {
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
