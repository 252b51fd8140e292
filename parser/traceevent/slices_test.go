package traceevent

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// run feeds events (already in processing order) of thread 1 and returns the
// rows as "name depth parent dur" ("-" for no dur).
func runSlices(t *testing.T, events ...string) ([]string, SliceCounts) {
	t.Helper()
	s := NewSlices()
	for i, e := range events {
		ev, err := Decode(&Element{Seq: int64(i), Raw: []byte(e)})
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Ph {
		case 'B':
			s.Begin(1, ev)
		case 'E':
			s.End(1, ev)
		case 'X':
			s.Complete(1, ev, ev.Dur.NS)
		case 'i':
			s.Complete(1, ev, 0)
		}
	}
	s.Finish()
	var out []string
	for _, r := range s.Rows {
		d := "-"
		if r.HasDur {
			d = fmt.Sprint(r.Dur / 1000)
		}
		out = append(out, fmt.Sprintf("%s %d %d %s", r.Name, r.Depth, r.ParentID, d))
	}
	return out, s.Counts
}

func TestSlices(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   []string
		counts SliceCounts
	}{
		{"nested B/E", []string{`{"ph":"B","ts":0,"name":"a"}`, `{"ph":"B","ts":1,"name":"b"}`,
			`{"ph":"E","ts":2,"name":"b"}`, `{"ph":"E","ts":3}`},
			[]string{"a 0 -1 3", "b 1 0 1"}, SliceCounts{}},
		{"siblings meeting at T", []string{`{"ph":"B","ts":0,"name":"a"}`, `{"ph":"E","ts":10}`,
			`{"ph":"B","ts":10,"name":"b"}`, `{"ph":"E","ts":20}`},
			[]string{"a 0 -1 10", "b 0 -1 10"}, SliceCounts{}},
		{"X children end where the next starts", []string{`{"ph":"X","ts":0,"dur":10,"name":"p"}`,
			`{"ph":"X","ts":2,"dur":3,"name":"c"}`, `{"ph":"X","ts":5,"dur":5,"name":"d"}`},
			[]string{"p 0 -1 10", "c 1 0 3", "d 1 0 5"}, SliceCounts{}},
		{"B inside an X is truncated when the X ends", []string{`{"ph":"X","ts":0,"dur":10,"name":"p"}`,
			`{"ph":"B","ts":5,"name":"q"}`, `{"ph":"i","ts":12,"name":"later"}`},
			[]string{"p 0 -1 10", "q 1 0 5", "later 0 -1 0"}, SliceCounts{Truncated: 1}},
		{"E closing a slice below an open one", []string{`{"ph":"B","ts":0,"name":"a"}`, `{"ph":"B","ts":1,"name":"b"}`,
			`{"ph":"E","ts":2,"name":"a"}`, `{"ph":"i","ts":3,"name":"z"}`},
			[]string{"a 0 -1 2", "b 1 0 1", "z 0 -1 0"}, SliceCounts{Truncated: 1}},
		{"E without a compatible slice", []string{`{"ph":"B","ts":0,"name":"a","cat":"x"}`, `{"ph":"E","ts":1,"cat":"y"}`},
			[]string{"a 0 -1 -"}, SliceCounts{Unmatched: 1, Unclosed: 1}},
		{"partial overlap is kept and flagged", []string{`{"ph":"X","ts":0,"dur":10,"name":"p"}`,
			`{"ph":"X","ts":5,"dur":10,"name":"c"}`, `{"ph":"X","ts":11,"dur":1,"name":"n"}`},
			[]string{"p 0 -1 10", "c 1 0 10", "n 0 -1 1"}, SliceCounts{Overlaps: 1}},
		{"zero-length instants at one T are siblings", []string{`{"ph":"i","ts":5,"name":"a"}`, `{"ph":"i","ts":5,"name":"b"}`},
			[]string{"a 0 -1 0", "b 0 -1 0"}, SliceCounts{}},
	}
	for _, tt := range tests {
		got, counts := runSlices(t, tt.events...)
		if !reflect.DeepEqual(got, tt.want) || counts != tt.counts {
			t.Errorf("%s:\n got %q %+v\nwant %q %+v", tt.name, got, counts, tt.want, tt.counts)
		}
	}
	deep := make([]string, MaxDepth+1)
	for i := range deep {
		deep[i] = `{"ph":"B","ts":1}`
	}
	rows, counts := runSlices(t, deep...)
	if len(rows) != MaxDepth || counts.TooDeep != 1 || !strings.HasPrefix(rows[MaxDepth-1], fmt.Sprintf(" %d ", MaxDepth-1)) {
		t.Errorf("%d rows, counts %+v, last %q", len(rows), counts, rows[len(rows)-1])
	}
}
