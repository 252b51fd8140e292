package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestMarkers(t *testing.T) {
	st := cells{}
	m := NewMarkers(st)
	var dropped []string
	for _, raw := range []string{
		`{"ph":"c","ts":10,"args":{"sync_id":"abc","issue_ts":9.5}}`,
		`{"ph":"c","ts":11,"args":{}}`,
		`{"ph":"(","ts":12,"name":"FrameBlame","id":"0x5"}`,
		`{"ph":")","ts":13,"name":"FrameBlame","id":"0x5"}`,
		`{"ph":")","ts":14,"name":"FrameBlame","id":"0x5"}`,
		`{"ph":"=","ts":15,"name":"n","id":"0x5","args":{"linked_id":"0x6"}}`,
		`{"ph":"=","ts":16,"name":"n","id":"0x5"}`,
	} {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Ph {
		case 'c':
			if !m.ClockSync(1, ev) {
				dropped = append(dropped, raw)
			}
		case '(', ')':
			if !m.Context(1, 1, ev) {
				dropped = append(dropped, raw)
			}
		case '=':
			if !m.Link(1, ev) {
				dropped = append(dropped, raw)
			}
		}
	}
	m.LegacyClockSync("7", 100, 200, 2)
	var got []string
	rows := m.Take()
	for _, c := range rows.ClockSyncs {
		got = append(got, fmt.Sprintf("%s %d %d %v %s", c.SyncID, c.TS, c.IssueTS, c.HasIssue, c.Source))
	}
	for _, c := range rows.Contexts {
		got = append(got, fmt.Sprintf("%s %s %s", c.Phase, c.Name, c.RawID))
	}
	for _, l := range rows.Linked {
		got = append(got, fmt.Sprintf("link %s->%s", l.RawID, l.LinkedRawID))
	}
	want := []string{"abc 10000 9500 true c", "7 200 100 true legacy_async",
		"enter FrameBlame 0x5", "leave FrameBlame 0x5", "leave FrameBlame 0x5", "link 0x5->0x6"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("markers %q, want %q", got, want)
	}
	if want := (cells{"json_context_leave/not_match": 1}); !st.equal(want) {
		t.Errorf("counts %v, want %v", st, want)
	}
	if want := []string{`{"ph":"c","ts":11,"args":{}}`, `{"ph":"=","ts":16,"name":"n","id":"0x5"}`}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
}
