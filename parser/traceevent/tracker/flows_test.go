package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestFlows(t *testing.T) {
	st := cells{}
	s := NewSlices(st, 0)
	f := NewFlows(s, st)
	run := func(raw string) {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		itid := int(ev.Tid.Num)
		switch ev.Ph {
		case 'X':
			s.Complete(itid, ev, ev.Dur.NS)
			if ev.BindID != nil {
				f.V2(int64(s.next-1), ev)
			}
		case 's', 't', 'f':
			f.V1(itid, ev)
		}
	}
	for _, raw := range []string{
		`{"ph":"X","ts":0,"dur":10,"tid":1,"name":"A"}`, // slice 0
		`{"ph":"s","ts":1,"tid":1,"cat":"c","name":"m","id":5}`,
		`{"ph":"s","ts":1,"tid":1,"cat":"c","name":"m","id":5}`, // already open: data_lost
		`{"ph":"X","ts":20,"dur":10,"tid":2,"name":"B"}`,        // slice 1
		`{"ph":"t","ts":21,"tid":2,"cat":"c","name":"m","id":5}`,
		`{"ph":"f","ts":35,"tid":3,"cat":"c","name":"m","id":5}`,                        // waits for thread 3's next slice
		`{"ph":"X","ts":40,"dur":1,"tid":3,"name":"C"}`,                                 // slice 2: the f binds here
		`{"ph":"s","ts":50,"tid":4,"cat":"c","name":"m","id":6}`,                        // no enclosing slice
		`{"ph":"X","ts":60,"dur":5,"tid":1,"name":"P","bind_id":"0x9","flow_out":true}`, // slice 3
		`{"ph":"X","ts":70,"dur":5,"tid":2,"name":"Q","bind_id":"0x9","flow_in":true}`,  // slice 4
		`{"ph":"X","ts":71,"dur":5,"tid":3,"name":"R","bind_id":"0x9","flow_in":true}`,  // slice 5
		`{"ph":"X","ts":80,"dur":5,"tid":3,"name":"S","bind_id":"0xa","flow_in":true}`,  // no producer
		`{"ph":"X","ts":90,"dur":5,"tid":1,"name":"T","bind_id":"0xb"}`,                 // neither
		`{"ph":"f","ts":95,"tid":1,"cat":"c","name":"m","id":7}`,                        // not open
	} {
		run(raw)
	}
	f.Finish()
	var got []string
	for _, fl := range f.Take() {
		got = append(got, fmt.Sprintf("v%d %d->%d %s", fl.Version, fl.Out, fl.In, fl.Key))
	}
	want := []string{"v1 0->1 5", "v1 1->2 5", "v2 3->4 0x9", "v2 3->5 0x9"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flows %q, want %q", got, want)
	}
	if want := (cells{"json_flow_start/data_lost": 1, "json_flow_start/not_match": 1, "json_flow_end/not_match": 1,
		"json_flow_v2/not_match": 1, "json_flow_v2/invalid_data": 1}); !st.equal(want) {
		c := st
		t.Errorf("counts %+v", c)
	}
}
