package traceevent

import (
	"bytes"
	"context"
	"testing"
	"unicode/utf8"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// FuzzImport runs the whole importer on arbitrary input, with a tiny sort
// budget so that sorted runs spill to disk: no panic, callstack ids are
// 0, 1, 2, … in row order, every argsetid names an arg set that has rows,
// every flow event received is a flow_event row whose slice and arrow
// exist, and every data_dict text (argument keys and strings) is valid UTF-8.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		`[{"ph":"B","pid":1,"tid":1,"ts":1,"name":"a","args":{"x":1}},{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1},{"ph":"E","ts":5,"pid":1,"tid":1,"args":{"y":[1]}}]`,
		`[{"ph":"b","cat":"c","id2":{"local":1},"pid":1,"ts":1},{"ph":"n","cat":"c","id2":{"local":1},"pid":1,"ts":2},{"ph":"e","cat":"c","id2":{"local":1},"pid":1,"ts":3}]`,
		`[{"ph":"S","id":5,"name":"l","ts":0},{"ph":"T","id":5,"name":"l","ts":1,"args":{"step":"s"}},{"ph":"p","id":5,"name":"l","ts":2},{"ph":"F","id":5,"name":"l","ts":3}]`,
		`[{"ph":"X","ts":0,"dur":5,"tid":1,"bind_id":1,"flow_out":true},{"ph":"s","id":1,"ts":1,"tid":1},{"ph":"f","id":1,"ts":9,"tid":2},{"ph":"X","ts":9,"dur":1,"tid":2,"bind_id":1,"flow_in":true}]`,
		`{"traceEvents":[{"ph":"C","ts":1,"name":"m","args":{"a":1,"b":"2.5"}},{"ph":"v","id":"1","ts":2,"args":{"dumps":{"process_totals":{"x":"10"}}}},{"ph":"O","id":1,"ts":3,"args":{"snapshot":{"a":1}}}],"stackFrames":{"1":{"name":"f"},"2":{"name":"g","parent":"1"}},"samples":[{"tid":1,"ts":4,"sf":"2"}],"metadata":{"a":[1,{"b":null}]},"systemTraceEvents":"x\n"}`,
		`[{"ph":"P","name":"Profile","id":"0x1","ts":1,"pid":1,"tid":1,"args":{"data":{"startTime":1}}},{"ph":"P","name":"ProfileChunk","id":"0x1","ts":2,"pid":1,"tid":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"a"}},{"id":2,"parent":1,"callFrame":{"functionName":"b"}}],"samples":[1,2]},"timeDeltas":[1,2]}}}]`,
		`[{"ph":"X","ts":0,"dur":10,"tid":1},{"ph":"s","cat":"input","id":1,"ts":10,"tid":1},{"ph":"X","ts":10,"dur":5,"tid":1},{"ph":"f","cat":"input","id":1,"ts":11,"tid":1,"bp":"e"},{"ph":"t","cat":"input","id":1,"ts":12,"tid":1,"args":{"step":"s"}},{"ph":"f","cat":"input","id":1,"ts":13,"tid":1},{"ph":"i","ts":20,"tid":2},{"ph":"s","id":{},"ts":20,"tid":2},{"ph":"B","ts":21,"tid":2},{"ph":"E","ts":22,"tid":2},{"ph":"t","id":2,"ts":22,"tid":2}]`,
		"[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"args\":{\"a\":1,\"a\":{\"b\":\"\xff\"},\"k\xfe\":[\"\\ud800\"],\"c\":{\"d\":1,\"d\":2}}},{\"ph\":\"i\",\"s\":\"p\",\"ts\":2,\"args\":{\"x\":1,\"x\":2,\"x\":\"\xc3\"}}]",
		`[{"ph":"M","name":"process_name","pid":"gpu","args":{"name":"G"}},{"ph":"c","ts":1,"args":{"sync_id":"a"}},{"ph":"(","id":1,"ts":2},{"ph":")","id":1,"ts":3},{"ph":"=","id":1,"ts":4,"args":{"linked_id":2}},{"ph":"i","s":"p","ts":5},{"ph":"N","id":1,"ts":6},{"ph":"D","id":1,"ts":7}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzImport")
		mem := rows.NewMemory()
		ts := schema.New()
		dict := tables.NewDict(mem, ts)
		im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: &rows.Range{}, Log: stat.NewLog(nil)},
			Options{SortBudget: 256})
		if err := im.Read(context.Background(), bytes.NewReader(data), Input{Path: "fuzz"}); err != nil {
			return
		}
		im.Finish()
		sets := map[int64]bool{}
		for _, r := range mem.Rows["args"] {
			sets[r[4].Int] = true
		}
		for i, r := range mem.Rows["callstack"] {
			if r[0].Int != int64(i) {
				t.Fatalf("callstack row %d has id %d", i, r[0].Int)
			}
			if !r[9].Null && !sets[r[9].Int] {
				t.Fatalf("callstack %d: arg set %d has no rows", i, r[9].Int)
			}
		}
		var received, invalid int64
		for _, e := range []stat.Event{stat.JSONFlowStart, stat.JSONFlowStep, stat.JSONFlowEnd} {
			received += im.env.Log.Count(e, stat.Received)
			invalid += im.env.Log.Count(e, stat.InvalidData)
		}
		for _, r := range mem.Rows["data_dict"] {
			if !utf8.ValidString(r[1].Text) {
				t.Fatalf("data_dict %d: invalid UTF-8 %q", r[0].Int, r[1].Text)
			}
		}
		events := mem.Rows["flow_event"]
		if n := int64(len(events)); n < received || n > received+invalid {
			t.Fatalf("%d flow_event rows for %d flow events received, %d invalid", n, received, invalid)
		}
		for i, r := range events {
			if r[0].Int != int64(i) {
				t.Fatalf("flow_event row %d has id %d", i, r[0].Int)
			}
			if slice := r[8]; !slice.Null && slice.Int >= int64(len(mem.Rows["callstack"])) {
				t.Fatalf("flow_event %d: slice %d not made", i, slice.Int)
			}
			if arrow := r[9]; !arrow.Null && arrow.Int >= int64(len(mem.Rows["flow"])) {
				t.Fatalf("flow_event %d: arrow %d not made", i, arrow.Int)
			}
			if !r[10].Null && !sets[r[10].Int] {
				t.Fatalf("flow_event %d: arg set %d has no rows", i, r[10].Int)
			}
		}
	})
}
