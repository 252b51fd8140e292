package event

import (
	"errors"
	"reflect"
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
