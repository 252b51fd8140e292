package tracker

import (
	"slices"
	"testing"
)

// TestPending: an event that makes rows of one kind only makes Pending true
// (the importer asks it before Take, and takes nothing when it is false),
// Take hands over just those rows, and Pending is false after it.
func TestPending(t *testing.T) {
	for _, tc := range []struct {
		name string
		// run feeds the events; the rows of all but the last are taken
		// first. pending and take are the tracker's.
		run     func(t *testing.T, raw string) (pending func() bool, take func() []int)
		events  []string
		wantLen []int // the lengths of each kind of row of the last event, in Take's order
	}{
		{"flow event (v1 s)", flowsRun(), []string{`{"ph":"s","ts":1,"tid":1,"cat":"c","name":"m","id":5}`}, []int{0, 1}},
		{"arrow (v2)", flowsRun(), []string{
			`{"ph":"X","ts":60,"dur":5,"tid":1,"name":"P","bind_id":"0x9","flow_out":true}`,
			`{"ph":"X","ts":70,"dur":5,"tid":2,"name":"Q","bind_id":"0x9","flow_in":true}`}, []int{1, 0}},
		{"clock sync", markersRun(), []string{`{"ph":"c","ts":10,"args":{"sync_id":"abc"}}`}, []int{1, 0, 0}},
		{"context", markersRun(), []string{`{"ph":"(","ts":12,"name":"FrameBlame","id":"0x5"}`}, []int{0, 1, 0}},
		{"linked id", markersRun(), []string{`{"ph":"=","ts":15,"name":"n","id":"0x5","args":{"linked_id":"0x6"}}`}, []int{0, 0, 1}},
		{"global dump", dumpsRun(), []string{`{"ph":"V","ts":7,"id":"0xd1","args":{"x":1}}`}, []int{1, 0, 0}},
		{"process dump", dumpsRun(), []string{`{"ph":"v","ts":5,"id":"0xd1","args":{"dumps":{"allocators":{"m":{"guid":"g1",` +
			`"attrs":{"size":{"type":"scalar","units":"bytes","value":"ff"}}}},` +
			`"allocators_graph":[{"source":"g1","target":"g2","importance":2,"type":"ownership"}]}}}`}, []int{1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pending func() bool
			var take func() []int
			for i, raw := range tc.events {
				pending, take = tc.run(t, raw)
				if i < len(tc.events)-1 {
					take()
				}
			}
			if !pending() {
				t.Fatalf("Pending false after rows %v were made", tc.wantLen)
			}
			if got := take(); !slices.Equal(got, tc.wantLen) {
				t.Errorf("Take: rows %v, want %v", got, tc.wantLen)
			}
			if pending() {
				t.Errorf("Pending true after Take")
			}
		})
	}
}

func flowsRun() func(*testing.T, string) (func() bool, func() []int) {
	st := cells{}
	s := NewSlices(st, 0)
	f := NewFlows(s, st)
	return func(t *testing.T, raw string) (func() bool, func() []int) {
		feed(t, s, f, raw)
		return f.Pending, func() []int { r := f.Take(); return []int{len(r.Arrows), len(r.Events)} }
	}
}

func markersRun() func(*testing.T, string) (func() bool, func() []int) {
	m := NewMarkers(cells{})
	return func(t *testing.T, raw string) (func() bool, func() []int) {
		ev := decodeAll(t, raw)[0]
		switch ev.Ph {
		case 'c':
			m.ClockSync(1, ev)
		case '(', ')':
			m.Context(1, 1, ev)
		case '=':
			m.Link(1, ev)
		}
		return m.Pending, func() []int {
			r := m.Take()
			return []int{len(r.ClockSyncs), len(r.Contexts), len(r.Linked)}
		}
	}
}

func dumpsRun() func(*testing.T, string) (func() bool, func() []int) {
	m := NewMemoryDumps(nil)
	return func(t *testing.T, raw string) (func() bool, func() []int) {
		m.Add(1, 2, decodeAll(t, raw)[0])
		return m.Pending, func() []int { r := m.Take(); return []int{len(r.Dumps), len(r.Values), len(r.Edges)} }
	}
}
