package jsonscan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"tracestreamer/internal/testutil"
)

// decoders returns the ways a document can reach a Decoder: whole, and one byte
// per read through a tiny buffer, so that every token straddles a refill.
func decoders(doc string) map[string]*Decoder {
	return map[string]*Decoder{
		"bytes":   NewBytes([]byte(doc)),
		"onebyte": NewReader(iotest.OneByteReader(strings.NewReader(doc)), 1),
		"small":   NewReader(iotest.HalfReader(strings.NewReader(doc)), 7),
	}
}

func TestReadInts(t *testing.T) {
	tests := []struct {
		doc  string
		want []int64
	}{
		{`[]`, nil},
		{`[0]`, []int64{0}},
		{"[9,25571,1,0,3575,0,0\n,1,3,3,432,52,0,0]", []int64{9, 25571, 1, 0, 3575, 0, 0, 1, 3, 3, 432, 52, 0, 0}},
		{`[ -1 , 4294967295 ,-9223372036854775808, 9223372036854775807 ]`,
			[]int64{-1, 4294967295, -9223372036854775808, 9223372036854775807}},
		{`[1e3, 2.0, -0]`, []int64{1000, 2, 0}},
		{`[123456789012345678]`, []int64{123456789012345678}},
		// White space around the commas, as V8 and ArkTS write edges.
		{"[ 2,427,297752\n,3,-458910 ,\t190\r\n, 7 ]", []int64{2, 427, 297752, 3, -458910, 190, 7}},
		{"[\n1]", []int64{1}},
	}
	for _, tt := range tests {
		for name, d := range decoders(tt.doc) {
			if err := d.Expect('['); err != nil {
				t.Fatal(err)
			}
			var got []int64
			buf := make([]int64, 2)
			first := true
			for {
				n, done, err := d.ReadInts(buf, &first)
				if err != nil {
					t.Fatalf("%s %q: %v", name, tt.doc, err)
				}
				got = append(got, buf[:n]...)
				if done {
					break
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%s %q: got %v, want %v", name, tt.doc, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%s %q: [%d] = %d, want %d", name, tt.doc, i, got[i], tt.want[i])
				}
			}
		}
	}
}

func TestReadIntsErrors(t *testing.T) {
	tests := []struct{ doc, wantErr string }{
		{`[1,2`, "offset 4: expected a value: unexpected end of JSON"},
		{`[1.5]`, `offset 1: "1.5" is not an integer`},
		{`[1 2]`, "offset 3: expected ',' or closing bracket, found '2'"},
		{`[1,"x"]`, `offset 3: expected a number, found '"'`},
		{`[,1]`, `offset 1: expected a number, found ','`},
		{`[1,,2]`, `offset 3: expected a number, found ','`},
		{`[1,]`, `offset 3: expected a number, found ']'`},
		{"[1\x01,2]", `offset 2: expected ',' or closing bracket, found '\x01'`},
	}
	for _, tt := range tests {
		for name, d := range decoders(tt.doc) {
			d.Expect('[')
			buf := make([]int64, 8)
			first := true
			_, _, err := d.ReadInts(buf, &first)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s %q: error %v, want %q", name, tt.doc, err, tt.wantErr)
			}
		}
	}
}

func TestReadString(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`""`, ""},
		{`"GC roots"`, "GC roots"},
		{`"a\"b\\c\/d\n\t\r\b\f"`, "a\"b\\c/d\n\t\r\b\f"},
		{`"gr\u00f6\u00DFe \u2713"`, "größe ✓"},
		{`"\ud83d\ude00"`, "😀"},
		{`"lone \ud83d end"`, "lone \ufffd end"},
		{`"raw größe 😀"`, "raw größe 😀"},
	}
	for _, tt := range tests {
		for name, d := range decoders(tt.doc) {
			got, err := d.ReadString(nil)
			if err != nil || string(got) != tt.want {
				t.Errorf("%s %s: got %q, %v; want %q", name, tt.doc, got, err, tt.want)
			}
		}
		for _, size := range []int{1, 3, 1 << 10} {
			for name, d := range decoders(tt.doc) {
				got, err := readParts(d, size)
				if err != nil || got != tt.want {
					t.Errorf("%s %s in parts of %d: got %q, %v; want %q", name, tt.doc, size, got, err, tt.want)
				}
			}
		}
	}
	// A cut string hands over what came before the cut.
	if got, err := readParts(NewBytes([]byte(`"abc\nde`)), 2); got != "abc\nde" || !errors.Is(err, ErrUnexpectedEOF) {
		t.Errorf("cut string in parts: %q, %v", got, err)
	}
	for _, doc := range []string{`"abc`, `"a\x"`, "\"a\nb\"", `"\u12"`} {
		if _, err := NewBytes([]byte(doc)).ReadString(nil); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
	_, err := NewBytes([]byte(`"abc`)).ReadString(nil)
	if !errors.Is(err, ErrUnexpectedEOF) {
		t.Errorf("unterminated string: %v, want ErrUnexpectedEOF", err)
	}
}

func TestSkipValueAndKeys(t *testing.T) {
	doc := `{"a":{"x":[1,{"y":"]}"},[]],"z":{}}, "b" : [true,false,null,-1.5e3,"s"], "c":7}`
	for name, d := range decoders(doc) {
		d.Expect('{')
		var keys []string
		for first := true; ; first = false {
			k, ok, err := d.Key(nil, first)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !ok {
				break
			}
			keys = append(keys, string(k))
			if string(k) == "c" {
				v, err := d.ReadInt()
				if err != nil || v != 7 {
					t.Errorf("%s: c = %d, %v", name, v, err)
				}
				continue
			}
			if err := d.SkipValue(); err != nil {
				t.Fatalf("%s: skip %s: %v", name, k, err)
			}
		}
		if strings.Join(keys, ",") != "a,b,c" || !d.AtEOF() {
			t.Errorf("%s: keys %v, at EOF %v", name, keys, d.AtEOF())
		}
	}
	for _, bad := range []string{`[1,]`, `{"a":1,}`, `[1}`, `{"a" 1}`, `[tru]`, `[`} {
		if err := NewBytes([]byte(bad)).SkipValue(); err == nil {
			t.Errorf("SkipValue(%s): no error", bad)
		}
	}
}

func TestValue(t *testing.T) {
	d := NewBytes([]byte(`{"meta":{"node_fields":["type","name"],"n":[["a","b"],"string"]},"node_count":3,"ok":true,"x":null}`))
	v, err := d.Value(1000)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if n, _ := m["node_count"].(Number).Int(); n != 3 {
		t.Errorf("node_count = %v", m["node_count"])
	}
	fields := m["meta"].(map[string]any)["node_fields"].([]any)
	if len(fields) != 2 || fields[1] != "name" || m["ok"] != true || m["x"] != nil {
		t.Errorf("value = %#v", m)
	}
	if _, err := NewBytes([]byte(`[1,2,3,4]`)).Value(3); err == nil {
		t.Error("limit not enforced")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestReadErrorIsReported(t *testing.T) {
	d := NewReader(io.MultiReader(strings.NewReader(`[1,2`), errReader{}), 16)
	d.Expect('[')
	first := true
	_, _, err := d.ReadInts(make([]int64, 8), &first)
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("error %v, want the reader's error", err)
	}
}

// readParts reads a string with ReadStringParts and joins the parts, checking
// that each but the last has at least size bytes.
func readParts(d *Decoder, size int) (string, error) {
	var parts []string
	err := d.ReadStringParts(size, func(p []byte) error {
		parts = append(parts, string(p))
		return nil
	})
	for i, p := range parts[:max(len(parts)-1, 0)] {
		if len(p) < size {
			return "", fmt.Errorf("part %d of %d has %d bytes", i, len(parts), len(p))
		}
	}
	return strings.Join(parts, ""), err
}

// TestMemberError: an error inside nested objects names the members leading to
// it, outermost first, eliding the middle of a long path.
func TestMemberError(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"a":{"b":{"c":x}}}`, "a: b: c: "},
		{strings.Repeat(`{"k":`, 12) + "x", "k: k: k: k: … 4 more: k: k: k: k: "},
	}
	for _, tt := range tests {
		d := NewBytes([]byte(tt.json))
		var read func() error
		read = func() error {
			return d.Object(func([]byte) error {
				if b, err := d.Peek(); err == nil && b == '{' {
					return read()
				}
				_, err := d.ReadInt()
				return err
			})
		}
		err := read()
		var me *MemberError
		if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want prefix %q", tt.json, err, tt.want)
		}
	}
}

func TestAppendStringEscaping(t *testing.T) {
	for _, tc := range []struct {
		in                string
		minimal, nonASCII string
	}{
		{"", `""`, `""`},
		{`a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"\n\r\t", `"\n\r\t"`, `"\n\r\t"`},
		{"\b\f\x01\x1f\x7f", `"\u0008\u000c\u0001\u001f` + "\x7f\"", `"\b\f\u0001\u001F` + "\x7f\""},
		{"é€", "\"é€\"", `"\u00E9\u20AC"`},
		{"😀", "\"😀\"", `"\uD83D\uDE00"`},
		{"a\xffb\xe2\x82", "\"a\xffb\xe2\x82\"", `"a\uFFFDb\uFFFD\uFFFD"`},
	} {
		if got := string(AppendString([]byte("x"), []byte(tc.in))); got != "x"+tc.minimal {
			t.Errorf("AppendString(%q) = %s, want x%s", tc.in, got, tc.minimal)
		}
		if got := string(AppendStringEscaping(nil, []byte(tc.in), EscapeNonASCII)); got != tc.nonASCII {
			t.Errorf("AppendStringEscaping(%q, EscapeNonASCII) = %s, want %s", tc.in, got, tc.nonASCII)
		}
	}
}

// TestReadIntsRandom reads arrays of random integers, spaced at random,
// through buffers of several sizes (every path of the fast reader and the
// general one) and compares them with what was written.
func TestReadIntsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	spaces := []string{"", "", "", " ", "\n", "\r\n", "\t "}
	for range 200 {
		want := make([]int64, rng.IntN(300))
		var doc strings.Builder
		doc.WriteString("[" + spaces[rng.IntN(len(spaces))])
		for i := range want {
			want[i] = rng.Int64() >> rng.IntN(64)
			if rng.IntN(3) == 0 {
				want[i] = -want[i]
			}
			if i > 0 {
				doc.WriteString(spaces[rng.IntN(len(spaces))] + "," + spaces[rng.IntN(len(spaces))])
			}
			doc.WriteString(strconv.FormatInt(want[i], 10))
		}
		doc.WriteString(spaces[rng.IntN(len(spaces))] + "]")
		for _, size := range []int{1, 7, 16, 64, 1 << 16} {
			d := NewReader(strings.NewReader(doc.String()), size)
			if err := d.Expect('['); err != nil {
				t.Fatal(err)
			}
			var got []int64
			buf := make([]int64, 1+rng.IntN(40))
			first := true
			for {
				n, done, err := d.ReadInts(buf, &first)
				if err != nil {
					t.Fatalf("buffer %d, %q: %v", size, doc.String(), err)
				}
				got = append(got, buf[:n]...)
				if done {
					break
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("buffer %d, %q: got %v", size, doc.String(), got)
			}
		}
	}
}

// TestSpecial8: special8's lowest set bit is at the first byte that is a
// quote, a backslash or a control character, and it is 0 when none is; on
// words made of the bytes at the edges of those classes, in every position.
func TestSpecial8(t *testing.T) {
	edge := []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x21, '#', '[', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff, '0', 'n'}
	first := func(w [8]byte) int {
		for i, c := range w {
			if c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return 8
	}
	check := func(w [8]byte) {
		m := special8(binary.LittleEndian.Uint64(w[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if want := first(w); got != want {
			t.Fatalf("%q: first special byte at %d, want %d (mask %#x)", w[:], got, want, m)
		}
	}
	// Two edge bytes at every pair of positions over plain ones.
	for _, a := range edge {
		for _, b := range edge {
			for i := range 8 {
				for j := i; j < 8; j++ {
					w := [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
					w[i], w[j] = a, b
					check(w)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		var w [8]byte
		for i := range w {
			w[i] = edge[rng.IntN(len(edge))]
		}
		check(w)
	}
}

// TestReset: a Decoder Reset to another reader reads it from its start as a
// new one would, reusing its buffer only where it is its own and of the
// size asked for (not the document of NewBytes, not one a long token grew).
func TestReset(t *testing.T) {
	long := strings.Repeat("1", 300) // a number is read whole: the buffer grows to 512
	for _, tc := range []struct {
		name   string
		before *Decoder
		size   int
		reused bool
	}{
		{"same size", NewReader(strings.NewReader(`7`), 128), 128, true},
		{"another size", NewReader(strings.NewReader(`7`), 128), 256, false},
		{"grown by a long number", NewReader(strings.NewReader(long), 128), 128, false},
		{"an in-memory document", NewBytes([]byte(`7` + strings.Repeat(" ", 63))), 64, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.before
			d.ReadInt() // the long number is too long: read all the same
			doc := d.buf
			snapshot := string(doc)
			old := &d.buf[:1][0]
			d.Reset(strings.NewReader(` "second", 42`), tc.size)
			if got := &d.buf[:1][0] == old; got != tc.reused {
				t.Errorf("buffer reused %v, want %v", got, tc.reused)
			}
			if len(d.buf) != max(tc.size, 64) || d.Offset() != 0 {
				t.Errorf("buffer of %d bytes at offset %d, want %d at 0", len(d.buf), d.Offset(), max(tc.size, 64))
			}
			s, err := d.ReadString(nil)
			if err != nil || string(s) != "second" {
				t.Fatalf("read %q, %v", s, err)
			}
			if more, err := d.More(false); !more || err != nil {
				t.Fatalf("More: %v, %v", more, err)
			}
			if v, err := d.ReadInt(); v != 42 || err != nil || d.Offset() != 13 || !d.AtEOF() {
				t.Errorf("read %d, %v, at %d; want 42 at 13, the end", v, err, d.Offset())
			}
			if !tc.reused && string(doc) != snapshot {
				t.Errorf("the first buffer changed: %q", doc)
			}
		})
	}
}

// TestSkipLongStringBounded: SkipValue on a stream holds a long string a
// chunk at a time, whether it is a value or a member name, and still finds
// what is wrong in it; a long number it does not hold at all.
func TestSkipLongStringBounded(t *testing.T) {
	const n = 32 << 20
	for _, tc := range []struct {
		name, head, tail string
		wantErr          string
	}{
		{"value", `["`, `",1]`, ""},
		{"member name", `{"`, `":1}`, ""},
		{"control character", `["`, "\x01\"]", fmt.Sprintf("offset %d: control character 0x1 in string", n+2)},
		{"cut", `["`, ``, fmt.Sprintf("offset %d: unterminated string: unexpected end of JSON", n+2)},
		{"number", `[1`, `,2]`, ""},
		{"number, then junk", `[1`, `x]`, fmt.Sprintf("offset %d: expected ',' or closing bracket, found 'x'", n+2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := byte('x')
			if strings.HasPrefix(tc.name, "number") {
				c = '0'
			}
			r := io.MultiReader(strings.NewReader(tc.head), io.LimitReader(testutil.Repeat(c), n), strings.NewReader(tc.tail))
			d := NewReader(r, 64<<10)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := d.SkipValue()
			runtime.ReadMemStats(&after)
			if got := fmt.Sprint(err); tc.wantErr == "" && err != nil || tc.wantErr != "" && got != tc.wantErr {
				t.Fatalf("SkipValue: %v, want %q", err, tc.wantErr)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("skipping a %d-byte value allocated %d bytes", n, alloc)
			}
		})
	}
}

// TestObjectKnownLongName: ObjectKnown hands short names on as Object does,
// and of a long one only its first maxKey bytes, holding no more of it;
// errors are Object's, a long name shown cut.
func TestObjectKnownLongName(t *testing.T) {
	const n = 32 << 20
	long := func(tail string) io.Reader {
		return io.MultiReader(strings.NewReader(`{"a":1,"`), io.LimitReader(testutil.Repeat('k'), n), strings.NewReader(tail))
	}
	for _, tc := range []struct {
		name    string
		r       io.Reader
		keys    []string
		wantErr string
	}{
		{"short", strings.NewReader(`{"a":1,"bb":[2]}`), []string{"a", "bb"}, ""},
		{"long", long(`":[2],"c":3}`), []string{"a", strings.Repeat("k", 8), "c"}, ""},
		{"error in a long member", long(`":x}`), []string{"a", strings.Repeat("k", 8)},
			fmt.Sprintf("kkkkkkkk…: offset %d: unexpected 'x'", n+10)},
		{"cut long name", long(``), []string{"a"}, fmt.Sprintf("offset %d: unterminated string: unexpected end of JSON", n+8)},
		{"no colon", strings.NewReader(`{"a" 1}`), nil, "offset 5: expected ':', found '1'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewReader(tc.r, 64<<10)
			var keys []string
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := d.ObjectKnown(8, func(key []byte) error {
				keys = append(keys, string(key))
				return d.SkipValue()
			})
			runtime.ReadMemStats(&after)
			if got := fmt.Sprint(err); tc.wantErr == "" && err != nil || tc.wantErr != "" && got != tc.wantErr {
				t.Fatalf("ObjectKnown: %v, want %q", err, tc.wantErr)
			}
			if !slices.Equal(keys, tc.keys) {
				t.Errorf("names %.40q, want %.40q", keys, tc.keys)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Errorf("allocated %d bytes", alloc)
			}
		})
	}
}

// TestReadStringMax: a string's first limit bytes are appended to dst, the
// cut ones ending before an incomplete UTF-8 sequence, and the decoder goes
// on after the string; a string of any length holds about limit bytes.
func TestReadStringMax(t *testing.T) {
	long := func(head string, n int, tail string) io.Reader {
		return io.MultiReader(strings.NewReader(head), io.LimitReader(testutil.Repeat('x'), int64(n)), strings.NewReader(tail))
	}
	for _, tc := range []struct {
		name    string
		r       io.Reader
		dst     string
		limit   int
		want    string
		cut     bool
		wantErr string
	}{
		{"short", strings.NewReader(`"abc",1`), "", 8, "abc", false, ""},
		{"as long as the limit", strings.NewReader(`"abcdefgh",1`), "", 8, "abcdefgh", false, ""},
		{"longer", strings.NewReader(`"abcdefghij",1`), "", 8, "abcdefgh", true, ""},
		{"after what dst holds", strings.NewReader(`"abcdefghij",1`), "k:", 8, "k:abcdefgh", true, ""},
		{"escapes unescaped first", strings.NewReader(`"a\n\u00e9\"bcdefgh",1`), "", 6, "a\né\"b", true, ""},
		{"cut inside a character", strings.NewReader(`"abcdefgé",1`), "", 8, "abcdefg", true, ""},
		{"cut after a character", strings.NewReader(`"abcdefé!",1`), "", 8, "abcdefé", true, ""},
		{"over many buffers", long(`"`, 1<<20, `",1`), "", 100, strings.Repeat("x", 100), true, ""},
		{"unterminated", long(`"`, 1<<20, ``), "", 100, strings.Repeat("x", 100), true,
			fmt.Sprintf("offset %d: unterminated string: unexpected end of JSON", 1<<20+1)},
		{"not a string", strings.NewReader(`1`), "", 8, "", false, "offset 0: expected '\"', found '1'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewReader(tc.r, 64)
			got, cut, err := d.ReadStringMax([]byte(tc.dst), tc.limit)
			if fmt.Sprint(err) != tc.wantErr && (err != nil || tc.wantErr != "") {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if string(got) != tc.want || cut != tc.cut {
				t.Fatalf("%.40q cut %v, want %.40q cut %v", got, cut, tc.want, tc.cut)
			}
			if err != nil {
				return
			}
			if err := d.Expect(','); err != nil {
				t.Errorf("after the string: %v", err)
			}
		})
	}

	const n = 64 << 20
	d := NewReader(long(`"`, n, `"`), 64<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, cut, err := d.ReadStringMax(nil, 1<<20)
	runtime.ReadMemStats(&after)
	if err != nil || !cut || len(got) != 1<<20 {
		t.Fatalf("%d bytes, cut %v, error %v", len(got), cut, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("reading 1 MiB of a %d-byte string allocated %d bytes", n, alloc)
	}
}

// TestLongNumber: read from a reader, a number of MaxNumber bytes is read
// whole; a longer one is consumed and reported as ErrLongNumber at its
// start (the next value read as usual), read as a non-integer by
// ReadIntsLenient, and costs a buffer of about MaxNumber bytes whatever its
// length (it grew to hold the whole number, and its reads rescanned it from
// its start: 40 minutes for a 300 MB number). In memory it is read whole.
func TestLongNumber(t *testing.T) {
	doc := strings.Repeat("9", MaxNumber+1) + " 7"
	d := NewBytes([]byte(doc))
	if b, err := d.ReadNumber(); len(b) != MaxNumber+1 || err != nil {
		t.Errorf("in memory: %d bytes, %v; want %d", len(b), err, MaxNumber+1)
	}
	if v, err := d.ReadInt(); v != 7 || err != nil {
		t.Errorf("in memory, after it: %d, %v; want 7", v, err)
	}
	const long = 8 << 20
	for _, tc := range []struct {
		name   string
		digits int
		read   func(d *Decoder) (string, error)
		want   string
	}{
		{"ReadNumber, longest", MaxNumber, func(d *Decoder) (string, error) {
			b, err := d.ReadNumber()
			return fmt.Sprint(len(b)), err
		}, fmt.Sprint(MaxNumber)},
		{"ReadNumber", long, func(d *Decoder) (string, error) {
			b, err := d.ReadNumber()
			if want := strings.Repeat("9", longNumberHead) + "…"; string(b) != want {
				return string(b), fmt.Errorf("its head %q, want %q", b, want)
			}
			return "", err
		}, ""},
		{"ReadInt", MaxNumber + 1, func(d *Decoder) (string, error) {
			v, err := d.ReadInt()
			return fmt.Sprint(v), err
		}, ""},
		{"Value", long, func(d *Decoder) (string, error) {
			v, err := d.Value(1 << 20)
			n, ok := v.(Number)
			_, perr := n.Int()
			return fmt.Sprintf("%s %v %v", n, ok, perr != nil), err
		}, strings.Repeat("9", longNumberHead) + "… true true"},
		{"ReadIntsLenient", long, func(d *Decoder) (string, error) {
			dst := make([]int64, 4)
			first := true
			var bad NonIntegers
			n, done, err := d.ReadIntsLenient(dst, &first, &bad)
			return fmt.Sprint(dst[:n], done, bad), err
		}, "[5 0 6] true {1 3}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head, tail := "", " 7"
			if tc.name == "ReadIntsLenient" {
				head, tail = "[5,", ",6]"
			}
			r := io.MultiReader(strings.NewReader(head), io.LimitReader(testutil.Repeat('9'), int64(tc.digits)), strings.NewReader(tail))
			d := NewReader(iotest.HalfReader(r), 4<<10)
			if tc.name == "ReadIntsLenient" {
				if err := d.Expect('['); err != nil {
					t.Fatal(err)
				}
			}
			got, err := tc.read(d)
			if tc.want == "" {
				want := fmt.Sprintf("offset %d: number longer than %d bytes", len(head), MaxNumber)
				if !errors.Is(err, ErrLongNumber) || err.Error() != want {
					t.Fatalf("got %s, %v; want the error %q", got, err, want)
				}
				if v, err := d.ReadInt(); v != 7 || err != nil {
					t.Errorf("after it: %d, %v; want 7", v, err)
				}
			} else if got != tc.want || err != nil {
				t.Errorf("got %s, %v; want %s", got, err, tc.want)
			} else if tc.name == "Value" {
				if v, err := d.ReadInt(); v != 7 || err != nil {
					t.Errorf("after it: %d, %v; want 7", v, err)
				}
			}
			if len(d.buf) > 4*MaxNumber {
				t.Errorf("a %d-digit number grew the buffer to %d bytes", tc.digits, len(d.buf))
			}
		})
	}
}
