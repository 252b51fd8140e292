package event

import (
	"reflect"
	"sort"
	"testing"
	"tracestreamer/parser/traceevent/extsort"
	"tracestreamer/parser/traceevent/tokenizer"
)

// order decodes elements and returns their file positions in processing order.
func order(t *testing.T, elems ...string) []int64 {
	t.Helper()
	o := NewOrderer()
	type rec struct {
		k   extsort.Key
		seq int64
	}
	var recs []rec
	for i, e := range elems {
		ev, err := Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte(e)})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec{o.Key(ev), ev.Seq})
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].k.Less(recs[j].k) })
	var out []int64
	for _, r := range recs {
		out = append(out, r.seq)
	}
	return out
}

func TestOrder(t *testing.T) {
	tests := []struct {
		name  string
		elems []string
		want  []int64
	}{
		{"unsorted input is sorted by ts",
			[]string{`{"ph":"B","ts":5,"pid":1,"tid":1}`, `{"ph":"B","ts":1,"pid":1,"tid":1}`}, []int64{1, 0}},
		{"an E at T goes before a sibling B at T written first",
			[]string{`{"ph":"B","ts":0,"pid":1,"tid":1,"name":"a"}`, `{"ph":"B","ts":10,"pid":1,"tid":1,"name":"b"}`,
				`{"ph":"E","ts":10,"pid":1,"tid":1,"name":"a"}`}, []int64{0, 2, 1}},
		{"a zero-length B/E pair stays together (glued E)",
			[]string{`{"ph":"B","ts":10,"pid":1,"tid":1,"name":"z"}`, `{"ph":"E","ts":10,"pid":1,"tid":1}`,
				`{"ph":"X","ts":10,"dur":0,"pid":1,"tid":1}`}, []int64{2, 0, 1}},
		{"E glued only on its own thread",
			[]string{`{"ph":"B","ts":10,"pid":1,"tid":1}`, `{"ph":"E","ts":10,"pid":1,"tid":2}`}, []int64{1, 0}},
		{"E with another name is not glued",
			[]string{`{"ph":"B","ts":10,"pid":1,"tid":1,"name":"a"}`, `{"ph":"E","ts":10,"pid":1,"tid":1,"name":"b"}`}, []int64{1, 0}},
		{"longer X first at equal ts (parent before child)",
			[]string{`{"ph":"X","ts":10,"dur":1,"pid":1,"tid":1}`, `{"ph":"X","ts":10,"dur":5,"pid":1,"tid":1}`}, []int64{1, 0}},
		{"X before B at equal ts; M without ts first",
			[]string{`{"ph":"B","ts":3,"pid":1,"tid":1}`, `{"ph":"X","ts":3,"dur":1,"pid":1,"tid":1}`, `{"ph":"M","name":"process_name"}`},
			[]int64{2, 1, 0}},
		{"tid 0 under a pid is the main thread for gluing",
			[]string{`{"ph":"B","ts":7,"pid":4,"tid":4}`, `{"ph":"E","ts":7,"pid":4,"tid":0}`}, []int64{0, 1}},
	}
	for _, tt := range tests {
		if got := order(t, tt.elems...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestOrderBorrowedStrings decodes with BorrowStrings, as the first pass
// does, and reuses the element's bytes between events: the Orderer must keep
// its own copies of the B's name and string ids, so that the E at the same
// time still glues to its B.
func TestOrderBorrowedStrings(t *testing.T) {
	var d Decoder
	d.BorrowStrings(true)
	o := NewOrderer()
	buf := []byte(`{"ph":"B","pid":"p1","tid":"t1","ts":5,"name":"work"}`)
	ev, err := d.Decode(&tokenizer.Element{Seq: 0, Raw: buf})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != "work" || ev.Pid.Str != "p1" {
		t.Fatalf("decoded name %q pid %q", ev.Name, ev.Pid.Str)
	}
	o.Key(ev)
	// The batch's buffer is reused: the B's bytes are gone.
	copy(buf, []byte(`{"ph":"X","pid":"q2","tid":"u2","ts":9,"name":"wxyz","dur":1}`))
	end := []byte(`{"ph":"E","pid":"p1","tid":"t1","ts":5,"name":"work"}`)
	ev, err = d.Decode(&tokenizer.Element{Seq: 1, Raw: end})
	if err != nil {
		t.Fatal(err)
	}
	if k := o.Key(ev); k.Rank != 2 {
		t.Errorf("E rank %d, want 2 (glued to its B)", k.Rank)
	}
}
