package tokenizer

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/bits"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func readAll(t *testing.T, in string) ([]string, *Reader) {
	t.Helper()
	r, err := NewReader(iotest.HalfReader(strings.NewReader(in)))
	if err != nil {
		t.Fatalf("NewReader(%.40q): %v", in, err)
	}
	var out []string
	for {
		el, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(el.Raw))
	}
}

func TestContainers(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		probs    Problems
		other    []string
	}{
		{"array", `[{"ph":"B"},{"ph":"E"}]`, []string{`{"ph":"B"}`, `{"ph":"E"}`}, Problems{}, nil},
		{"array without closing bracket", "[{\"ph\":\"B\"},\n{\"ph\":\"E\"},\n", []string{`{"ph":"B"}`, `{"ph":"E"}`},
			Problems{TrailingCommas: 1, Unclosed: true, First: FirstOffsets{TrailingComma: 23}}, nil},
		{"trailing comma and empty elements", `[{"a":1},{},{ },{"b":2},]`, []string{`{"a":1}`, `{"b":2}`},
			Problems{TrailingCommas: 1, EmptyEvents: 2, First: FirstOffsets{TrailingComma: 23, EmptyEvent: 9}}, nil},
		{"element cut by the end", `[{"a":1},{"b":"x`, []string{`{"a":1}`}, Problems{Unclosed: true, CutElement: true}, nil},
		{"object, metadata first", `{"metadata":{"x":[1,"}"]},"traceEvents":[{"a":1}],"displayTimeUnit":"ns"}`,
			[]string{`{"a":1}`}, Problems{}, []string{"displayTimeUnit", "metadata"}},
		{"object cut after events", `{"traceEvents":[{"a":1}], "otherData": {"v`, []string{`{"a":1}`}, Problems{CutElement: true, Unclosed: true}, nil},
		{"garbage after", `[{"a":1}] xyz`, []string{`{"a":1}`}, Problems{Garbage: true}, nil},
		{"BOM, strings with brackets", "\xef\xbb\xbf[{\"name\":\"a]}\\\"{\"}]", []string{`{"name":"a]}\"{"}`}, Problems{}, nil},
		{"non-object elements are returned", `[1,"s",[2],null]`, []string{"1", `"s"`, "[2]", "null"}, Problems{}, nil},
		// The warning names the broken element's offset, not where reading ended.
		{"broken element", `[{"a":1},{"b":[}]},{"c":2},{"d":3}]`, []string{`{"a":1}`, `{"c":2}`, `{"d":3}`},
			Problems{Broken: 1, First: FirstOffsets{Broken: 9}}, nil},
	}
	for _, tt := range tests {
		got, r := readAll(t, tt.in)
		if !reflect.DeepEqual(got, tt.want) || r.Problems != tt.probs {
			t.Errorf("%s: %q %+v, want %q %+v", tt.name, got, r.Problems, tt.want, tt.probs)
		}
		var keys []string
		for k := range r.Other {
			keys = append(keys, k)
		}
		if len(keys) > 1 && keys[0] > keys[1] {
			keys[0], keys[1] = keys[1], keys[0]
		}
		if !reflect.DeepEqual(keys, tt.other) {
			t.Errorf("%s: other members %v, want %v", tt.name, keys, tt.other)
		}
	}
	for _, bad := range []string{"", "  ", "hello", "# tracer"} {
		if _, err := NewReader(strings.NewReader(bad)); !errors.Is(err, ErrNotTrace) {
			t.Errorf("NewReader(%q): %v", bad, err)
		}
	}
}

// TestFirstReadError: a read that fails before the first bracket is that
// error, with its offset, not "not a Trace Event Format file".
func TestFirstReadError(t *testing.T) {
	boom := errors.New("device gone")
	for _, tt := range []struct {
		in   io.Reader
		want string
	}{
		{iotest.ErrReader(boom), "reading at offset 0: device gone"},
		{io.MultiReader(strings.NewReader("\xef\xbb\xbf  \n"), iotest.ErrReader(boom)), "reading at offset 6: device gone"},
	} {
		_, err := NewReader(tt.in)
		if !errors.Is(err, boom) || errors.Is(err, ErrNotTrace) || err.Error() != tt.want {
			t.Errorf("NewReader: %v, want %q", err, tt.want)
		}
	}
}

// TestStringEscapes cuts elements whose strings hold escapes and brackets,
// with the input arriving one byte per read and all at once: an escape or a
// quote at a buffer boundary must not end or extend a string.
func TestStringEscapes(t *testing.T) {
	elements := []string{`{"a":"x\\"}`, `{"a":"\\\"}]"}`, `{"a":"\"","b":["]"]}`, `{"\\":"\\\\"}`,
		`{"a":"` + strings.Repeat(`\"{`, 50) + `"}`, `{"a":"` + strings.Repeat("y", 300) + `\\"}`}
	in := "[" + strings.Join(elements, ",") + "]"
	for name, r := range map[string]io.Reader{
		"one byte per read": iotest.OneByteReader(strings.NewReader(in)),
		"all at once":       strings.NewReader(in),
	} {
		rd, err := NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			el, err := rd.Next()
			if err != nil {
				break
			}
			got = append(got, string(el.Raw))
		}
		if !reflect.DeepEqual(got, elements) || rd.Problems != (Problems{}) {
			t.Errorf("%s: %q %+v, want %q", name, got, rd.Problems, elements)
		}
	}
}

func TestOffsetsAndSeq(t *testing.T) {
	r, _ := NewReader(strings.NewReader(`[ {"a":1} , {"b":2}]`))
	el, _ := r.Next()
	a := *el
	el, _ = r.Next()
	b := *el
	if a.Offset != 2 || a.Seq != 0 || b.Offset != 12 || b.Seq != 1 {
		t.Errorf("offsets %d %d seq %d %d", a.Offset, b.Offset, a.Seq, b.Seq)
	}
}

// TestLimits reads elements past the string and element limits, through a
// reader that returns a few bytes at a time (strings cross buffer
// boundaries): long strings are cut at a character boundary and outside
// escapes, too large elements are skipped whole, and every element after
// them is read.
func TestLimits(t *testing.T) {
	long := strings.Repeat("ab\\\"cd\\u00e9é€😀", 20) // escapes and 2-, 3- and 4-byte characters
	const maxString = 50
	plain50 := strings.Repeat("0123456789", maxString/10) // MaxString bytes, no escape
	tests := []struct {
		name   string
		in     string
		want   []string // the elements read, in order
		cut    int64
		large  int64
		prefix string // of the cut string's decoded text
	}{
		{"string cut", `[{"a":"` + long + `"},{"b":1}]`, nil, 1, 0, decode(t, `"`+long+`"`)},
		{"key and value cut once", `[{"` + long + `":"` + long + `"},{"b":1}]`, nil, 1, 0, ""},
		{"short strings untouched", `[{"a":"xy"},{"b":1}]`, []string{`{"a":"xy"}`, `{"b":1}`}, 0, 0, ""},
		// Plain strings (no escape) of MaxString bytes and one more, as values
		// and keys: the scan passes over the first, the second is cut.
		{"plain string of MaxString bytes kept", `[{"a":"` + plain50 + `"},{"b":1}]`,
			[]string{`{"a":"` + plain50 + `"}`, `{"b":1}`}, 0, 0, ""},
		{"plain string of MaxString+1 bytes cut", `[{"a":"` + plain50 + `z"},{"b":1}]`,
			[]string{`{"a":"` + plain50 + `"}`, `{"b":1}`}, 1, 0, ""},
		{"plain key of MaxString bytes kept", `[{"` + plain50 + `":1},{"b":1}]`,
			[]string{`{"` + plain50 + `":1}`, `{"b":1}`}, 0, 0, ""},
		{"plain key of MaxString+1 bytes cut", `[{"` + plain50 + `z":1},{"b":1}]`,
			[]string{`{"` + plain50 + `":1}`, `{"b":1}`}, 1, 0, ""},
		{"element too large", `[{"a":[` + strings.Repeat(`"x",`, 100) + `1]},{"b":1},{"c":[}]`,
			[]string{`{"b":1}`}, 0, 1, ""},
		{"too large and cut", `[{"a":"` + long + `","z":[` + strings.Repeat(`1,`, 300) + `1]},{"b":2}]`,
			[]string{`{"b":2}`}, 0, 1, ""},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 3, 7, 1 << 20} {
			r, err := NewReader(&chunkReader{s: tt.in, n: chunk})
			if err != nil {
				t.Fatal(err)
			}
			r.MaxElement, r.MaxString = 400, maxString
			var got []string
			for {
				el, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid(el.Raw) {
					t.Errorf("%s/%d: element %s is not valid JSON", tt.name, chunk, el.Raw)
				}
				got = append(got, string(el.Raw))
			}
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s/%d: elements %q, want %q", tt.name, chunk, got, tt.want)
			}
			if got[len(got)-1] != `{"b":1}` && got[len(got)-1] != `{"b":2}` {
				t.Errorf("%s/%d: the element after the long one was not read: %q", tt.name, chunk, got)
			}
			if r.Problems.CutStrings != tt.cut || r.Problems.TooLarge != tt.large {
				t.Errorf("%s/%d: %d cut, %d too large, want %d and %d", tt.name, chunk,
					r.Problems.CutStrings, r.Problems.TooLarge, tt.cut, tt.large)
			}
			if tt.prefix != "" {
				var m map[string]string
				if err := json.Unmarshal([]byte(got[0]), &m); err != nil {
					t.Fatal(err)
				}
				if s := m["a"]; len(s) < 30 || len(s) > 50 || !strings.HasPrefix(tt.prefix, s) || !utf8.ValidString(s) {
					t.Errorf("%s/%d: cut string %q (%d bytes) is not a valid prefix of 30-50 bytes (50 of JSON text)", tt.name, chunk, s, len(s))
				}
			}
		}
	}
}

// chunkReader returns at most n bytes a call.
type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

func decode(t *testing.T, s string) string {
	var out string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStringEnd checks the word-at-a-time string scan against the rule it
// implements, at every position of the quote or backslash within a word.
func TestStringEnd(t *testing.T) {
	tests := []struct {
		in      string
		escaped bool
		n       int
		endEsc  bool
	}{
		{`abc"def`, false, 4, false},
		{`"`, false, 1, false},
		{`a\"b"`, false, 5, false},
		{`"x"`, true, 3, false}, // the first quote is escaped
		{`abc\`, false, -1, true},
		{`abc`, false, -1, false},
		{``, true, -1, true},
		{`0123456789abcdef\\"tail"`, false, 19, false},
		{`0123456789abcdefghij"`, false, 21, false},
		{`é😀 "`, false, 8, false},
	}
	for _, tt := range tests {
		n, esc := stringEnd([]byte(tt.in), tt.escaped)
		if n != tt.n || esc != tt.endEsc {
			t.Errorf("stringEnd(%q, %v) = %d, %v; want %d, %v", tt.in, tt.escaped, n, esc, tt.n, tt.endEsc)
		}
	}
	for pos := range 20 {
		for _, c := range []byte{'"', '\\'} {
			b := []byte(strings.Repeat("x", 24))
			b[pos] = c
			want := pos + 1
			if c == '\\' {
				want = 24 + 1 // the escaped x, then the quote appended below
				if pos == 23 {
					want = -1
				}
			}
			b = append(b, '"')
			if c == '\\' && pos == 23 {
				b = b[:24] // ends in the backslash
			}
			if n, _ := stringEnd(b, false); n != want {
				t.Errorf("%q: %d, want %d", b, n, want)
			}
		}
	}
}

// TestMaybeStructural checks that the lowest flagged byte of a word is the
// first structural byte, for each structural byte at each position.
func TestMaybeStructural(t *testing.T) {
	for _, c := range []byte(`",{}[]`) {
		for pos := range 8 {
			w := []byte("12345.67")
			w[pos] = c
			m := maybeStructural(binary.LittleEndian.Uint64(w))
			if got := bits.TrailingZeros64(m) >> 3; got != pos {
				t.Errorf("%q: lowest flagged byte %d, want %d", w, got, pos)
			}
		}
	}
	for _, w := range []string{"12345.67", ": null ", "-1e+10:0"} {
		b := append([]byte(w), strings.Repeat(" ", 8-len(w))...)
		if m := maybeStructural(binary.LittleEndian.Uint64(b)); m != 0 {
			t.Errorf("%q: flagged %x", b, m)
		}
	}
}

// TestOtherOffset: each top-level member kept in Other has the offset where
// its value starts (after the spaces following its colon), before and after
// traceEvents and past a BOM; a repeated member has its kept value's.
func TestOtherOffset(t *testing.T) {
	in := "\xef\xbb\xbf{\"stackFrames\" :\n {\"1\":{\"name\":\"a\"}},\"samples\":[1],\"traceEvents\":[{\"a\":1}],\n" +
		"\"x\":\"v\",\"samples\": [2], \"n\":3}"
	_, r := readAll(t, in)
	for _, tc := range []struct {
		name, value string
		at          int
	}{
		{"stackFrames", `{"1":{"name":"a"}}`, strings.Index(in, `{"1"`)},
		{"samples", "[2]", strings.Index(in, "[2]")},
		{"x", `"v"`, strings.Index(in, `"v"`)},
		{"n", "3", strings.Index(in, "3}")},
	} {
		if got, off := string(r.Other[tc.name]), r.OtherOffset[tc.name]; got != tc.value || off != int64(tc.at) ||
			in[off:off+int64(len(got))] != got {
			t.Errorf("%s: %q at %d, want %q at %d", tc.name, got, off, tc.value, tc.at)
		}
	}
	if len(r.OtherOffset) != 4 {
		t.Errorf("offsets %v, want 4", r.OtherOffset)
	}
}

// TestEscapedMemberNames: a top-level name written with escapes is known by
// its decoded text, as JSON.parse knows it, so that two spellings of one
// name are one member (its later value, in the place of the first); a name
// whose escapes decode to a lone surrogate or do not decode is kept as
// written after writtenMark.
func TestEscapedMemberNames(t *testing.T) {
	const w = writtenMark
	for _, tc := range []struct {
		name, in string
		events   []string          // the elements read
		other    []string          // OtherKeys
		values   map[string]string // some of Other
	}{
		{"traceEvents", `{"traceEv\u0065nts":[{"a":1}]}`, []string{`{"a":1}`}, nil, nil},
		{"traceEvents, upper-case hex", `{"trace\u0045vents":[{"a":1}]}`, []string{`{"a":1}`}, nil, nil},
		{"traceEvents, all escaped", `{"\u0074\u0072\u0061\u0063\u0065\u0045\u0076\u0065\u006e\u0074\u0073":[{"a":1},{"b":2}]}`,
			[]string{`{"a":1}`, `{"b":2}`}, nil, nil},
		{"members before and after", `{"st\u0061ckFrames":{},"s\u0061mples":[],"metad\u0061ta":{},"traceEvents":[{"a":1}],` +
			`"otherD\u0061ta":{},"displayTimeUnit":"ns","display\u0054imeUnit":"ms","controllerTraceD\u0061taKey":"k",` +
			`"systemTr\u0061ceEvents":{}}`, []string{`{"a":1}`},
			[]string{"stackFrames", "samples", "metadata", "otherData", "displayTimeUnit", "controllerTraceDataKey", "systemTraceEvents"},
			map[string]string{"displayTimeUnit": `"ms"`}},
		{"other names decoded", `{"x\u0079":1,"a\\b":2,"traceEvents":[],"\ud83d\ude00":3}`, nil,
			[]string{"xy", `a\b`, "\U0001F600"}, nil},
		{"two spellings of an unknown name", `{"xy":1,"b":2,"x\u0079":3,"\u0078y":4}`, nil,
			[]string{"xy", "b"}, map[string]string{"xy": "4", "b": "2"}},
		{"escaped spelling first", `{"x\u0079":1,"xy":2}`, nil, []string{"xy"}, map[string]string{"xy": "2"}},
		{"a pair and the character", `{"\ud83d\ude00":1,"` + "\U0001F600" + `":2}`, nil,
			[]string{"\U0001F600"}, map[string]string{"\U0001F600": "2"}},
		// Not decoded twice: "x\\u0079" is the 7 characters x\u0079.
		{"escaped backslash", `{"x\\u0079":1,"xy":2}`, nil, []string{`x\u0079`, "xy"}, nil},
		// Kept as written: lone surrogates (two different ones are two
		// members, as for JSON.parse), and a name that does not decode; the
		// written text never meets a decoded one.
		{"lone surrogates", `{"k\ud800":1,"k\\ud800":2,"k\udc00":3,"k\ud800":4}`, nil,
			[]string{w + `k\ud800`, `k\ud800`, w + `k\udc00`}, map[string]string{w + `k\ud800`: "4", `k\ud800`: "2"}},
		{"bad escape", `{"a\x":1}`, nil, []string{w + `a\x`}, nil},
		// A name that starts with writtenMark's byte (invalid UTF-8) is kept
		// as written too: it is not taken for a name kept as written, nor
		// for the name after that byte.
		{"written mark in the input", `{"ab":0,"` + "\xff" + `ab":1,"k\ud800":2,"` + "\xff" + `k\\ud800":3}`, nil,
			[]string{"ab", w + "\xffab", w + `k\ud800`, w + "\xff" + `k\\ud800`},
			map[string]string{"ab": "0", w + "\xffab": "1", w + `k\ud800`: "2"}},
		// Not a known name once decoded.
		{"near misses", `{"traceEvents\ud800":[1],"trace\"Events":[2],"traceEvents ":[3],"trace\/Events":[4]}`, nil,
			[]string{w + `traceEvents\ud800`, `trace"Events`, "traceEvents ", `trace/Events`}, nil},
	} {
		got, r := readAll(t, tc.in)
		if !reflect.DeepEqual(got, tc.events) || !reflect.DeepEqual(r.OtherKeys, tc.other) || r.Problems != (Problems{}) {
			t.Errorf("%s: elements %q members %q %+v, want %q %q", tc.name, got, r.OtherKeys, r.Problems, tc.events, tc.other)
		}
		for k, v := range tc.values {
			if got, off := string(r.Other[k]), r.OtherOffset[k]; got != v || tc.in[off:off+int64(len(v))] != v {
				t.Errorf("%s: %q is %s at %d, want %s", tc.name, k, got, off, v)
			}
		}
		if len(r.Other) != len(tc.other) {
			t.Errorf("%s: %d members, want %d", tc.name, len(r.Other), len(tc.other))
		}
	}
}

// TestMemberText: the text of a name kept as written is decoded, lone
// surrogates replaced; a decoded name is its own text, whatever it holds.
func TestMemberText(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		replaced   bool
	}{
		{"xy", "xy", false},
		{`x\u0079`, `x\u0079`, false},
		{"a\xffb", "a\xffb", false},
		{writtenMark + `k\ud800\u0079`, "k\uFFFDy", true},
		{writtenMark + `k\udc00\ud800`, "k\uFFFD\uFFFD", true},
		{writtenMark + "k\xfe\\ud800", "k\xfe\uFFFD", true},
		{writtenMark + `a\x`, `a\x`, false},
	} {
		if text, replaced := MemberText(tc.name); text != tc.text || replaced != tc.replaced {
			t.Errorf("MemberText(%q) = %q, %v, want %q, %v", tc.name, text, replaced, tc.text, tc.replaced)
		}
	}
}
