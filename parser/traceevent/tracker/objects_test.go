package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestObjects(t *testing.T) {
	st := cells{}
	o := NewObjects(st)
	var outcomes []ObjectOutcome
	for _, raw := range []string{
		`{"ph":"N","ts":1,"pid":1,"tid":2,"cat":"c","name":"Layer","id":"0x1"}`,
		`{"ph":"O","ts":2,"pid":1,"tid":2,"cat":"c","name":"Layer","id":"0x1","args":{"snapshot":{"cat":"cc","base_type":"L","w\"x":3,"h":[1]}}}`,
		`{"ph":"N","ts":3,"pid":1,"tid":2,"name":"Layer","id":"0x1"}`,
		`{"ph":"D","ts":4,"pid":1,"tid":3,"name":"Layer","id":"0x1"}`,
		`{"ph":"D","ts":5,"pid":1,"tid":3,"name":"Layer","id":"0x1"}`,
		`{"ph":"O","ts":6,"pid":2,"tid":2,"name":"Tile","id":"0x1","args":{"snapshot":7}}`,
		`{"ph":"O","ts":7,"pid":2,"tid":2,"name":"Tile","id":"0x1","args":{}}`,
	} {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		outcomes = append(outcomes, o.Add(int(ev.Pid.Num), int(ev.Tid.Num), ev))
	}
	var inst, snaps []string
	for _, i := range o.Instances {
		inst = append(inst, fmt.Sprintf("%d@%d %s %d..%d(%v) explicit=%v", i.ID, i.Ipid, i.RawID, i.CreateTS/1000, i.DeleteTS/1000, i.Deleted, i.ExplicitCreate))
	}
	for _, s := range o.Snapshots {
		snaps = append(snaps, fmt.Sprintf("%d obj%d %s %s %s", s.ID, s.ObjectID, s.Cat, s.BaseType, s.Args))
	}
	wantInst := []string{"0@1 0x1 1..3(true) explicit=true", "1@1 0x1 3..4(true) explicit=true", "2@2 0x1 6..0(false) explicit=false"}
	wantSnaps := []string{`0 obj0 cc L {"w\"x":3,"h":[1]}`, "1 obj2   7"}
	if !reflect.DeepEqual(inst, wantInst) || !reflect.DeepEqual(snaps, wantSnaps) {
		t.Errorf("instances %q\nsnapshots %q", inst, snaps)
	}
	if want := (cells{"json_object_new/not_match": 1, "json_object_snapshot/not_match": 1,
		"json_object_snapshot/invalid_data": 1, "json_object_delete/not_match": 1}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
	want := []ObjectOutcome{ObjectApplied, ObjectApplied, ObjectApplied, ObjectApplied, ObjectIgnored, ObjectApplied, ObjectIgnored}
	if !reflect.DeepEqual(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
}
