package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestNormaliseID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`"0x10"`, "0x10", true}, {`16`, "16", true}, {`1.50`, "1.5", true}, {`1e2`, "100", true},
		{`true`, "", false}, {`{}`, "", false}, {`"a\"b"`, `a"b`, true},
		// The plain-string shortcut and the general reading agree at their edges.
		{`""`, "", true}, {`"0x10" `, "0x10", true}, {`"0x10"x`, "", false}, {`"`, "", false},
		{`"\u0041"`, "A", true}, {"\"a\tb\"", "", false},
		// Invalid UTF-8 becomes U+FFFD on both paths.
		{"\"\xff\"", "\uFFFD", true}, {"\"a\\n\xff\xfeb\"", "a\n\uFFFDb", true},
		// idBytes' shortcuts (plain strings, integers) at their edges.
		{" 16", "16", true}, {" 16 ", "", false}, {"-7", "-7", true}, {"-", "", false}, {"-0", "-0", true}, {"007", "007", true},
		{"1.0", "1", true}, {"\"a\xffb\"", "a\uFFFDb", true}, {"\"\u00e9\"", "é", true}, {"\"é\"", "é", true},
	}
	for _, tt := range tests {
		if got, ok := NormaliseID([]byte(tt.in)); ok != tt.ok || (ok && got != tt.want) { // the text is not used when !ok
			t.Errorf("NormaliseID(%s) = %q %v, want %q %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if got, ok := idBytes([]byte(tt.in)); ok != tt.ok || (ok && string(got) != tt.want) {
			t.Errorf("idBytes(%s) = %q %v, want %q %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ValidID([]byte(tt.in)) != tt.ok {
			t.Errorf("ValidID(%s) = %v, want %v", tt.in, !tt.ok, tt.ok)
		}
	}
}

func TestCounters(t *testing.T) {
	st := cells{}
	c := NewCounters(st, 0)
	for i, e := range []string{
		`{"ph":"C","ts":1,"name":"mem","args":{"heap":10,"ext":"2.5"}}`,
		`{"ph":"C","ts":3,"name":"mem","args":{"heap":12,"bad":true}}`,
		`{"ph":"C","ts":4,"name":"mem","id":7,"args":{"heap":1}}`,
		`{"ph":"C","ts":5,"name":"mem","args":{}}`,
		`{"ph":"C","ts":6,"name":"mem"}`,
	} {
		ev, err := event.Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte(e)})
		if err != nil {
			t.Fatal(err)
		}
		c.Add(1, ev)
	}
	var filters, samples []string
	for _, f := range c.Filters {
		filters = append(filters, fmt.Sprintf("%s@%d", f.Name, f.Ipid))
	}
	for _, s := range c.Samples {
		d := "-"
		if s.HasDur {
			d = fmt.Sprint(s.Dur)
		}
		samples = append(samples, fmt.Sprintf("%d %s %s %d", s.TS, d, s.Value, s.Filter))
	}
	if want := []string{"mem heap@1", "mem ext@1", "mem id: 7 heap@1"}; !reflect.DeepEqual(filters, want) {
		t.Errorf("filters %q, want %q", filters, want)
	}
	if want := []string{"1000 2000 10 0", "1000 - 2.5 1", "3000 - 12 0", "4000 - 1 2"}; !reflect.DeepEqual(samples, want) {
		t.Errorf("samples %q, want %q", samples, want)
	}
	if want := (cells{"json_counter/not_supported": 1, "json_counter/invalid_data": 2}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
}

// TestCounterLimit: with the bound reached, samples of new series are dropped
// and counted, one per member; the series kept go on.
func TestCounterLimit(t *testing.T) {
	st := cells{}
	c := NewCounters(st, 3)
	for i := 1; i <= 10; i++ {
		raw := fmt.Sprintf(`{"ph":"C","ts":%d,"name":"c","args":{"s%d":%d,"s0":1}}`, i, i, i)
		ev, err := event.Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		c.Add(1, ev)
	}
	var filters []string
	for _, f := range c.Filters {
		filters = append(filters, f.Name)
	}
	if want := []string{"c s1", "c s0", "c s2"}; !reflect.DeepEqual(filters, want) {
		t.Errorf("filters %q, want %q", filters, want)
	}
	// s0 once per event, s1 and s2 once each; s3 to s10 dropped.
	if n := len(c.Samples); n != 10+2 {
		t.Errorf("%d samples, want 12", n)
	}
	if want := (cells{"json_counter/data_lost": 8}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
}

// TestCounterNamesUTF8: a member name with invalid UTF-8 names its series
// with U+FFFD in its place, counted (json_string invalid_data) each time.
func TestCounterNamesUTF8(t *testing.T) {
	st := cells{}
	c := NewCounters(st, 0)
	for i := range 2 {
		ev, err := event.Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte("{\"ph\":\"C\",\"ts\":1,\"name\":\"m\",\"args\":{\"a\xffb\":1}}")})
		if err != nil {
			t.Fatal(err)
		}
		c.Add(1, ev)
	}
	if len(c.Filters) != 1 || c.Filters[0].Name != "m a\uFFFDb" || len(c.Samples) != 2 {
		t.Errorf("filters %+v, %d samples", c.Filters, len(c.Samples))
	}
	if want := (cells{"json_string/invalid_data": 2}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
}
