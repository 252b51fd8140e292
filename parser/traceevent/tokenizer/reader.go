// Package tokenizer is the first stage of the Trace Event importer: it reads a
// Chrome Trace Event Format file (JSON array form or object form,
// docs/format/traceevent.md) and streams the elements of its traceEvents
// array one at a time, each as its raw JSON text with its byte offset and
// position, tolerating what producers actually write (trailing commas, no
// closing bracket, a file cut in the middle). It hands the object form's other
// members (metadata, stackFrames, samples, systemTraceEvents text) to the
// caller as raw JSON or text, by name, decoded as JSON.parse decodes it.
//
// Finding where an element ends is not jsonscan's skipping: the reader follows
// only brackets and string quotes, across buffer refills, without judging the
// syntax in between, because a broken element is the decoder's to count and
// reading must go on after it (jsonscan.SkipBytes and Decoder.SkipValue
// validate, and stop at the first error).
//
// It must not decode an element's fields (package event does), keep state
// across elements beyond the container's syntax, or know tables or stat rows.
package tokenizer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"tracestreamer/parser/jsonscan"
)

// Form is the container form of a trace file.
type Form int

// Container forms.
const (
	ArrayForm  Form = iota // [ {…}, {…} ]
	ObjectForm             // {"traceEvents": [ … ], …}
)

// Problems counts what the reader tolerated (stat rows json_file, json_event,
// json_trailing_comma, json_empty_event of the spec).
type Problems struct {
	TrailingCommas int64 // tolerated trailing commas
	EmptyEvents    int64 // {} elements skipped
	Unclosed       bool  // the container was not closed
	CutElement     bool  // an element was cut by the end of input
	Garbage        bool  // non-white-space after the top-level value
	// Broken counts elements skipped because their brackets did not match
	// (json_event invalid_data); Stopped tells that no next element was found
	// after one, which ended the reading (json_file invalid_data).
	Broken  int64
	Stopped bool
	// TooLarge counts elements larger than MaxElement, skipped whole by
	// their structure (json_event data_lost); reading goes on after them.
	// MembersTooLarge counts top-level members over MaxMember, skipped the
	// same way (json_file data_lost).
	TooLarge, MembersTooLarge int64
	// CutStrings counts the elements with a string cut to MaxString bytes
	// (json_string data_lost).
	CutStrings int64
	// BadText tells that a systemTraceEvents string read by SystemText was
	// malformed.
	BadText bool
	// First holds the input offset of the first trailing comma, empty element
	// and broken element, for the warnings.
	First FirstOffsets
}

// FirstOffsets are the input offsets of the first occurrence of each problem
// the reader counts.
type FirstOffsets struct {
	TrailingComma, EmptyEvent, Broken, TooLarge, MemberTooLarge, CutString int64
}

// count adds one to *n, noting off in *first when it is the first.
func count(n, first *int64, off int64) {
	if *n == 0 {
		*first = off
	}
	*n++
}

// Element is one element of traceEvents.
type Element struct {
	Seq    int64  // 0-based position in traceEvents
	Offset int64  // byte offset of the element in the input
	Raw    []byte // the element's JSON text
}

// Reader streams the elements of traceEvents.
type Reader struct {
	br   *bufio.Reader
	off  int64
	form Form
	buf  []byte
	seq  int64
	// Other holds the raw JSON of top-level members other than traceEvents
	// (object form), by name, as far as they were read. Names are decoded
	// (see MemberText for the few kept as written), so that two spellings
	// of one name are one member, whose value is the later one, as by
	// JSON.parse.
	Other map[string][]byte
	// OtherKeys are the keys of Other in the order they first appear.
	OtherKeys []string
	// OtherOffset holds the input byte offset where the value of each
	// member of Other starts (of the one kept when a member is repeated),
	// so that problems found in it can name a place.
	OtherOffset map[string]int64
	Problems    Problems
	// SystemText, if set, receives the decoded text of a systemTraceEvents
	// member that is a string as it is read, in parts of about 1 MiB, with
	// end set on the last call; Other then holds nil for it. The text can
	// be far larger than anything else in a trace.
	SystemText func(part []byte, end bool)

	// MaxElement and MaxString are the limits of an element and of one of
	// its strings, in bytes (0: DefaultMaxElement, DefaultMaxString).
	MaxElement, MaxString int

	cut      bool // value cut a string
	inEvents bool // inside the traceEvents array
	done     bool
	first    bool   // no element read yet in the current array
	stack    []byte // open brackets of the value being read
	el       Element
}

// ErrNotTrace is returned by NewReader for input that is not a trace file.
var ErrNotTrace = errors.New("not a Trace Event Format file")

// NewReader recognises the container form and positions the reader at the
// first element of traceEvents.
func NewReader(r io.Reader) (*Reader, error) { return NewReaderText(r, nil) }

// NewReaderText is NewReader with SystemText set from the start (members
// before traceEvents are read by NewReader).
func NewReaderText(r io.Reader, text func(part []byte, end bool)) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 1<<20), Other: map[string][]byte{}, OtherOffset: map[string]int64{},
		SystemText: text}
	if b, _ := rd.br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		rd.discard(3)
	}
	c, err := rd.peekNonSpace()
	switch {
	case errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%w: empty input", ErrNotTrace)
	case err != nil:
		return nil, fmt.Errorf("reading at offset %d: %w", rd.off, err)
	}
	switch c {
	case '[':
		rd.form = ArrayForm
		rd.discard(1)
		rd.inEvents, rd.first = true, true
	case '{':
		rd.form = ObjectForm
		rd.discard(1)
		if err := rd.toEvents(true); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: starts with %q", ErrNotTrace, c)
	}
	return rd, nil
}

// Form returns the container form.
func (r *Reader) Form() Form { return r.form }

// Offset returns the number of input bytes consumed.
func (r *Reader) Offset() int64 { return r.off }

func (r *Reader) discard(n int) {
	k, _ := r.br.Discard(n)
	r.off += int64(k)
}

func (r *Reader) peekNonSpace() (byte, error) {
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			r.discard(1)
		default:
			return b[0], nil
		}
	}
}

// toEvents reads top-level members of the object form, keeping the raw text of
// the others, until the traceEvents array starts or the object ends.
func (r *Reader) toEvents(first bool) error {
	for {
		c, err := r.peekNonSpace()
		if err != nil {
			r.Problems.Unclosed = true
			r.done = true
			return nil
		}
		if c == '}' {
			r.discard(1)
			r.done = true
			r.checkTrailing()
			return nil
		}
		if !first {
			if c != ',' {
				r.Problems.Garbage = true
				r.done = true
				return nil
			}
			comma := r.off
			r.discard(1)
			if c2, err := r.peekNonSpace(); err == nil && c2 == '}' {
				count(&r.Problems.TrailingCommas, &r.Problems.First.TrailingComma, comma)
				continue
			}
		}
		first = false
		key, err := r.value(maxKey, maxKey)
		if err != nil || len(key) < 2 || key[0] != '"' {
			r.Problems.Garbage = true
			r.done = true
			return nil
		}
		name := memberName(key) // before reading on: key may point into the buffer
		if c, err := r.peekNonSpace(); err != nil || c != ':' {
			r.Problems.Unclosed = err != nil
			r.done = true
			return nil
		}
		r.discard(1)
		if name == "traceEvents" {
			if c, err := r.peekNonSpace(); err == nil && c == '[' {
				r.discard(1)
				r.inEvents, r.first = true, true
				return nil
			}
		}
		_, seen := r.Other[name]
		if !seen {
			r.OtherKeys = append(r.OtherKeys, name)
		}
		if c, err := r.peekNonSpace(); err == nil && c == '"' && name == "systemTraceEvents" && r.SystemText != nil {
			r.Other[name] = nil
			if !r.streamText() {
				return nil
			}
			continue
		}
		off := r.off
		v, err := r.value(MaxMember, MaxMember)
		if errors.Is(err, errTooLarge) {
			count(&r.Problems.MembersTooLarge, &r.Problems.First.MemberTooLarge, off)
			if !seen {
				r.OtherKeys = r.OtherKeys[:len(r.OtherKeys)-1]
			}
			continue
		}
		if err != nil {
			r.Problems.CutElement, r.Problems.Unclosed = true, true
			r.done = true
			return nil
		}
		r.Other[name] = append([]byte(nil), v...)
		r.OtherOffset[name] = off
	}
}

// writtenMark starts a name that Other keeps as written (memberName): a
// byte that valid UTF-8 never holds, so that such a name is not taken for
// a decoded one (the written "k\ud800" is not the decoded "k\\ud800"). A
// name that itself starts with that byte (invalid UTF-8) is kept as
// written too, so that no name is taken for another.
const writtenMark = "\xff"

// memberName is the name of a top-level member from its key's JSON text,
// decoded, as JSON.parse compares names after decoding them
// ("traceEv\u0065nts" is traceEvents, "x\u0079" is xy). A name whose
// escapes do not decode, or decode to a lone surrogate (which jsonscan
// replaces by U+FFFD, losing which one it was), is kept as written after
// writtenMark, as is one that starts with writtenMark's byte; MemberText
// decodes it for display.
func memberName(key []byte) string {
	raw := key[1 : len(key)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		if !bytes.HasPrefix(raw, []byte(writtenMark)) {
			return string(raw)
		}
	} else {
		js := jsonscan.NewBytes(key)
		b, err := js.ReadString(nil)
		if err == nil && js.AtEOF() && js.LoneSurrogates == 0 && !bytes.HasPrefix(b, []byte(writtenMark)) {
			return string(b)
		}
	}
	return writtenMark + string(raw)
}

// MemberText is the text of a name as Other and OtherKeys hold it: the name
// itself, or for one kept as written (its escapes do not decode, or decode
// to a lone surrogate) its decoded text, each lone surrogate replaced by
// U+FFFD (replaced true); one whose escapes do not decode is its written
// text. Invalid UTF-8 is left as it is.
func MemberText(name string) (text string, replaced bool) {
	raw, ok := strings.CutPrefix(name, writtenMark)
	if !ok {
		return name, false
	}
	js := jsonscan.NewBytes([]byte(`"` + raw + `"`))
	b, err := js.ReadString(nil)
	if err != nil {
		return raw, false
	}
	return string(b), js.LoneSurrogates > 0
}

// streamText hands the string at the read position to SystemText. It reports
// false when the input ended inside it (what came before has been handed
// over, and reading stops). A malformed string (a raw control character, a
// bad escape) is handed over up to the fault and skipped to its end.
func (r *Reader) streamText() bool {
	raw := &rawString{r: r}
	err := jsonscan.NewReader(raw, 1<<20).ReadStringParts(1<<20, func(part []byte) error {
		r.SystemText(part, false)
		return nil
	})
	if err != nil && !raw.cut {
		r.Problems.BadText = true
		io.Copy(io.Discard, raw)
	}
	r.SystemText(nil, true)
	if raw.cut {
		r.Problems.CutElement, r.Problems.Unclosed = true, true
		r.done = true
		return false
	}
	return true
}

// rawString reads the JSON string at the reader's position, quotes included,
// and then reports io.EOF: a jsonscan decoder reads a long string through it
// without reading past the string.
type rawString struct {
	r                *Reader
	started, escaped bool
	done             bool
	cut              bool // the input ended inside the string
}

func (s *rawString) Read(p []byte) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	if _, err := s.r.br.Peek(1); err != nil {
		s.cut, s.done = true, true
		return 0, io.ErrUnexpectedEOF
	}
	chunk, _ := s.r.br.Peek(min(s.r.br.Buffered(), len(p)))
	start := 0
	if !s.started {
		s.started, start = true, 1 // the opening quote
	}
	n, esc := stringEnd(chunk[start:], s.escaped)
	if n < 0 {
		s.escaped = esc
	} else {
		s.done, chunk = true, chunk[:start+n]
	}
	k := copy(p, chunk)
	s.r.discard(k)
	return k, nil
}

// stringEnd finds the end of the JSON string that b is inside of; escaped
// tells that b starts right after a backslash. It returns the length of b up
// to and including the closing quote, or -1 and whether b ends right after a
// backslash. It looks at eight bytes at a time for a quote or a backslash
// (strings are most of a trace's bytes, and most are short: a call of
// bytes.IndexByte per quote and per backslash cost more than the search).
func stringEnd(b []byte, escaped bool) (int, bool) {
	i := 0
	if escaped {
		if len(b) == 0 {
			return -1, true
		}
		i = 1
	}
	for {
		for ; i+8 <= len(b); i += 8 {
			if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if i >= len(b) {
			return -1, false
		}
		if b[i] == '"' {
			return i + 1, false
		}
		i += 2 // past the backslash and the byte it escapes
		if i > len(b) {
			return -1, true
		}
	}
}

// plainStringEnd returns the position of the quote that closes the string
// whose text starts at b[i], or -1 when an escape comes first or b ends
// before the quote (stringEnd then reads it).
func plainStringEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			if i += bits.TrailingZeros64(m) >> 3; b[i] == '"' {
				return i
			}
			return -1
		}
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i
		case '\\':
			return -1
		}
	}
	return -1
}

// structural marks the bytes the scan stops at outside strings.
var structural = [256]bool{'"': true, ',': true, '{': true, '[': true, '}': true, ']': true}

// maybeStructural has the high bit set in the lowest byte of v (little
// endian) that is a structural byte, if any (bits above it may be set too).
func maybeStructural(v uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	w := v | ones*0x20 // '[' → '{', ']' → '}'
	q := v ^ (ones * '"')
	c := v ^ (ones * ',')
	o := w ^ (ones * '{')
	e := w ^ (ones * '}')
	return ((q-ones)&^q | (c-ones)&^c | (o-ones)&^o | (e-ones)&^e) & highs
}

// quoteOrBackslash has the high bit set in the lowest byte of v (little
// endian) that is '"' or '\\', if any (bits above it may be set too).
func quoteOrBackslash(v uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := v ^ (ones * '"')
	s := v ^ (ones * '\\')
	return ((q-ones)&^q | (s-ones)&^s) & highs
}

// checkTrailing notes anything but white space after the top-level value.
func (r *Reader) checkTrailing() {
	if _, err := r.peekNonSpace(); err == nil {
		r.Problems.Garbage = true
	}
}

// value reads one JSON value's raw text by its structure (brackets and
// strings), without checking its syntax; it returns io.ErrUnexpectedEOF when
// the input ends inside it. A string longer than maxString is cut to it (at
// a character boundary, outside escapes; r.cut tells); a value longer than
// maxElement is read to its end without being kept and reported as
// errTooLarge.
func (r *Reader) value(maxElement, maxString int) ([]byte, error) {
	r.cut = false
	if cap(r.buf) > 4<<20 {
		r.buf = nil // do not keep the memory of one large element for good
	}
	r.buf = r.buf[:0]
	c, err := r.peekNonSpace()
	if err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	if c != '{' && c != '[' && c != '"' {
		return r.scalar(c), nil
	}
	// A container or a string: scan the buffered bytes in place; a value
	// that lies wholly in the buffer is returned without a copy.
	s := valueScan{stack: r.stack[:0], maxString: maxString}
	tooLarge := false // the value is past maxElement: nothing is kept
	for {
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				return r.buf, io.ErrUnexpectedEOF
			}
		}
		chunk, _ := r.br.Peek(r.br.Buffered())
		s.seg, s.keep = 0, !tooLarge
		end, err := r.scan(&s, chunk)
		r.stack = s.stack
		if err != nil {
			return nil, err
		}
		if end < 0 {
			if !tooLarge && s.at(r, len(chunk)) > maxElement {
				// Too large to keep: follow its structure to its end.
				tooLarge = true
			}
			if !tooLarge {
				r.buf = append(r.buf, chunk[s.seg:]...)
			} else {
				r.buf = nil // let the memory of a too large element go
			}
			r.discard(len(chunk))
			continue
		}
		if tooLarge || s.at(r, end) > maxElement {
			r.discard(end)
			return nil, errTooLarge
		}
		r.cut = s.cut
		if len(r.buf) == 0 && s.seg == 0 {
			// Valid until the reader reads again: callers copy what they keep.
			r.discard(end)
			return chunk[:end:end], nil
		}
		r.buf = append(r.buf, chunk[s.seg:end]...)
		r.discard(end)
		return r.buf, nil
	}
}

// scalar reads a scalar value starting with c: it runs to the next
// delimiter; a stray delimiter is taken as a one-byte value, so that reading
// always moves on.
func (r *Reader) scalar(c byte) []byte {
	r.buf = append(r.buf, c)
	r.discard(1)
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			return r.buf
		}
		switch b[0] {
		case ',', ']', '}', ':', ' ', '\n', '\r', '\t':
			return r.buf
		}
		r.buf = append(r.buf, b[0])
		r.discard(1)
	}
}

// valueScan is the state of reading a container or a string across the
// chunks of buffered input it spans.
type valueScan struct {
	// stack holds the open brackets, to catch a closing one of the wrong kind.
	stack     []byte
	inString  bool
	escaped   bool // the chunk ended inside an escape of the current string
	strStart  int  // where the current string's text starts in the value
	skipping  bool // the current string is past maxString: its bytes are dropped
	cut       bool // a string of the value was cut
	maxString int
	// seg: chunk[seg:] is to be kept, up to the end of the value; keep is
	// false once the value is too large to keep at all.
	seg  int
	keep bool
}

// at gives the position in the value of chunk[x], x >= s.seg.
func (s *valueScan) at(r *Reader, x int) int { return len(r.buf) + x - s.seg }

// scan reads chunk, the buffered input, as the continuation of the value:
// it returns the position in chunk after the value's end, or -1 when the
// value goes on past the chunk. A string past maxString is cut, its kept
// text appended to r.buf.
func (r *Reader) scan(s *valueScan, chunk []byte) (int, error) {
	for i := 0; i < len(chunk); i++ {
		if !s.inString {
			b := chunk[i]
			if !structural[b] {
				// Numbers, colons, literals: skip to the next structural
				// byte, eight bytes at a time.
				for i++; i+8 <= len(chunk); i += 8 {
					if m := maybeStructural(binary.LittleEndian.Uint64(chunk[i:])); m != 0 {
						i += bits.TrailingZeros64(m) >> 3
						break
					}
				}
				for i < len(chunk) && !structural[chunk[i]] {
					i++
				}
				if i == len(chunk) {
					break
				}
				b = chunk[i]
			}
			if b != '"' {
				if end, err := r.bracket(s, chunk, i); end >= 0 || err != nil {
					return end, err
				}
				continue
			}
			// A string starts: find its end now. Most are short and
			// plain, and end in the chunk: passed over here at once.
			i++
			if j := plainStringEnd(chunk, i); j >= 0 && j-i <= s.maxString {
				if i = j; len(s.stack) == 0 {
					return i + 1, nil
				}
				continue
			}
			s.inString = true
			s.strStart = s.at(r, i)
		}
		var closed bool
		if i, closed = r.stringPart(s, chunk, i); closed && len(s.stack) == 0 {
			return i + 1, nil
		}
	}
	return -1, nil
}

// bracket handles the structural byte chunk[i] outside strings: it returns
// the position after the value's end when a closing bracket ends it, -1
// otherwise, and errBroken when the element is broken.
func (r *Reader) bracket(s *valueScan, chunk []byte, i int) (int, error) {
	switch b := chunk[i]; b {
	case ',':
		// In an element's own members, a comma is followed by a key (or,
		// tolerated, the closing brace). An opening brace there means the
		// element's brace never closed and the next element began
		// (docs/format/traceevent.md#resynchronisation); other syntax errors
		// are left to the decoder, and nested ones are caught at their
		// closing bracket.
		if len(s.stack) == 1 && s.stack[0] == '{' {
			j := i + 1
			for j < len(chunk) && (chunk[j] == ' ' || chunk[j] == '\n' || chunk[j] == '\r' || chunk[j] == '\t') {
				j++
			}
			if j < len(chunk) && chunk[j] == '{' {
				r.discard(j)
				return -1, errBroken
			}
		}
	case '{', '[':
		s.stack = append(s.stack, b)
	case '}', ']':
		if n := len(s.stack); n == 0 || (s.stack[n-1] == '{') != (b == '}') {
			r.discard(i + 1)
			return -1, errBroken
		}
		s.stack = s.stack[:len(s.stack)-1]
		if len(s.stack) == 0 {
			return i + 1, nil
		}
	}
	return -1, nil
}

// stringPart reads the current string from chunk[i:]: it returns the
// position of its closing quote and true, or the chunk's end and false when
// the string goes on past the chunk. Past maxString, the text kept so far is
// appended to r.buf and the rest dropped up to the closing quote.
func (r *Reader) stringPart(s *valueScan, chunk []byte, i int) (int, bool) {
	n, esc := stringEnd(chunk[i:], s.escaped)
	textEnd := len(chunk) // the end of the string's text in this chunk
	if n >= 0 {
		textEnd = i + n - 1
	}
	if !s.skipping && s.keep && s.at(r, textEnd)-s.strStart > s.maxString {
		// Keep maxString bytes of the text and drop the rest up to the
		// closing quote.
		keep := s.seg + s.strStart + s.maxString - len(r.buf)
		r.buf = append(r.buf, chunk[s.seg:keep]...)
		r.buf = trimPartial(r.buf, s.strStart)
		s.skipping, s.cut = true, true
	}
	if n < 0 {
		s.escaped = esc
		if s.skipping {
			s.seg = len(chunk)
		}
		return len(chunk), false
	}
	s.escaped, s.inString = false, false
	i += n - 1 // at the closing quote
	if s.skipping {
		s.seg, s.skipping = i, false
	}
	return i, true
}

// trimPartial removes from the end of b, a string's text from b[start:] cut
// anywhere, an escape sequence and a UTF-8 character left incomplete.
func trimPartial(b []byte, start int) []byte {
	for i := start; i < len(b); {
		if b[i] != '\\' {
			i++
			continue
		}
		n := 2
		if i+1 < len(b) && b[i+1] == 'u' {
			n = 6
		}
		if i+n > len(b) {
			b = b[:i]
			break
		}
		i += n
	}
	// An incomplete character is at most three bytes long.
	for k := 1; k <= 3 && k <= len(b)-start; k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			break // ASCII: complete
		}
		if c >= 0xC0 { // the lead byte of the last character
			if need := utf8Len(c); need > k {
				b = b[:len(b)-k]
			}
			break
		}
	}
	return b
}

// utf8Len is the length of the UTF-8 sequence that lead byte c starts.
func utf8Len(c byte) int {
	switch {
	case c >= 0xF0:
		return 4
	case c >= 0xE0:
		return 3
	}
	return 2
}

// limits returns the limits of an element.
func (r *Reader) limits() (maxElement, maxString int) {
	maxElement, maxString = r.MaxElement, r.MaxString
	if maxElement <= 0 {
		maxElement = DefaultMaxElement
	}
	if maxString <= 0 {
		maxString = DefaultMaxString
	}
	return maxElement, maxString
}

// MaxMember is the largest top-level member other than traceEvents kept
// (metadata, stackFrames, samples): they are kept whole, strings uncut; a
// larger one is skipped and counted like a too large element.
const MaxMember = 256 << 20

// maxKey bounds a top-level key.
const maxKey = 1 << 20

// DefaultMaxElement is the largest element a Reader keeps by default; a
// larger one is skipped whole and counted (Problems.TooLarge).
const DefaultMaxElement = 64 << 20

// DefaultMaxString is the longest string a Reader keeps by default; a longer
// one is cut (Problems.CutStrings). A string costs several times its size
// on its way to the database, which this bounds.
const DefaultMaxString = 32 << 20

// resyncWindow is how far the reader looks for the next element after a
// syntax error (docs/format/traceevent.md#resynchronisation).
const resyncWindow = 1 << 20

// errBroken reports an element whose brackets do not match.
var errBroken = errors.New("brackets do not match")

// errTooLarge reports an element larger than MaxElement, read to its end.
var errTooLarge = errors.New("element too large")

// resync skips to the start of the next element after a broken one: the
// next "}" followed by "," and "{" (white space allowed between) within
// resyncWindow bytes. It reports whether it found one.
func (r *Reader) resync() bool {
	state := 0 // 0: looking for }, 1: after }, 2: after },
	for n := 0; n < resyncWindow; n++ {
		b, err := r.br.Peek(1)
		if err != nil {
			return false
		}
		c := b[0]
		switch {
		case state == 2 && c == '{':
			return true // positioned at the next element
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if state == 0 {
				break
			}
		case state == 1 && c == ',':
			state = 2
		case c == '}':
			state = 1
		default:
			state = 0
		}
		r.discard(1)
	}
	return false
}

// Next returns the next element of traceEvents, or io.EOF after the last;
// the element is valid until the next call. Empty objects are skipped and
// counted; elements that are not objects are returned (the caller counts them
// invalid, as Decode reports).
func (r *Reader) Next() (*Element, error) {
	for {
		if r.done || !r.inEvents {
			return nil, io.EOF
		}
		c, err := r.peekNonSpace()
		if err != nil {
			r.Problems.Unclosed = true
			r.done = true
			return nil, io.EOF
		}
		if c == ']' {
			r.discard(1)
			r.endEvents()
			continue
		}
		if !r.first {
			if c != ',' {
				// Two elements without a comma: take it as a missing separator.
				r.Problems.Garbage = true
			} else {
				comma := r.off
				r.discard(1)
				c, err = r.peekNonSpace()
				if err != nil {
					// A trailing comma at the end of an unclosed array.
					count(&r.Problems.TrailingCommas, &r.Problems.First.TrailingComma, comma)
					r.Problems.Unclosed = true
					r.done = true
					return nil, io.EOF
				}
				if c == ']' {
					count(&r.Problems.TrailingCommas, &r.Problems.First.TrailingComma, comma)
					continue
				}
			}
		}
		r.first = false
		off := r.off
		raw, err := r.value(r.limits())
		if r.cut {
			count(&r.Problems.CutStrings, &r.Problems.First.CutString, off)
		}
		if errors.Is(err, errTooLarge) {
			count(&r.Problems.TooLarge, &r.Problems.First.TooLarge, off)
			r.seq++
			continue
		}
		if errors.Is(err, errBroken) {
			count(&r.Problems.Broken, &r.Problems.First.Broken, off)
			r.seq++
			if !r.resync() {
				r.Problems.Stopped = true
				r.done = true
				return nil, io.EOF
			}
			r.first = true // positioned at an element, no comma before it
			continue
		}
		if err != nil {
			r.Problems.CutElement = true
			r.Problems.Unclosed = true
			r.done = true
			return nil, io.EOF
		}
		seq := r.seq
		r.seq++
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && isEmptyObject(t) {
			count(&r.Problems.EmptyEvents, &r.Problems.First.EmptyEvent, off)
			continue
		}
		r.el = Element{Seq: seq, Offset: off, Raw: raw}
		return &r.el, nil
	}
}

// endEvents continues after the traceEvents array: the array form ends; the
// object form reads its remaining members.
func (r *Reader) endEvents() {
	r.inEvents = false
	if r.form == ArrayForm {
		r.done = true
		r.checkTrailing()
		return
	}
	r.toEvents(false)
}

func isEmptyObject(b []byte) bool {
	b = bytes.TrimSpace(b[1:])
	return len(b) == 1 && b[0] == '}'
}
