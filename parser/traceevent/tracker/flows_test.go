package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

// feed hands an event of thread tid to the slice and flow trackers as the
// importer does.
func feed(t *testing.T, s *Slices, f *Flows, raw string) {
	t.Helper()
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
	case 'B':
		s.Begin(itid, ev)
	case 'E':
		s.End(itid, ev)
	case 's', 't', 'f':
		f.V1(itid, ev)
	}
}

func TestFlows(t *testing.T) {
	st := cells{}
	s := NewSlices(st, 0)
	f := NewFlows(s, st)
	run := func(raw string) { feed(t, s, f, raw) }
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
	for _, fl := range f.Take().Arrows {
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

// TestFlowEvents: every s, t and f event is a flow_event row, bound or not:
// Chrome's LatencyInfo.Flow steps after the f that closed their key, an f of
// no open flow, an event without a usable id. An event at exactly a slice's
// end binds to that slice (closed intervals, as catapult's findSliceAtTs),
// also when a sibling begins at that time, an E ended it or it lasts 0 (a
// thread instant).
func TestFlowEvents(t *testing.T) {
	st := cells{}
	s := NewSlices(st, 0)
	f := NewFlows(s, st)
	for _, raw := range []string{
		`{"ph":"X","ts":0,"dur":10,"tid":1,"name":"A"}`,  // slice 0
		`{"ph":"X","ts":10,"dur":10,"tid":1,"name":"B"}`, // slice 1, begins as A ends
		`{"ph":"s","ts":10,"tid":1,"cat":"input","name":"L","id":1}`,
		`{"ph":"f","ts":12,"tid":1,"cat":"input","name":"L","id":1,"bp":"e"}`,
		`{"ph":"t","ts":15,"tid":1,"cat":"input","name":"L","id":1,"args":{"step":"Swap"}}`, // key closed
		`{"ph":"t","ts":16,"tid":1,"cat":"input","name":"L","id":1}`,
		`{"ph":"f","ts":18,"tid":1,"cat":"input","name":"L","id":1}`,  // key closed: waits for the next slice all the same
		`{"ph":"X","ts":25,"dur":5,"tid":1,"name":"C"}`,               // slice 2
		`{"ph":"s","ts":26,"tid":1,"cat":"input","name":"L","id":{}}`, // no usable id
		`{"ph":"B","ts":40,"tid":2,"name":"D"}`,                       // slice 3
		`{"ph":"E","ts":50,"tid":2}`,
		`{"ph":"s","ts":50,"tid":2,"cat":"input","name":"L","id":2}`,
		`{"ph":"X","ts":60,"dur":0,"tid":2,"name":"Z"}`, // slice 4
		`{"ph":"s","ts":60,"tid":2,"cat":"input","name":"L","id":3}`,
		`{"ph":"f","ts":70,"tid":3,"cat":"input","name":"L","id":2}`, // no next slice on thread 3
	} {
		feed(t, s, f, raw)
	}
	f.Finish()
	rows := f.Take()
	var arrows, events []string
	for _, fl := range rows.Arrows {
		arrows = append(arrows, fmt.Sprintf("%d->%d %s", fl.Out, fl.In, fl.Key))
	}
	for _, e := range rows.Events {
		events = append(events, fmt.Sprintf("%d %c@%d t%d key%s/%v slice%d arrow%d %s", e.ID, e.Phase, e.TS/1000, e.Itid,
			e.Key, e.HasKey, e.Slice, e.Arrow, e.Args))
	}
	if want := []string{"0->1 1"}; !reflect.DeepEqual(arrows, want) {
		t.Errorf("arrows %q, want %q", arrows, want)
	}
	want := []string{
		"0 s@10 t1 key1/true slice0 arrow-1 ",
		"1 f@12 t1 key1/true slice1 arrow0 ",
		`2 t@15 t1 key1/true slice1 arrow-1 {"step":"Swap"}`,
		"3 t@16 t1 key1/true slice1 arrow-1 ",
		"4 f@18 t1 key1/true slice2 arrow-1 ",
		"5 s@26 t1 key/false slice-1 arrow-1 ",
		"6 s@50 t2 key2/true slice3 arrow-1 ",
		"7 s@60 t2 key3/true slice4 arrow-1 ",
		"8 f@70 t3 key2/true slice-1 arrow-1 ",
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("flow events\n%q\nwant\n%q", events, want)
	}
	if want := (cells{"json_flow_step/not_match": 2, "json_flow_end/not_match": 2}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
}
