package traceevent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
)

// FuzzTraceEvent reads arbitrary input as a trace file and decodes every element:
// no panic, elements in order, each inside the input, and no more streamed
// systemTraceEvents text than there is input.
func FuzzTraceEvent(f *testing.F) {
	for _, s := range []string{`[{"ph":"B","ts":1,"pid":1,"tid":1,"name":"a"},{"ph":"E","ts":2}]`,
		`{"metadata":{},"traceEvents":[{"ph":"X","ts":"1.5","dur":2,"args":{"a":[1,],}},{}],}`,
		"[{\"ph\":\"i\",\"s\":\"g\"},\n", `{"traceEvents":[{"a":"]}"`,
		`{"systemTraceEvents":"a\\\"b\n","traceEvents":[{"ph":"i"}],"systemTraceEvents":"c`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzTraceEvent")
		text := 0 // bytes of systemTraceEvents text streamed
		r, err := NewReaderText(bytes.NewReader(data), func(part []byte, end bool) { text += len(part) })
		if err != nil {
			return
		}
		defer func() {
			if text > len(data) {
				t.Fatalf("%d bytes of systemTraceEvents text from %d bytes of input", text, len(data))
			}
		}()
		last := int64(-1)
		for {
			el, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if el.Seq <= last || el.Offset < 0 || el.Offset+int64(len(el.Raw)) > int64(len(data)) {
				t.Fatalf("element %d at %d (%d bytes) after %d, input %d bytes", el.Seq, el.Offset, len(el.Raw), last, len(data))
			}
			last = el.Seq
			Decode(el)
		}
	})
}

// FuzzImport runs the whole importer on arbitrary input, with a tiny sort
// budget so that sorted runs spill to disk: no panic, callstack ids are
// 0, 1, 2, … in row order, and every argsetid names an arg set that has rows.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		`[{"ph":"B","pid":1,"tid":1,"ts":1,"name":"a","args":{"x":1}},{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1},{"ph":"E","ts":5,"pid":1,"tid":1,"args":{"y":[1]}}]`,
		`[{"ph":"b","cat":"c","id2":{"local":1},"pid":1,"ts":1},{"ph":"n","cat":"c","id2":{"local":1},"pid":1,"ts":2},{"ph":"e","cat":"c","id2":{"local":1},"pid":1,"ts":3}]`,
		`[{"ph":"S","id":5,"name":"l","ts":0},{"ph":"T","id":5,"name":"l","ts":1,"args":{"step":"s"}},{"ph":"p","id":5,"name":"l","ts":2},{"ph":"F","id":5,"name":"l","ts":3}]`,
		`[{"ph":"X","ts":0,"dur":5,"tid":1,"bind_id":1,"flow_out":true},{"ph":"s","id":1,"ts":1,"tid":1},{"ph":"f","id":1,"ts":9,"tid":2},{"ph":"X","ts":9,"dur":1,"tid":2,"bind_id":1,"flow_in":true}]`,
		`{"traceEvents":[{"ph":"C","ts":1,"name":"m","args":{"a":1,"b":"2.5"}},{"ph":"v","id":"1","ts":2,"args":{"dumps":{"process_totals":{"x":"10"}}}},{"ph":"O","id":1,"ts":3,"args":{"snapshot":{"a":1}}}],"stackFrames":{"1":{"name":"f"},"2":{"name":"g","parent":"1"}},"samples":[{"tid":1,"ts":4,"sf":"2"}],"metadata":{"a":[1,{"b":null}]},"systemTraceEvents":"x\n"}`,
		`[{"ph":"P","name":"Profile","id":"0x1","ts":1,"pid":1,"tid":1,"args":{"data":{"startTime":1}}},{"ph":"P","name":"ProfileChunk","id":"0x1","ts":2,"pid":1,"tid":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"a"}},{"id":2,"parent":1,"callFrame":{"functionName":"b"}}],"samples":[1,2]},"timeDeltas":[1,2]}}}]`,
		`[{"ph":"M","name":"process_name","pid":"gpu","args":{"name":"G"}},{"ph":"c","ts":1,"args":{"sync_id":"a"}},{"ph":"(","id":1,"ts":2},{"ph":")","id":1,"ts":3},{"ph":"=","id":1,"ts":4,"args":{"linked_id":2}},{"ph":"i","s":"p","ts":5},{"ph":"N","id":1,"ts":6},{"ph":"D","id":1,"ts":7}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzImport")
		mem := rows.NewMemory()
		ts := schema.New()
		dict := rows.NewDict(mem, ts.DataDict)
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
	})
}

// FuzzFastDecode checks that the fast element decoder accepts only what the
// general one accepts and decodes it to the same event, and that the event
// survives its trip through an event record.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"ph":"X","pid":1,"tid":"a","ts":1.5,"dur":"2","name":"n","cat":"c","args":{"a":[1,{"b":null}],"c":"\u00e9\n"}}`,
		`{"ph":"B","ts":1,"ts":2,"args":{}}`, `{"ph":"E","args":{"a":1,}}`, `{"ph":"i","s":"g","name":"\ud83d\ude00"}`,
		`{"a":tru}`, `{"a":1 "b":2}`, `{"a\"b":1}`, ` { "ph" : "C" , "args" : { "v" : -1e3 } } `, `{"id2":{"local":"0x1"},"bind_id":7}`,
		`{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`, `{"s":"a` + "\x01" + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzFastDecode")
		fast, general := Decoder{}, Decoder{general: true}
		e1, err1 := fast.Decode(&Element{Raw: data})
		e2, err2 := general.Decode(&Element{Raw: data})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("fast error %v, general error %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(*e1, *e2) {
			t.Fatalf("fast %+v\ngeneral %+v", *e1, *e2)
		}
		if err1 == nil {
			checkRecord(t, e1)
		}
	})
}

// checkRecord checks that ev comes back unchanged from its event record.
func checkRecord(t *testing.T, ev *Event) {
	t.Helper()
	want := *ev
	want.Seq, want.Offset = 0, 0
	var d Decoder
	got, err := d.decodeRecord(appendRecord(nil, ev))
	if err != nil {
		t.Fatalf("record of %+v: %v", want, err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("record gave %+v\nwant %+v", *got, want)
	}
}
