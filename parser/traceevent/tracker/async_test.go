package tracker

import (
	"testing"

	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

// TestEventID: the id of an async event, marker or object as text, from id
// or id2's member, with no more allocations than NormaliseID's own, for
// the uncommon ids (escapes, floats, invalid UTF-8) as for the usual ones.
func TestEventID(t *testing.T) {
	for _, tc := range []struct {
		name, in        string
		kind, id        string
		local, both, ok bool
	}{
		{"plain string", `"id":"0x1f"`, "id", "0x1f", false, false, true},
		{"integer", `"id":12345`, "id", "12345", false, false, true},
		{"escaped string", `"id":"a\u0062"`, "id", "ab", false, false, true},
		{"float", `"id":1.50`, "id", "1.5", false, false, true},
		{"invalid UTF-8", "\"id\":\"a\xffb\"", "id", "a\uFFFDb", false, false, true},
		{"id and id2", `"id":7,"id2":{"local":"8"}`, "id", "7", false, true, true},
		{"id2 local", `"id2":{"local":"0x2"}`, "id2.local", "0x2", true, false, true},
		{"id2 global, escaped", `"id2":{"global":"\u0078"}`, "id2.global", "x", false, false, true},
		{"id2 without member", `"id2":{"other":1}`, "", "", false, false, false},
		{"no id", `"x":1`, "", "", false, false, false},
		{"object id", `"id":{}`, "id", "", false, false, false},
	} {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(`{"ph":"n","ts":1,` + tc.in + `}`)})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		kind, id, local, both, ok := eventID(ev)
		if kind != tc.kind || id != tc.id || local != tc.local || both != tc.both || ok != tc.ok {
			t.Errorf("%s: %q %q local %v both %v ok %v, want %q %q %v %v %v", tc.name, kind, id, local, both, ok,
				tc.kind, tc.id, tc.local, tc.both, tc.ok)
		}
		// NormaliseID's allocations, and ID2Member's for an id2; the texts
		// are kept, as the trackers keep them.
		var own float64
		var kept string
		raw := ev.ID
		if raw == nil && ev.ID2 != nil {
			own += testing.AllocsPerRun(100, func() { event.ID2Member(ev.ID2) })
			raw, _, _ = event.ID2Member(ev.ID2)
		}
		if raw != nil {
			own += testing.AllocsPerRun(100, func() { kept, _ = NormaliseID(raw) })
		}
		if n := testing.AllocsPerRun(100, func() { _, kept, _, _, _ = eventID(ev) }); n != own {
			t.Errorf("%s: %v allocations, want NormaliseID's %v", tc.name, n, own)
		}
		if kept != tc.id {
			t.Errorf("%s: kept %q", tc.name, kept)
		}
		bkind, b, blocal, bboth, bok := eventIDBytes(ev)
		if bkind != kind || string(b) != id || blocal != local || bboth != both || bok != ok {
			t.Errorf("%s: eventIDBytes %q %q %v %v %v", tc.name, bkind, b, blocal, bboth, bok)
		}
	}
}
