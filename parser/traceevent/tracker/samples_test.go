package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestSamples(t *testing.T) {
	frames := NewFrames()
	frames.AddStackFrames([]byte(`{"7":{"name":"tick"}}`), "stackFrames", -1, nil, 0, AtFrameValue)
	st := cells{}
	s := NewSamples(frames, st)
	for _, raw := range []string{
		`{"ph":"P","ts":100,"name":"Profile","id":"0x1","args":{"data":{"startTime":1000}}}`,
		`{"ph":"P","ts":110,"name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[` +
			`{"id":1,"callFrame":{"functionName":"(root)","url":"","scriptId":0,"lineNumber":-1,"columnNumber":-1},"children":[2]},` +
			`{"id":2,"callFrame":{"functionName":"f","url":"a.js","scriptId":"3","lineNumber":4,"columnNumber":5}}],` +
			`"samples":[2,2,9]},"timeDeltas":[10,-2,5.5]}}}`,
		`{"ph":"P","ts":120,"name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"samples":[1]},"timeDeltas":[1]}}}`,
		`{"ph":"P","ts":130,"name":"ProfileChunk","id":"0x2","args":{"data":{"cpuProfile":{"samples":[]}}}}`,
		`{"ph":"P","ts":140,"name":"tick","sf":7}`,
	} {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		s.P(1, 2, ev)
	}
	frames.Resolve()
	var got []string
	for _, r := range s.Take() {
		got = append(got, fmt.Sprintf("%s p%d @%d f%d", r.Source, r.CPUProfileID, r.TS, r.FrameID))
	}
	want := []string{"v8_profile p0 @1010000 f2", "v8_profile p0 @1008000 f2", "v8_profile p0 @1013500 f-1",
		"v8_profile p0 @1014500 f1", "trace_event p-1 @140000 f0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples %q, want %q", got, want)
	}
	if len(s.Profiles) != 2 || s.Profiles[1].StartTS != 130000 || !st.equal(cells{"json_sample/not_match": 2}) {
		t.Errorf("profiles %+v counts %v", s.Profiles, st)
	}
	if f := frames.Rows[2]; f.Name != "f" || f.ParentID != 1 || f.URL != "a.js" || f.ScriptID != "3" || f.Line != 4 {
		t.Errorf("frame %+v", f)
	}
}

func TestTopLevelSamples(t *testing.T) {
	frames := NewFrames()
	frames.AddStackFrames([]byte(`{"1":{"name":"a"}}`), "stackFrames", -1, nil, 0, AtFrameValue)
	st := cells{}
	s := NewSamples(frames, st)
	_, err := s.TopLevel([]byte(`[{"cpu":1,"tid":5,"ts":10,"name":"cycles","sf":1,"weight":3},{"tid":5,"ts":"x"},{"tid":6,"ts":11,"sf":9}]`), 0,
		func(tid event.Ident) int { return int(tid.Num) * 10 })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Take() {
		got = append(got, fmt.Sprintf("%s @%d itid%d cpu%d/%v f%d w%d %s", r.Source, r.TS, r.Itid, r.CPU, r.HasCPU, r.FrameID, r.Weight, r.Name))
	}
	want := []string{"samples @10000 itid50 cpu1/true f0 w3 cycles", "samples @11000 itid60 cpu0/false f-1 w1 "}
	if !reflect.DeepEqual(got, want) || !st.equal(cells{"json_samples/invalid_data": 1, "json_samples/not_match": 1}) {
		t.Errorf("samples %q, counts %v", got, st)
	}
}
