package traceevent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// systemRun imports text with system_trace_events chunks of at most chunk
// bytes and returns the rows of that table (kind, seq, data) and the stat.
func systemRun(t *testing.T, text string, chunk int) ([][3]string, *imported) {
	t.Helper()
	mem := rows.NewMemory()
	ts := schema.New()
	res := &imported{mem: mem, log: stat.NewLog(nil), rng: &rows.Range{}, tables: ts}
	im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: res.rng, Log: res.log}, Options{})
	im.system.chunk = chunk
	if err := im.Read(context.Background(), strings.NewReader(text), Input{Path: "test.json"}); err != nil {
		t.Fatal(err)
	}
	im.Finish()
	var out [][3]string
	for i, r := range mem.Rows["system_trace_events"] {
		if r[0].Int != int64(i) {
			t.Fatalf("row %d has id %d", i, r[0].Int)
		}
		out = append(out, [3]string{r[1].Text, fmt.Sprint(r[2].Int), r[3].Text})
	}
	return out, res
}

// systrace returns ftrace-like text of about n bytes, with escapes and
// multi-byte characters.
func systrace(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "  <idle>-0     [00%d] d..2 %d.%06d: sched_switch: prev_comm=\"swapper/é\" prev_pid=0\t\\ next_comm=x\n", i%8, 1000+i/1000, i%1000000)
	}
	return b.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSystemTraceEventsStreamed reads systemTraceEvents strings as the reader
// streams them: the chunks (docs/format/traceevent.md#system_trace_events) are the same as those of the value
// read whole, before and after traceEvents, and a cut or malformed string
// keeps what came before the fault.
func TestSystemTraceEventsStreamed(t *testing.T) {
	const chunk = 3 << 20
	text := systrace(8 << 20)
	ev := `{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"}`

	// The chunks of the value read whole.
	whole := New(Env{Sink: rows.NewMemory(), Tables: schema.New(), Log: stat.NewLog(nil)}, Options{})
	whole.system.chunk = chunk
	whole.systemTraceEvents([]byte(quote(text)))
	whole.app.system.Flush()
	var want [][3]string
	for _, r := range whole.env.Sink.(*rows.Memory).Rows["system_trace_events"] {
		want = append(want, [3]string{r[1].Text, fmt.Sprint(r[2].Int), r[3].Text})
	}
	if len(want) < 3 {
		t.Fatalf("%d chunks from the whole value", len(want))
	}
	for i, w := range want[:len(want)-1] {
		if len(w[2]) > chunk || !strings.HasSuffix(w[2], "\n") {
			t.Fatalf("chunk %d: %d bytes, ends %q", i, len(w[2]), w[2][len(w[2])-5:])
		}
	}

	for _, tt := range []struct {
		name, input string
		want        [][3]string
		stats       []string
	}{
		{"after traceEvents", `{"traceEvents":[` + ev + `],"systemTraceEvents":` + quote(text) + `,"metadata":{"a":1}}`, want,
			[]string{"json_file/received=1", "json_event/received=1", "json_complete/received=1", "json_system_trace_events/received=1"}},
		{"before traceEvents", `{"systemTraceEvents":` + quote(text) + `,"traceEvents":[` + ev + `]}`, want,
			[]string{"json_file/received=1", "json_event/received=1", "json_complete/received=1", "json_system_trace_events/received=1"}},
		{"empty", `{"traceEvents":[],"systemTraceEvents":""}`, [][3]string{{"text", "0", ""}},
			[]string{"json_file/received=1", "json_system_trace_events/received=1"}},
		{"not a string", `{"traceEvents":[],"systemTraceEvents":{"a":[1]}}`, [][3]string{{"json", "0", `{"a":[1]}`}},
			[]string{"json_file/received=1", "json_system_trace_events/received=1"}},
		{"malformed: kept up to the fault, reading goes on", `{"traceEvents":[],"systemTraceEvents":"ab` + "\x01" + `c\"d","metadata":{"k":"v"}}`,
			[][3]string{{"text", "0", "ab"}},
			[]string{"json_file/received=1", "json_system_trace_events/received=1", "json_system_trace_events/invalid_data=1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, res := systemRun(t, tt.input, chunk)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%d rows, want %d", len(got), len(tt.want))
				for i := range min(len(got), len(tt.want)) {
					if got[i] != tt.want[i] {
						t.Errorf("row %d: %s %s, %d bytes; want %s %s, %d bytes", i, got[i][0], got[i][1], len(got[i][2]),
							tt.want[i][0], tt.want[i][1], len(tt.want[i][2]))
					}
				}
			}
			if s := res.stats(); !slices.Equal(s, tt.stats) {
				t.Errorf("stat %q, want %q", s, tt.stats)
			}
			if strings.Contains(tt.input, `"metadata"`) && len(res.table("trace_config", "key")) == 3 {
				t.Errorf("the member after systemTraceEvents was not read: %q", res.table("trace_config", "key"))
			}
		})
	}

	t.Run("cut by the end of the input", func(t *testing.T) {
		enc := quote(text)
		got, res := systemRun(t, `{"traceEvents":[`+ev+`],"systemTraceEvents":`+enc[:5<<20], chunk)
		var joined strings.Builder
		for i, g := range got {
			if g[0] != "text" || g[1] != fmt.Sprint(i) {
				t.Fatalf("row %d: %s %s", i, g[0], g[1])
			}
			joined.WriteString(g[2])
		}
		if n := joined.Len(); n < 4<<20 || !strings.HasPrefix(text, joined.String()) {
			t.Errorf("kept %d bytes, not the %d-byte text's start", n, len(text))
		}
		if s := strings.Join(res.stats(), " "); !strings.Contains(s, "json_file/data_lost=1") || !strings.Contains(s, "json_complete/received=1") {
			t.Errorf("stat %s", s)
		}
	})
}

// TestReaderStreamsSystemText checks that the reader hands a long
// systemTraceEvents string over in bounded parts instead of keeping it.
func TestReaderStreamsSystemText(t *testing.T) {
	text := systrace(5 << 20)
	var got strings.Builder
	parts, ends, largest := 0, 0, 0
	rd, err := tokenizer.NewReaderText(strings.NewReader(`{"traceEvents":[{"ph":"i"}],"systemTraceEvents":`+quote(text)+`}`),
		func(part []byte, end bool) {
			got.Write(part)
			parts++
			largest = max(largest, len(part))
			if end {
				ends++
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
	}
	if got.String() != text || ends != 1 || parts < 4 || largest > 2<<20 {
		t.Errorf("%d bytes in %d parts (largest %d), %d ends; want the %d-byte text in parts of about 1 MiB, one end",
			got.Len(), parts, largest, ends, len(text))
	}
	if v, ok := rd.Other["systemTraceEvents"]; !ok || v != nil || rd.Problems != (tokenizer.Problems{}) {
		t.Errorf("Other holds %d bytes (present %v), problems %+v", len(v), ok, rd.Problems)
	}
}
