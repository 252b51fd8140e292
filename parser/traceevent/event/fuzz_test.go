package event

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/tokenizer"
	"unicode/utf8"
)

// FuzzTraceEvent reads arbitrary input as a trace file and decodes every element:
// no panic, elements in order, each inside the input, and no more streamed
// systemTraceEvents text than there is input.
func FuzzTraceEvent(f *testing.F) {
	for _, s := range []string{`[{"ph":"B","ts":1,"pid":1,"tid":1,"name":"a"},{"ph":"E","ts":2}]`,
		`{"metadata":{},"traceEvents":[{"ph":"X","ts":"1.5","dur":2,"args":{"a":[1,],}},{}],}`,
		"[{\"ph\":\"i\",\"s\":\"g\"},\n", `{"traceEvents":[{"a":"]}"`,
		`{"systemTraceEvents":"a\\\"b\n","traceEvents":[{"ph":"i"}],"systemTraceEvents":"c`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzTraceEvent")
		checkLimits(t, data)
		text := 0 // bytes of systemTraceEvents text streamed
		r, err := tokenizer.NewReaderText(bytes.NewReader(data), func(part []byte, end bool) { text += len(part) })
		if err != nil {
			return
		}
		defer func() {
			if text > len(data) {
				t.Fatalf("%d bytes of systemTraceEvents text from %d bytes of input", text, len(data))
			}
		}()
		last := int64(-1)
		for {
			el, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if el.Seq <= last || el.Offset < 0 || el.Offset+int64(len(el.Raw)) > int64(len(data)) {
				t.Fatalf("element %d at %d (%d bytes) after %d, input %d bytes", el.Seq, el.Offset, len(el.Raw), last, len(data))
			}
			last = el.Seq
			Decode(el)
		}
	})
}

// FuzzFastDecode checks that the fast element decoder accepts only what the
// general one accepts and decodes it to the same event, and that the event
// survives its trip through an event record.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"ph":"X","pid":1,"tid":"a","ts":1.5,"dur":"2","name":"n","cat":"c","args":{"a":[1,{"b":null}],"c":"\u00e9\n"}}`,
		`{"ph":"B","ts":1,"ts":2,"args":{}}`, `{"ph":"E","args":{"a":1,}}`, `{"ph":"i","s":"g","name":"\ud83d\ude00"}`,
		`{"a":tru}`, `{"a":1 "b":2}`, `{"a\"b":1}`, ` { "ph" : "C" , "args" : { "v" : -1e3 } } `, `{"id2":{"local":"0x1"},"bind_id":7}`,
		`{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`, `{"s":"a` + "\x01" + `"}`,
		`{"x":1,"ph":"X","x":2,"ph":"B","ph":"C","stack":[],"estack":[],"stack":1,"y":0,"esf":1,"esf":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzFastDecode")
		fast, general := Decoder{}, Decoder{general: true}
		e1, err1 := fast.Decode(&tokenizer.Element{Raw: data})
		e2, err2 := general.Decode(&tokenizer.Element{Raw: data})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("fast error %v, general error %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(*e1, *e2) {
			t.Fatalf("fast %+v\ngeneral %+v", *e1, *e2)
		}
		if err1 == nil {
			checkRecord(t, e1)
		}
	})
}

// checkRecord checks that ev comes back unchanged from its event record.
func checkRecord(t *testing.T, ev *Event) {
	t.Helper()
	want := *ev
	want.Seq, want.Offset = 0, 0
	var d Decoder
	got, err := d.DecodeRecord(AppendRecord(nil, ev))
	if err != nil {
		t.Fatalf("record of %+v: %v", want, err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("record gave %+v\nwant %+v", *got, want)
	}
}

// checkLimits reads data with tiny element and string limits, so that the
// cutting and skipping paths run: no panic, elements in order, none longer
// than the limit allows, and the same elements as without limits wherever no
// string was cut and no element skipped.
func checkLimits(t *testing.T, data []byte) {
	read := func(maxElement, maxString int) ([]string, tokenizer.Problems) {
		r, err := tokenizer.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, tokenizer.Problems{}
		}
		r.MaxElement, r.MaxString = maxElement, maxString
		var out []string
		last := int64(-1)
		for {
			el, err := r.Next()
			if err != nil {
				return out, r.Problems
			}
			if el.Seq <= last {
				t.Fatalf("element %d after %d", el.Seq, last)
			}
			last = el.Seq
			out = append(out, string(el.Raw))
		}
	}
	small, p := read(48, 8)
	for _, el := range small {
		if len(el) > 48+1<<20 { // the element limit is checked per buffer of at most 1 MiB
			t.Fatalf("element of %d bytes read with a limit of 48", len(el))
		}
	}
	if p.CutStrings == 0 && p.TooLarge == 0 {
		if big, _ := read(0, 0); !reflect.DeepEqual(small, big) {
			t.Fatalf("with limits that cut nothing: %q, without: %q", small, big)
		}
	}
}

// FuzzFlattenArgs flattens arbitrary args: no panic, every key and string
// valid UTF-8, no more arguments than bytes, and a repeated key in one object
// counted, not kept twice at the top level (the members of a member named ""
// join it without a dot, so they may share a top-level key). A Decoder
// reused from input to input flattens as none does.
func FuzzFlattenArgs(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":{"c":[1,"x"]},"a":{"d":null}}`, "{\"k\xff\":\"v\xfe\",\"k\\ud800\":1}",
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k8":{"x":1,"x":2},"k0":[]}`} {
		f.Add([]byte(s))
	}
	var d Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzFlattenArgs")
		alone, aloneProbs, aloneErr := AppendArgs(nil, data, nil)
		for _, dec := range []*Decoder{nil, &d} {
			list, probs, err := AppendArgs(nil, data, dec)
			if !reflect.DeepEqual(list, alone) || probs != aloneProbs || fmt.Sprint(err) != fmt.Sprint(aloneErr) {
				t.Fatalf("with decoder %v: %+v %+v %v, without: %+v %+v %v", dec != nil, list, probs, err,
					alone, aloneProbs, aloneErr)
			}
			if err != nil {
				continue
			}
			if len(list) > len(data) || probs.BadStrings < 0 || probs.DupKeys < 0 {
				t.Fatalf("%d args, %+v from %d bytes", len(list), probs, len(data))
			}
			top := map[string]bool{}
			emptyKey := bytes.Contains(data, []byte(`""`)) // the members below a "" member have no prefix
			for _, a := range list {
				if !utf8.ValidString(a.Key) || !utf8.ValidString(a.Str) {
					t.Fatalf("invalid UTF-8 in %q = %q", a.Key, a.Str)
				}
				if !emptyKey && !strings.ContainsAny(a.Key, ".[") && top[a.Key] {
					t.Fatalf("top-level key %q kept twice", a.Key)
				}
				top[a.Key] = true
			}
		}
	})
}
