package tracker

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/stat"
)

// run feeds events (already in processing order) of thread 1 and returns the
// rows as "name depth parent dur" ("-" for no dur).
func runSlices(t *testing.T, events ...string) ([]string, cells) {
	t.Helper()
	c := cells{}
	s := NewSlices(c, 0)
	for i, e := range events {
		ev, err := event.Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte(e)})
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Ph {
		case 'B':
			s.Begin(1, ev)
		case 'E':
			if s.End(1, ev) == nil {
				c.Add(stat.JSONEnd, stat.NotMatch, 1, ev.Offset) // as the importer counts it
			}
		case 'X':
			s.Complete(1, ev, ev.Dur.NS)
		case 'i':
			s.Complete(1, ev, 0)
		}
	}
	s.Finish()
	var out []string
	for _, r := range s.Rows() {
		d := "-"
		if r.HasDur {
			d = fmt.Sprint(r.Dur / 1000)
		}
		out = append(out, fmt.Sprintf("%s %d %d %s", r.Name, r.Depth, r.ParentID, d))
		if r.Overlap {
			c.Add(stat.JSONComplete, stat.NotMatch, 1, -1) // as the importer counts it
		}
	}
	return out, c
}

func TestSlices(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   []string
		counts cells
	}{
		{"nested B/E", []string{`{"ph":"B","ts":0,"name":"a"}`, `{"ph":"B","ts":1,"name":"b"}`,
			`{"ph":"E","ts":2,"name":"b"}`, `{"ph":"E","ts":3}`},
			[]string{"a 0 -1 3", "b 1 0 1"}, nil},
		{"siblings meeting at T", []string{`{"ph":"B","ts":0,"name":"a"}`, `{"ph":"E","ts":10}`,
			`{"ph":"B","ts":10,"name":"b"}`, `{"ph":"E","ts":20}`},
			[]string{"a 0 -1 10", "b 0 -1 10"}, nil},
		{"X children end where the next starts", []string{`{"ph":"X","ts":0,"dur":10,"name":"p"}`,
			`{"ph":"X","ts":2,"dur":3,"name":"c"}`, `{"ph":"X","ts":5,"dur":5,"name":"d"}`},
			[]string{"p 0 -1 10", "c 1 0 3", "d 1 0 5"}, nil},
		{"B inside an X is truncated when the X ends", []string{`{"ph":"X","ts":0,"dur":10,"name":"p"}`,
			`{"ph":"B","ts":5,"name":"q"}`, `{"ph":"i","ts":12,"name":"later"}`},
			[]string{"p 0 -1 10", "q 1 0 5", "later 0 -1 0"}, cells{"json_begin/data_lost": 1}},
		{"E closing a slice below an open one", []string{`{"ph":"B","ts":0,"name":"a"}`, `{"ph":"B","ts":1,"name":"b"}`,
			`{"ph":"E","ts":2,"name":"a"}`, `{"ph":"i","ts":3,"name":"z"}`},
			[]string{"a 0 -1 2", "b 1 0 1", "z 0 -1 0"}, cells{"json_begin/data_lost": 1}},
		{"E without a compatible slice", []string{`{"ph":"B","ts":0,"name":"a","cat":"x"}`, `{"ph":"E","ts":1,"cat":"y"}`},
			[]string{"a 0 -1 -"}, cells{"json_end/not_match": 1, "json_begin/not_match": 1}},
		{"partial overlap is kept and flagged", []string{`{"ph":"X","ts":0,"dur":10,"name":"p"}`,
			`{"ph":"X","ts":5,"dur":10,"name":"c"}`, `{"ph":"X","ts":11,"dur":1,"name":"n"}`},
			[]string{"p 0 -1 10", "c 1 0 10", "n 0 -1 1"}, cells{"json_complete/not_match": 1}},
		{"zero-length instants at one T are siblings", []string{`{"ph":"i","ts":5,"name":"a"}`, `{"ph":"i","ts":5,"name":"b"}`},
			[]string{"a 0 -1 0", "b 0 -1 0"}, nil},
	}
	for _, tt := range tests {
		got, counts := runSlices(t, tt.events...)
		if !reflect.DeepEqual(got, tt.want) || !counts.equal(tt.counts) {
			t.Errorf("%s:\n got %q %+v\nwant %q %+v", tt.name, got, counts, tt.want, tt.counts)
		}
	}
	deep := make([]string, MaxDepth+1)
	for i := range deep {
		deep[i] = `{"ph":"B","ts":1}`
	}
	rows, counts := runSlices(t, deep...)
	if len(rows) != MaxDepth || counts["json_max_depth/data_lost"] != 1 || !strings.HasPrefix(rows[MaxDepth-1], fmt.Sprintf(" %d ", MaxDepth-1)) {
		t.Errorf("%d rows, counts %+v, last %q", len(rows), counts, rows[len(rows)-1])
	}
}

func TestAsyncNestable(t *testing.T) {
	s := NewSlices(cells{}, 0)
	tr := NewTracks()
	ev := func(raw string) *event.Event {
		e, err := event.Decode(&tokenizer.Element{Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// Two keys: cat "net" id 1 (global) and cat "net" id2.local 1 in process 2.
	steps := []string{
		`{"ph":"b","ts":0,"cat":"net","id":1,"name":"req"}`,
		`{"ph":"b","ts":1,"cat":"net","id":1,"name":"dns"}`,
		`{"ph":"n","ts":2,"cat":"net","id":1,"name":"mark"}`,
		`{"ph":"e","ts":3,"cat":"net","id":1,"name":"dns"}`,
		`{"ph":"b","ts":4,"cat":"net","id2":{"local":1},"name":"local"}`,
		`{"ph":"e","ts":9,"cat":"net","id":1}`,
		`{"ph":"e","ts":9,"cat":"net","id":"1","name":"none"}`,
	}
	unmatched := 0
	for i, raw := range steps {
		e := ev(raw)
		track, _, ok := tr.Lookup(e, 2, false)
		if !ok {
			t.Fatalf("step %d: no id", i)
		}
		switch e.Ph {
		case 'b':
			s.AsyncBegin(track, 5, 7, e)
		case 'n':
			s.AsyncInstant(track, 5, 7, e)
		case 'e':
			if s.AsyncEnd(track, 7, e) == nil {
				unmatched++
			}
		}
	}
	var got []string
	for _, r := range s.Rows() {
		d := "-"
		if r.HasDur {
			d = fmt.Sprint(r.Dur / 1000)
		}
		got = append(got, fmt.Sprintf("%s track%d depth%d parent%d dur%s itid%d emit%d", r.Name, r.Cookie, r.Depth, r.ParentID, d, r.Itid, r.Emit))
	}
	want := []string{
		"req track0 depth0 parent-1 dur9 itid5 emit7",
		"dns track0 depth1 parent0 dur2 itid5 emit7",
		"mark track0 depth2 parent1 dur0 itid5 emit7",
		"local track1 depth0 parent-1 dur- itid5 emit7",
	}
	// The last e (id "1", a string) is on the same track as id 1: both
	// normalise to "1". Its name matches nothing open there.
	if !reflect.DeepEqual(got, want) || unmatched != 1 {
		t.Errorf("rows\n%q\nwant\n%q\n(unmatched %d)", got, want, unmatched)
	}
	if rows := tr.Take(); len(rows) != 2 || rows[1].IDKind != "id2.local" || rows[1].Ipid != 2 || rows[0].RawID != "1" {
		t.Errorf("tracks %+v", rows)
	}
}

func TestLegacyAsync(t *testing.T) {
	s := NewSlices(cells{}, 0)
	tr := NewTracks()
	c := cells{}
	l := NewLegacy(s, c)
	for i, raw := range []string{
		`{"ph":"S","ts":0,"name":"load","cat":"c","id":"0x1"}`,
		`{"ph":"T","ts":2,"name":"load","id":"0x1","args":{"step":"parse"}}`,
		`{"ph":"T","ts":5,"name":"load","id":"0x1"}`,
		`{"ph":"S","ts":6,"name":"load","id":"0x1"}`,
		`{"ph":"F","ts":9,"name":"load","id":"0x1"}`,
		`{"ph":"F","ts":10,"name":"load","id":"0x1"}`,
		`{"ph":"S","ts":11,"name":"other","id":"0x1"}`,
		`{"ph":"p","ts":13,"name":"other","id":"0x1","args":{"step":"past"}}`,
		`{"ph":"T","ts":14,"name":"nope","id":"0x1"}`,
	} {
		ev, err := event.Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		track, _, _ := tr.Lookup(ev, 1, true)
		l.Add(track, 3, 4+i, ev)
	}
	l.Finish()
	var got []string
	for _, r := range s.Rows() {
		d := "-"
		if r.HasDur {
			d = fmt.Sprint(r.Dur / 1000)
		}
		got = append(got, fmt.Sprintf("%s %s t%d d%d p%d @%d dur%s", r.Name, r.Cat, r.Cookie, r.Depth, r.ParentID, r.TS/1000, d))
	}
	want := []string{
		"load c t0 d0 p-1 @0 dur9",
		"parse c t0 d1 p0 @2 dur3",
		"load c t0 d1 p0 @5 dur4",
		"other  t1 d0 p-1 @11 dur-",
		"past  t1 d1 p3 @11 dur2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	if want := (cells{"json_async_start/data_lost": 1, "json_async_finish/not_match": 1,
		"json_async_step_into/not_match": 1, "json_async_start/not_match": 1}); !c.equal(want) {
		t.Errorf("counts %v, want %v", c, want)
	}
	if rows := s.Rows(); !rows[0].HasEndItid || rows[0].EndItid != 8 {
		t.Errorf("end itid %+v", s.Rows()[0])
	}
}

// TestTakeKeepsOnlyOpenRows: a slice that stays open (Chrome's message loop)
// does not keep the slices after it in memory; rows come out as they close.
func TestTakeKeepsOnlyOpenRows(t *testing.T) {
	s := NewSlices(cells{}, 0)
	var taken []int64
	take := func(r *Slice) { taken = append(taken, r.ID) }
	b, _ := event.Decode(&tokenizer.Element{Raw: []byte(`{"ph":"B","ts":0,"name":"loop"}`)})
	s.Begin(1, b)
	s.Take(take)
	for i := range 1000 {
		x, _ := event.Decode(&tokenizer.Element{Raw: []byte(fmt.Sprintf(`{"ph":"X","ts":%d,"dur":1,"name":"task"}`, 10+i*2))})
		s.Complete(1, x, x.Dur.NS)
		s.Take(take)
	}
	if n := len(s.Rows()); n != 1 {
		t.Errorf("%d rows kept, want 1 (the open one)", n)
	}
	if len(taken) != 1000 || taken[0] != 1 || taken[999] != 1000 {
		t.Errorf("taken %d rows, first %v", len(taken), taken[:min(3, len(taken))])
	}
	s.TakeAll(take)
	if len(taken) != 1001 || taken[1000] != 0 {
		t.Errorf("after TakeAll: %d rows, last %d", len(taken), taken[len(taken)-1])
	}
}

// TestPendingLimit: with MaxPending B slices waiting for their end, a further
// B is dropped and counted; once one ends, a new B is taken again.
func TestPendingLimit(t *testing.T) {
	st := cells{}
	s := NewSlices(st, 2)
	for i, raw := range []string{`{"ph":"B","ts":1,"name":"a"}`, `{"ph":"B","ts":2,"name":"b"}`, `{"ph":"B","ts":3,"name":"c"}`,
		`{"ph":"E","ts":4,"name":"b"}`, `{"ph":"B","ts":5,"name":"d"}`, `{"ph":"B","ts":6,"name":"e"}`} {
		ev, err := event.Decode(&tokenizer.Element{Seq: int64(i), Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Ph == 'B' {
			s.Begin(1, ev)
		} else {
			s.End(1, ev)
		}
	}
	var names []string
	for _, r := range s.Rows() {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != "a,b,d" || !st.equal(cells{"json_max_depth/data_lost": 2}) {
		t.Errorf("slices %v, counts %v", names, st)
	}
}
