package event

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"tracestreamer/parser/traceevent/tokenizer"
)

func TestDecode(t *testing.T) {
	ev, err := Decode(&tokenizer.Element{Raw: []byte(`{"ph":"Bx","ts":"1.2345","dur":12,"pid":"gpu","tid":12.9,"name":"n","cat":"",` +
		`"args":"__stripped__","ts":1795349816583.282,"tts":-1,"s":"p","id2":{"local":"0x1"},"flow_in":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Ph: 'B', PhLong: true, TS: Time{1795349816583282, true, true}, Dur: Time{12000, true, true},
		TTS: Time{0, true, false}, Pid: Ident{Str: "gpu", IsStr: true, Present: true}, Tid: Ident{Num: 12, Present: true},
		Name: "n", HasName: true, S: "p", ID2: []byte(`{"local":"0x1"}`), FlowIn: true, DupKeys: 1, NumericStrs: 1,
		BadThreadTime: true}
	if !reflect.DeepEqual(*ev, want) {
		t.Errorf("Decode =\n%+v\nwant\n%+v", *ev, want)
	}
	tests := []struct {
		raw  string
		ts   Time
		args bool
		bad  bool
	}{
		{`{"ts":".75","args":{"a":1}}`, Time{750, true, true}, true, false},
		{`{"ts":"1.5e","args":[1]}`, Time{0, true, false}, false, true},
		{`{"ts":-5}`, Time{0, true, false}, false, false},
		{`{"ts":"246."}`, Time{246000, true, true}, false, false},
	}
	for _, tt := range tests {
		ev, err := Decode(&tokenizer.Element{Raw: []byte(tt.raw)})
		if err != nil || ev.TS != tt.ts || (ev.Args != nil) != tt.args || ev.ArgsInvalid != tt.bad {
			t.Errorf("%s: ts %+v args %q invalid %v err %v", tt.raw, ev.TS, ev.Args, ev.ArgsInvalid, err)
		}
	}
	if _, err := Decode(&tokenizer.Element{Raw: []byte(`[1]`)}); !errors.Is(err, ErrNotObject) {
		t.Errorf("array element: %v", err)
	}
	if ev, err := Decode(&tokenizer.Element{Raw: []byte(`{"ph":"B","args":{"a":[1,2,],},}`)}); err != nil || ev.TrailingCommas != 3 ||
		string(ev.Args) != `{"a":[1,2]}` {
		t.Errorf("trailing commas: %+v %v", ev, err)
	}
	if _, err := Decode(&tokenizer.Element{Raw: []byte(`{"ph":"B" "x":1}`)}); err == nil {
		t.Error("syntax error not reported")
	}
}

// TestDecodeBadStrings: each of an element's decoded texts (name, cat, ids,
// id2's member) with invalid UTF-8 or lone surrogate escapes counts once in
// BadStrings, however many sequences were replaced in it.
func TestDecodeBadStrings(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		text      string // Name, when it is checked
		want      int
	}{
		{"name, two surrogates", `{"name":"a\ud800\udc00\udc00\ud800b"}`, "a\U00010000\uFFFD\uFFFDb", 1},
		{"name, byte and surrogate", "{\"name\":\"\xff\\ud800\"}", "\uFFFD\uFFFD", 1},
		{"name and cat", `{"name":"\ud800\ud800","cat":"c\udfff\udfff"}`, "\uFFFD\uFFFD", 2},
		{"id, two surrogates", `{"id":"x\ud800\ud800"}`, "", 1},
		{"id, byte and surrogate", "{\"id\":\"\xfe\\ud800\"}", "", 1},
		{"id2 member, two surrogates", `{"id2":{"local":"\udc00\ud800"}}`, "", 1},
		{"id2, byte and surrogate", "{\"id2\":{\"global\":\"\xfe\\ud800\"}}", "", 1},
		{"id2 beside id", `{"id":"1","id2":{"global":"\ud800"}}`, "", 0},
		{"bind_id, two surrogates", `{"bind_id":"\ud800\ud800"}`, "", 1},
	} {
		for _, general := range []bool{false, true} {
			d := Decoder{general: general}
			ev, err := d.Decode(&tokenizer.Element{Raw: []byte(tc.raw)})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if ev.BadStrings != tc.want || tc.text != "" && ev.Name != tc.text {
				t.Errorf("%s (general %v): name %q, BadStrings %d; want %q, %d", tc.name, general, ev.Name,
					ev.BadStrings, tc.text, tc.want)
			}
		}
	}
}

// TestDecodeInto: an event decoded into the caller's Event (Into) is the one
// the decoder decodes into its own, by Decode and DecodeRecord alike, and
// is overwritten whole; Into(nil) goes back to the decoder's own.
func TestDecodeInto(t *testing.T) {
	els := []string{
		`{"ph":"X","ts":1.5,"dur":2,"pid":1,"tid":"t","name":"a","cat":"c","args":{"x":1},"id":"0x1","sf":3}`,
		`{"ph":"B","ts":3,"pid":2,"tid":2,"name":"b","ts":4,}`, // a duplicate key, a trailing comma
		`{"ph":"i","ts":5,"s":"g","bind_id":7,"flow_out":true}`,
	}
	var own, into Decoder
	for i, raw := range els {
		el := &tokenizer.Element{Seq: int64(i), Offset: int64(10 * i), Raw: []byte(raw)}
		ev, err := own.Decode(el)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want := new(Event)
		*want = *ev // own's event is overwritten by its DecodeRecord below
		mine := Event{Name: "left over", Args: []byte("{}"), DupKeys: 9}
		into.Into(&mine)
		got, err := into.Decode(el)
		if err != nil || got != &mine || !reflect.DeepEqual(mine, *want) {
			t.Fatalf("%s: Into: %+v (at %p, error %v), want %+v at %p", raw, *got, got, err, *want, &mine)
		}
		rec := AppendRecord(nil, want)
		wantRec, err := own.DecodeRecord(rec)
		if err != nil {
			t.Fatalf("%s: record: %v", raw, err)
		}
		mine = Event{Name: "left over", Seq: 5}
		if got, err := into.DecodeRecord(rec); err != nil || got != &mine || !reflect.DeepEqual(mine, *wantRec) {
			t.Fatalf("%s: record Into: %+v, want %+v", raw, mine, *wantRec)
		}
		into.Into(nil)
		if got, _ := into.Decode(el); got == &mine || !reflect.DeepEqual(*got, *want) {
			t.Fatalf("%s: after Into(nil): %+v at %p, want its own", raw, *got, got)
		}
	}
}

// TestDupKeys counts every repeat of a key, known to the decoder or not,
// by the fast path and the general one alike.
func TestDupKeys(t *testing.T) {
	decs := []*Decoder{{}, {general: true}} // reused: no key stays from one element to the next
	for _, tc := range []struct {
		raw  string
		dups int
	}{
		{`{"ph":"X","ts":1,"dur":1}`, 0},
		{`{"ph":"X","ph":"B","ph":"C"}`, 2},
		{`{"x":1,"y":2,"x":3,"z":4,"x":5}`, 2},
		{`{"x":1,"ph":"X","x":2,"ph":"B","ph":"C","stack":[],"estack":[],"stack":1,"y":0,"esf":1,"esf":2}`, 5},
		// Past manyKeys keys a set finds them: repeats of keys before it
		// and after it, and an element of 20 000 keys (one by one, 2·10⁸
		// comparisons: seconds).
		{manyUnknown(40, 0) + `}`, 0},
		{manyUnknown(40, 0) + `,"k0":1,"k15":1,"k16":1,"k39":1,"k39":1,"ph":"X","ph":"X"}`, 6},
		{`{"x":1,"x":1,` + manyUnknown(20, 0)[1:] + `,"x":1}`, 2},
		{manyUnknown(20000, 0) + `,` + manyUnknown(20000, 0)[1:] + `}`, 20000},
	} {
		for _, d := range decs {
			general := d.general
			ev, err := d.Decode(&tokenizer.Element{Raw: []byte(tc.raw)})
			if err != nil || ev.DupKeys != tc.dups {
				t.Errorf("%s (general %v): %d repeated keys (error %v), want %d", tc.raw, general, ev.DupKeys, err, tc.dups)
			}
		}
	}
}

// manyUnknown returns the start of an element with n unknown keys, k<from>
// on, without its closing brace.
func manyUnknown(n, from int) string {
	var b strings.Builder
	b.WriteString(`{`)
	for i := range n {
		if i > 0 {
			b.WriteString(`,`)
		}
		fmt.Fprintf(&b, `"k%d":1`, from+i)
	}
	return b.String()
}

// TestIdent: a pid or tid given as an integer, a numeric string or a
// number with a fraction or an exponent, and one no int64 holds (kept by
// its text).
func TestIdent(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		num   int64
		str   string // the text kept, for an id that is no integer
		isStr bool
	}{
		{"12", 12, "", false},
		{"-7", -7, "", false},
		{"007", 7, "", false},
		{"-0", 0, "", false},
		{`"42"`, 42, "", false},
		{"12.9", 12, "", false},
		{"-12.9", -12, "", false},
		{"2.0", 2, "", false},
		{"1e3", 1000, "", false},
		{"9223372036854775807", 9223372036854775807, "", false},
		{"-9223372036854775808", -9223372036854775808, "", false},
		{"9223372036854775808", 0, "9223372036854775808", true},
		{"9.21e18", 0, "9.21e18", true},
		{"1e19", 0, "1e19", true},
		{`"gpu"`, 0, "gpu", true},
	} {
		ev, err := Decode(&tokenizer.Element{Raw: []byte(`{"ph":"i","ts":1,"pid":` + tc.raw + `}`)})
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if p := ev.Pid; !p.Present || p.Num != tc.num || p.Str != tc.str || p.IsStr != tc.isStr {
			t.Errorf("pid %s: %+v, want num %d str %q isStr %v", tc.raw, p, tc.num, tc.str, tc.isStr)
		}
	}
}
