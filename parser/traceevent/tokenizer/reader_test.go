package tokenizer

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
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
