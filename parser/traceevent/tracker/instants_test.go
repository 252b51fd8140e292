package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func decodeAll(t *testing.T, lines ...string) []*event.Event {
	t.Helper()
	var evs []*event.Event
	for i, raw := range lines {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(raw), Seq: int64(i)})
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestInstantsE9 is the spec's worked example E9 (instant scopes).
func TestInstantsE9(t *testing.T) {
	evs := decodeAll(t,
		`{"ph":"i","pid":1,"tid":2,"ts":5,"name":"t1","s":"t"}`,
		`{"ph":"I","pid":1,"tid":2,"ts":6,"name":"p1","s":"p","cat":"x","args":{"k":"v"}}`,
		`{"ph":"R","pid":1,"tid":2,"ts":7,"name":"g1","s":"g"}`,
		`{"ph":"i","pid":1,"tid":2,"ts":8,"name":"q","s":"z"}`,
		`{"ph":"i","pid":1,"tid":2,"name":"nots","s":"p"}`,
	)
	st := cells{}
	th := NewThreads(st, 0)
	s := NewSlices(st, 0)
	var is Instants
	var unknownScope int
	for _, ev := range evs {
		ipid, itid, _ := th.Lookup(ev)
		if _, known := InstantScope(ev); !known {
			unknownScope++
		}
		if !is.Add(ipid, itid, ev) && ev.TS.Valid {
			s.Complete(itid, ev, 0)
		}
	}
	s.Finish()
	var slices, inst []string
	for _, r := range s.Rows() {
		slices = append(slices, fmt.Sprintf("%d %d %d %d %s", r.ID, r.TS, r.Dur, r.Itid, r.Name))
	}
	for _, r := range is.Take() {
		ref, ok := r.Ref()
		refs := "-"
		if ok {
			refs = fmt.Sprint(ref)
		}
		inst = append(inst, fmt.Sprintf("rowid %d (%d, %s, %s, %s) extra (%c, %q, itid %d, args %s)",
			r.RowID, r.TS, r.Name, refs, r.RefType(), r.Scope, r.Cat, r.Itid, r.Args))
	}
	wantSlices := []string{"0 5000 0 2 t1", "1 8000 0 2 q"}
	wantInst := []string{
		`rowid 1 (6000, p1, 1, ipid) extra (p, "x", itid 2, args {"k":"v"})`,
		`rowid 2 (7000, g1, -, global) extra (g, "", itid 2, args )`,
	}
	if !reflect.DeepEqual(slices, wantSlices) {
		t.Errorf("slices %q, want %q", slices, wantSlices)
	}
	if !reflect.DeepEqual(inst, wantInst) {
		t.Errorf("instants %q, want %q", inst, wantInst)
	}
	if unknownScope != 1 || len(st) != 0 {
		t.Errorf("%d unknown scopes, want 1; counts %v, want none", unknownScope, st)
	}
}

// TestMetadataE10 is the metadata half of the spec's worked example E10.
func TestMetadataE10(t *testing.T) {
	evs := decodeAll(t,
		`{"ph":"M","pid":3,"name":"process_name","args":{"name":"Browser"}}`,
		`{"ph":"M","pid":3,"tid":4,"name":"thread_name","args":{"name":"IO"}}`,
		`{"ph":"M","pid":3,"tid":0,"name":"process_labels","args":{"labels":"a,b"}}`,
		`{"ph":"M","pid":3,"tid":4,"name":"thread_sort_index","args":{"sort_index":"2"}}`,
		`{"ph":"M","pid":3,"tid":4,"name":"thread_name","args":{"name":5}}`,
		`{"ph":"M","pid":3,"tid":4,"ts":9,"name":"my_meta","args":{}}`,
	)
	st := cells{}
	th := NewThreads(st, 0)
	m := NewMetadata(st)
	for _, ev := range evs {
		ipid, itid, _ := th.Lookup(ev)
		m.Add(th, ipid, itid, ev)
	}
	var rows []string
	for _, r := range m.Take() {
		ts := "-"
		if r.HasTS {
			ts = fmt.Sprint(r.TS)
		}
		rows = append(rows, fmt.Sprintf("%d %s %d %d %s", r.ID, ts, r.Ipid, r.Itid, r.Name))
	}
	want := []string{"0 - 1 1 process_name", "1 - 1 2 thread_name", "2 - 1 1 process_labels",
		"3 - 1 2 thread_sort_index", "4 - 1 2 thread_name", "5 9000 1 2 my_meta"}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
	if want := (cells{"json_metadata/not_supported": 1, "json_metadata/invalid_data": 1}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
	if name, _ := th.ThreadName(2); name != "IO" {
		t.Errorf("thread 2 name %q, want IO (an unusable thread_name must not change it)", name)
	}
	if name, _ := th.ThreadName(1); name != "Browser" {
		t.Errorf("main thread name %q, want Browser", name)
	}
}
