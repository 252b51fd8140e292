package jsonscan

import (
	"fmt"
	"tracestreamer/internal/testutil"

	"bytes"
	"encoding/json"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzReadString compares string decoding with encoding/json on valid UTF-8
// input, read whole, one byte at a time and in parts.
func FuzzReadString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b\\c\/\n\t\u00e9\ud83d\ude00"`, `"\ud800"`, `"x`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		testutil.CountExec("FuzzReadString")
		a, errA := NewBytes(doc).ReadString(nil)
		b, errB := NewReader(iotest.OneByteReader(bytes.NewReader(doc)), 1).ReadString(nil)
		if (errA == nil) != (errB == nil) || string(a) != string(b) {
			t.Fatalf("whole %q %v, byte by byte %q %v", a, errA, b, errB)
		}
		if c, errC := readParts(NewReader(iotest.HalfReader(bytes.NewReader(doc)), 5), 3); (errA == nil) != (errC == nil) ||
			(errA == nil && c != string(a)) {
			t.Fatalf("whole %q %v, in parts %q %v", a, errA, c, errC)
		}
		// ReadStringMax keeps ReadString's first limit bytes, less a
		// character the cut splits, and ends as it does.
		for _, limit := range []int{1, 2, 3, 7} {
			m, cut, errM := NewReader(iotest.HalfReader(bytes.NewReader(doc)), 4).ReadStringMax([]byte("k"), limit)
			want := a[:min(len(a), limit)]
			if len(a) > limit {
				want = trimIncomplete(want, 0)
			}
			if fmt.Sprint(errM) != fmt.Sprint(errA) || (errA == nil && (string(m) != "k"+string(want) || cut != (len(a) > limit))) {
				t.Fatalf("limit %d: %q cut %v %v; whole %q %v", limit, m, cut, errM, a, errA)
			}
		}
		if !utf8.Valid(doc) {
			return
		}
		var want string
		d := NewBytes(doc)
		got, err := d.ReadString(nil)
		if json.Unmarshal(doc, &want) == nil {
			if err != nil || string(got) != want || !d.AtEOF() {
				t.Fatalf("ReadString(%q) = %q, %v; encoding/json says %q", doc, got, err, want)
			}
		}
	})
}

// FuzzSkipValue: skipping never panics, and whatever encoding/json accepts is
// skipped completely.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"d"}`, `[1,2`, `{"a" 1}`, `[]`, `"s"`, `-1.5e3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		testutil.CountExec("FuzzSkipValue")
		d := NewBytes(doc)
		err := d.SkipValue()
		if json.Valid(doc) && (err != nil || !d.AtEOF()) {
			t.Fatalf("SkipValue(%q): %v, at EOF %v", doc, err, d.AtEOF())
		}
	})
}

// FuzzSkipBytes checks the in-memory skipper against the streaming one:
// whatever SkipBytes accepts, SkipValue (its in-memory path off) accepts too,
// ending at the same byte; and SkipValue gives the same result with the
// in-memory path on and off.
func FuzzSkipBytes(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"d\u00e9"}`, `[1,2`, `{"a" 1}`, ` [] `, `"s\"`, `-1.5e3,`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `{"a":1,}`, `tru`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		testutil.CountExec("FuzzSkipBytes")
		i := SkipSpace(doc, 0)
		end, ok := SkipBytes(doc, i)
		stream := NewBytes(doc)
		stream.streamOnly = true
		serr := stream.SkipValue()
		if ok && (serr != nil || stream.pos != end) {
			t.Fatalf("SkipBytes(%q) = %d, SkipValue: %v at %d", doc, end, serr, stream.pos)
		}
		both := NewBytes(doc)
		berr := both.SkipValue()
		if (serr == nil) != (berr == nil) || (serr == nil && stream.pos != both.pos) {
			t.Fatalf("SkipValue(%q): streaming %v at %d, with the in-memory path %v at %d", doc, serr, stream.pos, berr, both.pos)
		}
	})
}

// FuzzAppendString: both escapings read back with ReadString and
// encoding/json as the string (valid UTF-8) or, with EscapeNonASCII, as the
// string with each invalid byte U+FFFD; EscapeNonASCII writes printable ASCII
// only.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"abc", "a\"b\\c\n\t\b\f\x01\x7f", "é€😀", "a\xffb\xe2\x82", "\xed\xa0\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		testutil.CountExec("FuzzAppendString")
		for _, e := range []Escaping{EscapeMinimal, EscapeNonASCII} {
			doc := AppendStringEscaping(nil, s, e)
			want := string(s)
			if e == EscapeNonASCII {
				want = string([]rune(string(s)))
				for _, c := range doc {
					if c < 0x20 || c >= utf8.RuneSelf {
						t.Fatalf("AppendStringEscaping(%q, %d) = %q: byte %#x", s, e, doc, c)
					}
				}
			} else if !utf8.Valid(s) {
				continue
			}
			d := NewBytes(doc)
			got, err := d.ReadString(nil)
			var std string
			if err != nil || string(got) != want || !d.AtEOF() || json.Unmarshal(doc, &std) != nil || std != want {
				t.Fatalf("AppendStringEscaping(%q, %d) = %q: ReadString %q %v, encoding/json %q", s, e, doc, got, err, std)
			}
		}
	})
}

// FuzzIntsText: reading an array n elements at a time from the text IntsText
// takes gives the values, errors, offsets and non-integer counts of reading
// them from the stream (checkIntsText), whatever the document, the buffer
// and the limit of a text.
func FuzzIntsText(f *testing.F) {
	for _, s := range []string{"[1,2,3,4,5,6,7]", "[1,,2,3]", "[1 2,3,4]", "[1.5,null,-0,12345678901234567890,3]",
		`[1,"a,b",2,3]`, "[1,2,3,4}", "[1,[2,3],4,5]", "[-,1,2]", "[1,2,3"} {
		f.Add([]byte(s), uint8(2), uint8(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, per, size, limit uint8) {
		testutil.CountExec("FuzzIntsText")
		// Texts of up to 518 bytes through buffers of 64 to 319: a limit
		// below the buffer's size and above it (as in parser/heapsnapshot).
		checkIntsText(t, doc, 1+int(per%8), 64+int(size), 8+2*int(limit))
	})
}
