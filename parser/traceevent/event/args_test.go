package event

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tracestreamer/parser/jsonscan"
)

func TestFlattenArgs(t *testing.T) {
	got, err := FlattenArgs([]byte(`{"a":{"b":[7,"x"]},"n":null,"t":true,"f":false,"d":2.5,"e":1e3,` +
		`"big":123456789012345678901234,"neg":-3,"eo":{},"ea":[],"o":{"p":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Arg{
		{Key: "a.b[0]", Type: ArgInt, Int: 7},
		{Key: "a.b[1]", Type: ArgString, Str: "x"},
		{Key: "n", Type: ArgString, Null: true},
		{Key: "t", Type: ArgBool, Int: 1},
		{Key: "f", Type: ArgBool},
		{Key: "d", Type: ArgDouble, Float: 2.5},
		{Key: "e", Type: ArgDouble, Float: 1000},
		{Key: "big", Type: ArgString, Str: "123456789012345678901234"},
		{Key: "neg", Type: ArgInt, Int: -3},
		{Key: "eo", Type: ArgString, Str: "{}"},
		{Key: "ea", Type: ArgString, Str: "[]"},
		{Key: "o.p", Type: ArgString, Str: "{}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FlattenArgs =\n%+v\nwant\n%+v", got, want)
	}
	deep := strings.Repeat(`{"x":`, MaxArgDepth+2) + "1" + strings.Repeat("}", MaxArgDepth+2)
	got, err = FlattenArgs([]byte(deep))
	if err != nil || len(got) != 1 || got[0].Type != ArgString || !strings.HasPrefix(got[0].Str, `{"x":{"x":1}`) ||
		strings.Count(got[0].Key, "x") != MaxArgDepth {
		t.Errorf("deep args: %+v %v", got, err)
	}
	if got, err := FlattenArgs([]byte(`{}`)); err != nil || len(got) != 0 {
		t.Errorf("empty args: %+v %v", got, err)
	}
	if _, err := FlattenArgs([]byte(`[1]`)); err == nil {
		t.Error("non-object args accepted")
	}
}

// TestFlattenArgsProblems: a member repeated in one object takes the place of
// its first occurrence with its last value (JSON.parse and Perfetto), nested
// or not, with few members or many; invalid UTF-8 in keys and strings is
// replaced by U+FFFD. Both are counted.
func TestFlattenArgsProblems(t *testing.T) {
	many := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k3":"x","k10":10,"k9":{"y":1}}`
	// A repeat of the first of n members, n times: each repeat moved the
	// arguments after the first (n² moves: seconds for 20 000).
	repeated := func(n int) (string, []string) {
		raw, want := []string{`"k":-1`}, []string{"k=" + strconv.Itoa(n)}
		for i := range n {
			raw = append(raw, fmt.Sprintf(`"a%d":%d`, i, i))
			want = append(want, fmt.Sprintf("a%d=%d", i, i))
		}
		for i := range n {
			raw = append(raw, fmt.Sprintf(`"k":%d`, i+1))
		}
		return "{" + strings.Join(raw, ",") + "}", want
	}
	bigRaw, bigWant := repeated(20000)
	for _, tc := range []struct {
		name, raw string
		want      []string
		probs     ArgProblems
	}{
		{"top", `{"a":1,"b":2,"a":3}`, []string{"a=3", "b=2"}, ArgProblems{DupKeys: 1}},
		{"nested", `{"o":{"x":1,"x":"y"},"z":0}`, []string{"o.x=y", "z=0"}, ArgProblems{DupKeys: 1}},
		{"object by scalar", `{"a":{"p":1,"q":2},"b":0,"a":5}`, []string{"a=5", "b=0"}, ArgProblems{DupKeys: 1}},
		{"scalar by object", `{"a":5,"b":0,"a":{"p":1,"q":[2,3]}}`, []string{"a.p=1", "a.q[0]=2", "a.q[1]=3", "b=0"},
			ArgProblems{DupKeys: 1}},
		{"three times", `{"a":1,"a":2,"b":0,"a":3}`, []string{"a=3", "b=0"}, ArgProblems{DupKeys: 2}},
		{"same key, other object", `{"a.b":1,"a":{"b":2}}`, []string{"a.b=1", "a.b=2"}, ArgProblems{}},
		{"many members", many, []string{"k0=0", "k1=1", "k2=2", "k3=x", "k4=4", "k5=5", "k6=6", "k7=7", "k8=8",
			"k9.y=1", "k10=10"}, ArgProblems{DupKeys: 2}},
		{"ninth repeated", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k8":"x"}`,
			[]string{"k0=0", "k1=1", "k2=2", "k3=3", "k4=4", "k5=5", "k6=6", "k7=7", "k8=x", "k9=9"},
			ArgProblems{DupKeys: 1}},
		{"repeats after many members", `{"k":1,"a0":0,"a1":1,"a2":2,"a3":3,"a4":4,"a5":5,"a6":6,"a7":7,"a8":8,"a9":9,` +
			`"k":2,"k":[3,4],"a5":{"x":1}}`, []string{"k[0]=3", "k[1]=4", "a0=0", "a1=1", "a2=2", "a3=3", "a4=4",
			"a5.x=1", "a6=6", "a7=7", "a8=8", "a9=9"}, ArgProblems{DupKeys: 3}},
		{"repeats inside a repeated member", `{"o":{"p":1,"q":2,"p":3},"z":0,"o":{"r":4,"r":5,"s":{}}}`,
			[]string{"o.r=5", "o.s={}", "z=0"}, ArgProblems{DupKeys: 3}},
		{"first of many repeated as often", bigRaw, bigWant, ArgProblems{DupKeys: 20000}},
		{"utf-8", "{\"k\xffey\":\"v\xfe\xffz\",\"ok\":\"\\ud800\",\"x\":\"é\"}", []string{"k\uFFFDey=v\uFFFDz",
			"ok=\uFFFD", "x=é"}, ArgProblems{BadStrings: 3}},
		// Each key and string with something replaced counts once, however
		// many escapes or bytes were replaced in it; a parent key's
		// replacement is counted for it, not again for the keys below it.
		{"two surrogates in a value", `{"k":"x\ud800\ud800"}`, []string{"k=x\uFFFD\uFFFD"}, ArgProblems{BadStrings: 1}},
		{"byte and surrogate in a value", "{\"k\":\"\xff\\udc00y\"}", []string{"k=\uFFFD\uFFFDy"},
			ArgProblems{BadStrings: 1}},
		{"byte and surrogates in a key", "{\"k\\ud800\xfe\\udfff\":1}", []string{"k\uFFFD\uFFFD\uFFFD=1"},
			ArgProblems{BadStrings: 1}},
		{"key and value", `{"k\ud800":"v\ud800","w":"\udc00"}`, []string{"k\uFFFD=v\uFFFD", "w=\uFFFD"},
			ArgProblems{BadStrings: 3}},
		{"parent key", `{"o\ud800":{"p":"q\udfff\udfff","r":1},"s":"t"}`,
			[]string{"o\uFFFD.p=q\uFFFD\uFFFD", "o\uFFFD.r=1", "s=t"}, ArgProblems{BadStrings: 2}},
		{"array", `{"a\ud800":["x\ud800\ud800","y",{"z\udc00":2}]}`,
			[]string{"a\uFFFD[0]=x\uFFFD\uFFFD", "a\uFFFD[1]=y", "a\uFFFD[2].z\uFFFD=2"}, ArgProblems{BadStrings: 3}},
		{"repeated key", `{"k\ud800":1,"k\ud800":2}`, []string{"k\uFFFD=2"}, ArgProblems{BadStrings: 2, DupKeys: 1}},
		{"surrogate pair", `{"k\ud83d\ude00":"\ud83d\ude00"}`, []string{"k\U0001F600=\U0001F600"}, ArgProblems{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, probs, err := AppendArgs(nil, []byte(tc.raw), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range list {
				v := a.Str
				if a.Type == ArgInt {
					v = strconv.FormatInt(a.Int, 10)
				}
				got = append(got, a.Key+"="+v)
			}
			if !reflect.DeepEqual(got, tc.want) || probs != tc.probs {
				t.Errorf("args %q, problems %+v; want %q, %+v", got, probs, tc.want, tc.probs)
			}
		})
	}
}

// TestFlattenArgsRepeatsBounded: the arguments of a repeated member's
// earlier values are dropped as they come to outnumber the others, not
// kept until its object ends (a value of 1 000 elements repeated 1 000
// times held 10⁶ arguments).
func TestFlattenArgsRepeatsBounded(t *testing.T) {
	value := "[" + strings.Repeat("7,", 999) + "7]"
	for _, tc := range []struct {
		name, raw string
		n         int // arguments
		first     string
		dups      int
	}{
		{"a large value repeated", `{"z":0,` + strings.Repeat(`"k":`+value+`,`, 1000) + `"z":1}`, 1001, "z=1", 1000},
		{"inside a nested object", `{"o":{"a":1,` + strings.Repeat(`"k":`+value+`,`, 1000) + `"a":2},"o":{"k":1}}`,
			1, "o.k=1", 1001},
		{"then a smaller one", `{"a":1,` + strings.Repeat(`"k":`+value+`,`, 300) + `"k":{"x":"y"},"b":2}`, 3, "a=1", 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, probs, err := AppendArgs(nil, []byte(tc.raw), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != tc.n || probs.DupKeys != tc.dups {
				t.Fatalf("%d args, %d repeated keys; want %d, %d", len(list), probs.DupKeys, tc.n, tc.dups)
			}
			if got := list[0].Key + "=" + strconv.FormatInt(list[0].Int, 10) + list[0].Str; got != tc.first {
				t.Errorf("first argument %s, want %s", got, tc.first)
			}
			if c := cap(list); c > 8000 { // a few times one value's 1 000
				t.Errorf("the arguments grew to %d (cap), for %d kept", c, len(list))
			}
		})
	}
}

// TestParseIntLiteral: parseIntLiteral agrees with strconv.ParseInt on
// integer literals around int64's bounds.
func TestParseIntLiteral(t *testing.T) {
	for _, s := range []string{"0", "-0", "007", "-1", "42", "9223372036854775806", "9223372036854775807",
		"9223372036854775808", "-9223372036854775807", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "00000000000000000000001",
		"-123456789012345678901234"} {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseIntLiteral([]byte(s))
		if ok != (err == nil) || ok && got != want {
			t.Errorf("parseIntLiteral(%s) = %d, %v; strconv: %d, %v", s, got, ok, want, err)
		}
	}
}

// TestFlattenArgsErrors: an error inside nested objects names the members
// leading to it, outermost first, as jsonscan's Object does; a Decoder that
// met one flattens the next args as a fresh one does.
func TestFlattenArgsErrors(t *testing.T) {
	var d Decoder
	for _, tc := range []struct{ raw, err string }{
		{`{"a":{"b":{"c":1e}}}`, `a: b: c: offset 17: "1e" is not a number`},
		{`{"a":{"b":[1,}}`, `a: b: offset 13: expected a number, found '}'`},
		{`{"a":{"b":1},"c":{"d":{"e":nul}}}`, `c: d: e: offset 27: invalid literal`},
		{`{"a":[{"b":"x`, `a: b: offset 13: unterminated string: unexpected end of JSON`},
		{`{"a":1 "b":2}`, `offset 7: expected ',' or closing bracket, found '"'`},
	} {
		for _, dec := range []*Decoder{nil, &d} {
			_, _, err := AppendArgs(nil, []byte(tc.raw), dec)
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s (decoder %v): error %v, want %s", tc.raw, dec != nil, err, tc.err)
			}
		}
		got, _, err := AppendArgs(nil, []byte(`{"p":{"q":"r","s":[{"t":1}]}}`), &d)
		want := []Arg{{Key: "p.q", Type: ArgString, Str: "r"}, {Key: "p.s[0].t", Type: ArgInt, Int: 1}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("after %s: %+v, %v", tc.raw, got, err)
		}
	}
}

// TestFlattenArgsLongNumber: an integer literal of any length (past
// jsonscan.MaxNumber, which bounds only numbers read from a stream) keeps
// its exact digits as a string, as one just past int64 does.
func TestFlattenArgsLongNumber(t *testing.T) {
	for _, digits := range []string{"99999999999999999999", strings.Repeat("9", jsonscan.MaxNumber+1)} {
		got, probs, err := AppendArgs(nil, []byte(`{"y":1,"x":`+digits+`}`), nil)
		want := []Arg{{Key: "y", Type: ArgInt, Int: 1}, {Key: "x", Type: ArgString, Str: digits}}
		if err != nil || probs != (ArgProblems{}) || !reflect.DeepEqual(got, want) {
			t.Errorf("%d digits: %.80v, %v, %v", len(digits), got, probs, err)
		}
	}
}
