package tracker

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tracestreamer/stat"
)

func TestStackFrames(t *testing.T) {
	f := NewFrames()
	const top = `{"1":{"name":"main","category":"app"},"2":{"name":"run","parent":1},"3":{"name":"x","parent":"9"}}`
	if _, err := f.AddStackFrames([]byte(top), "stackFrames", -1, nil, 0, AtFrameValue); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddStackFrames([]byte(`{"1":{"name":"pmain"},"2":{"name":"pchild","parent":"1"}}`), "metadata", 4, nil, 0, 0); err != nil {
		t.Fatal(err)
	}
	f.addV8Node(0, 4, v8Node{ID: 1, FunctionName: "(root)"}, 50)
	f.addV8Node(0, 4, v8Node{ID: 2, Parent: 1, HasParent: true, FunctionName: "f", URL: "a.js", Line: 3, Column: 4}, 50)
	unknown, first := f.Resolve()
	var got []string
	for _, fr := range f.Rows {
		got = append(got, fmt.Sprintf("%d %s %s %s p%d", fr.ID, fr.Source, fr.Key, fr.Name, fr.ParentID))
	}
	want := []string{"0 stackFrames 1 main p-1", "1 stackFrames 2 run p0", "2 stackFrames 3 x p-1",
		"3 metadata 1 pmain p-1", "4 metadata 2 pchild p3", "5 v8_profile 1 (root) p-1", "6 v8_profile 2 f p5"}
	if !reflect.DeepEqual(got, want) || unknown != 1 || first != int64(strings.Index(top, `{"name":"x"`)) {
		t.Errorf("frames %q (unknown parents %d, first at %d)", got, unknown, first)
	}
	for _, tc := range []struct {
		raw          string
		id           int
		valid, found bool
	}{
		{`"2"`, 1, true, true},
		{` 2`, 1, true, true},
		{`"\u0032"`, 1, true, true},
		{`2.0e0`, 1, true, true}, // a float's text is its shortest round-trip one
		{`"2.0"`, -1, true, false},
		{`"9"`, 0, true, false},
		{`{}`, -1, false, false},
	} {
		id, valid, found := f.Ref([]byte(tc.raw))
		if valid != tc.valid || found != tc.found || found && id != tc.id {
			t.Errorf("sf %s: frame %d valid %v found %v, want %d %v %v", tc.raw, id, valid, found, tc.id, tc.valid, tc.found)
		}
	}
	if id, ok := f.v8Frame(0, 4, 2); !ok || id != 6 {
		t.Errorf("v8 frame %d %v", id, ok)
	}
}

// TestUnknownParentOffsets checks the offsets Resolve gives: that of the
// frame's value for top-level frames, of the event for M and v8 frames, the
// lowest of those in the file read last.
func TestUnknownParentOffsets(t *testing.T) {
	for _, tc := range []struct {
		name           string
		add            func(f *Frames)
		unknown, first int64
	}{
		{"top-level", func(f *Frames) {
			f.AddStackFrames([]byte(`{"1":{"name":"a"}, "2": {"parent":"9"},"3":{"parent":"8"}}`), "stackFrames", -1, cells{}, 1000, AtFrameValue)
		}, 2, 1000 + 24},
		{"M events", func(f *Frames) {
			f.AddStackFrames([]byte(`{"1":{"parent":"9"}}`), "metadata", 1, nil, 700, 700)
			f.AddStackFrames([]byte(`{"1":{"parent":"9"}}`), "metadata", 2, nil, 300, 300)
		}, 2, 300},
		{"v8 nodes", func(f *Frames) {
			f.addV8Node(0, 1, v8Node{ID: 2, Parent: 1, HasParent: true}, 90)
			f.addV8Node(0, 1, v8Node{ID: 1}, 80)
			f.addV8Node(1, 1, v8Node{ID: 2, Parent: 1, HasParent: true}, 70) // another profile
		}, 1, 70},
		{"earlier file", func(f *Frames) {
			f.AddStackFrames([]byte(`{"1":{"parent":"9"}}`), "metadata", 1, nil, 10, 10)
			f.NextFile()
			f.AddStackFrames([]byte(`{"2":{"parent":"9"}}`), "metadata", 1, nil, 500, 500)
		}, 2, 500},
		{"earlier file only", func(f *Frames) {
			f.AddStackFrames([]byte(`{"1":{"parent":"9"}}`), "metadata", 1, nil, 10, 10)
			f.NextFile()
			f.AddStackFrames([]byte(`{"9":{}}`), "metadata", 2, nil, 500, 500)
		}, 1, -1},
		{"none", func(f *Frames) {
			f.AddStackFrames([]byte(`{"1":{},"2":{"parent":1}}`), "stackFrames", -1, cells{}, 0, AtFrameValue)
		}, 0, -1},
	} {
		f := NewFrames()
		f.NextFile()
		tc.add(f)
		if unknown, first := f.Resolve(); unknown != tc.unknown || first != tc.first {
			t.Errorf("%s: %d unknown parents first at %d, want %d at %d", tc.name, unknown, first, tc.unknown, tc.first)
		}
	}
}

// offsetLog records the byte offsets problems are counted at.
type offsetLog []int64

func (l *offsetLog) Add(_ stat.Event, _ stat.Type, _, off int64) { *l = append(*l, off) }

// TestStackFrameOffsets: where texts are counted (to st, or not at all)
// and the offset a frame keeps for the warning (its value's, or the one
// given) are chosen apart.
func TestStackFrameOffsets(t *testing.T) {
	const raw = `{"1":{"name":"\ud800"}, "2": {"parent":"9"}}`
	first, second := int64(1000+5), int64(1000+strings.Index(raw, `{"parent"`))
	for _, tc := range []struct {
		name    string
		counted bool  // st set
		at      int64 // AddStackFrames' at
		want    int64 // Resolve's first
	}{
		{"counted, at each value", true, AtFrameValue, second},
		{"not counted, at each value", false, AtFrameValue, second},
		{"not counted, at the event", false, 300, 300},
		{"counted, at the event", true, 300, 300},
	} {
		f := NewFrames()
		var log offsetLog
		var st Stats
		if tc.counted {
			st = &log
		}
		if n, err := f.AddStackFrames([]byte(raw), "stackFrames", -1, st, 1000, tc.at); n != 2 || err != nil {
			t.Fatalf("%s: %d frames, %v", tc.name, n, err)
		}
		if unknown, got := f.Resolve(); unknown != 1 || got != tc.want {
			t.Errorf("%s: %d unknown parents first at %d, want 1 at %d", tc.name, unknown, got, tc.want)
		}
		var want []int64
		if tc.counted {
			want = []int64{first}
		}
		if !slices.Equal(log, want) {
			t.Errorf("%s: counted at %v, want %v", tc.name, log, want)
		}
	}
}

// TestFrameLookupsAllocate checks that looking up the usual sf ids and V8
// nodes makes no text.
func TestFrameLookupsAllocate(t *testing.T) {
	f := NewFrames()
	f.AddStackFrames([]byte(`{"12345":{"name":"a"},"0x1f":{"name":"b"}}`), "stackFrames", -1, nil, 0, AtFrameValue)
	f.addV8Node(0, 1, v8Node{ID: 123456}, 0)
	for _, raw := range [][]byte{[]byte(`12345`), []byte(`"0x1f"`)} {
		if n := testing.AllocsPerRun(100, func() { f.Ref(raw) }); n != 0 {
			t.Errorf("Ref(%s): %v allocations", raw, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { f.v8Frame(0, 1, 123456) }); n != 0 {
		t.Errorf("v8Frame: %v allocations", n)
	}
}
