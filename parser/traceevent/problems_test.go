package traceevent

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// TestProblemsReachLog counts every Trace Event cell in an input's problems
// and finds each count in the run's Log after flush, with one warning per
// problem cell naming its first offset.
func TestProblemsReachLog(t *testing.T) {
	for _, typ := range stat.Types() {
		if typ >= 1<<typeBits {
			t.Fatalf("stat type %s (%d) does not fit the %d bits of a cell's index", typ, typ, typeBits)
		}
	}
	var p problems
	p.init()
	n := int64(1)
	want := map[[2]stat.Event]int64{}
	for _, e := range stat.Events() {
		if !e.IsJSON() {
			continue
		}
		for _, typ := range stat.Types() {
			p.Add(e, typ, n, 100+n)
			want[[2]stat.Event{e, stat.Event(typ)}] = n
			n++
		}
	}
	var out bytes.Buffer
	log := stat.NewLog(&out)
	p.flush(log, "in.json")
	for k, c := range want {
		if got := log.Count(k[0], stat.Type(k[1])); got != c {
			t.Errorf("%s/%s: %d, want %d", k[0], stat.Type(k[1]), got, c)
		}
	}
	if got := strings.Count(out.String(), "\n"); got != 45*4 {
		t.Errorf("%d warnings, want %d (one per problem cell)", got, 45*4)
	}
	if !strings.Contains(out.String(), "tracestreamer: warning: in.json: json_file data_lost: 2 (first at byte 102)\n") {
		t.Errorf("warnings:\n%.300s", out.String())
	}
}

// TestUnknownParentWarnings imports files whose frames name parents that no
// frame of their set has: the warning names the lowest byte offset of what
// defined such a frame (a top-level frame's value, the M or ProfileChunk
// event) in the file read last, "at the end of input" when they are all in
// earlier files. A parent found in a later file is no problem.
func TestUnknownParentWarnings(t *testing.T) {
	const frames = `{"traceEvents":[],"stackFrames":{"1":{"name":"a"},"2":{"name":"b","parent":"9"},` +
		`"3": {"name":"c","parent":8}}}`
	const meta = `[{"ph":"i","pid":1,"tid":1,"ts":5,"name":"x"},` + "\n" +
		`{"ph":"M","pid":1,"tid":1,"name":"stackFrames","args":{"stackFrames":{"1":{"name":"m","parent":"7"}}}}]`
	const chunk = `[{"ph":"P","pid":1,"tid":1,"ts":100,"name":"Profile","id":"0x1"},` + "\n" +
		`{"ph":"P","pid":1,"tid":1,"ts":110,"name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":` +
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":5,"callFrame":{"functionName":"f"}}],` +
		`"samples":[2]},"timeDeltas":[1]}}}]`
	// An M event early in the file, top-level frames after the events:
	// the event's offset is the lower.
	const mixed = `{"traceEvents":[{"ph":"M","pid":1,"tid":1,"name":"stackFrames","args":{"stackFrames":` +
		`{"1":{"name":"m","parent":"7"}}}}],` + "\n" + `"stackFrames":{"2":{"name":"b","parent":"9"}}}`
	for _, tc := range []struct {
		name   string
		files  []string
		at     string // the text the offset points at in the last file; "" for none
		want   string // the warning's count and place, "%d" standing for the offset; "" for none
		parent []string
	}{
		{"top-level frames", []string{frames}, `{"name":"b"`, "2 (first at byte %d)", []string{"0 -", "1 -", "2 -"}},
		{"M event", []string{meta}, `{"ph":"M"`, "1 (first at byte %d)", []string{"0 -"}},
		{"ProfileChunk node", []string{chunk}, `{"ph":"P","pid":1,"tid":1,"ts":110`, "1 (first at byte %d)",
			[]string{"0 -", "1 -"}},
		{"M event before top-level frames", []string{mixed}, `{"ph":"M"`, "2 (first at byte %d)", []string{"0 -", "1 -"}},
		{"earlier file only", []string{frames, `[]`}, "", "2 (at the end of input)", []string{"0 -", "1 -", "2 -"}},
		{"earlier and last file", []string{frames, meta}, `{"ph":"M"`, "3 (first at byte %d)",
			[]string{"0 -", "1 -", "2 -", "3 -"}},
		// The top-level frames of all files are one set.
		{"parent in a later file", []string{`{"traceEvents":[],"stackFrames":{"2":{"name":"b","parent":"1"}}}`,
			`{"traceEvents":[],"stackFrames":{"1":{"name":"a"}}}`}, "", "", []string{"0 1", "1 -"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			mem, ts := rows.NewMemory(), schema.New()
			dict := tables.NewDict(mem, ts)
			log := stat.NewLog(&out)
			im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: &rows.Range{}, Log: log}, Options{})
			var last string
			for i, in := range tc.files {
				last = fmt.Sprintf("f%d.json", i)
				if err := im.Read(context.Background(), strings.NewReader(in), Input{Path: last}); err != nil {
					t.Fatal(err)
				}
			}
			im.Finish()
			r := &imported{mem: mem, tables: ts}
			if got := r.table("stack_frame", "id", "parent_id"); !slices.Equal(got, tc.parent) {
				t.Errorf("frames (id parent_id) %q, want %q", got, tc.parent)
			}
			if tc.want == "" {
				if n := log.Count(stat.JSONStackFrames, stat.NotMatch); n != 0 || strings.Contains(out.String(), "json_stack_frames") {
					t.Errorf("%d unknown parents, warnings:\n%s", n, out.String())
				}
				return
			}
			want := tc.want
			if tc.at != "" {
				at := strings.Index(tc.files[len(tc.files)-1], tc.at)
				if at < 0 {
					t.Fatalf("%q not in the input", tc.at)
				}
				want = fmt.Sprintf(tc.want, at)
			}
			want = last + ": json_stack_frames not_match: " + want + "\n"
			if !strings.Contains(out.String(), want) {
				t.Errorf("warnings:\n%s\nwant %q", out.String(), want)
			}
		})
	}
}
