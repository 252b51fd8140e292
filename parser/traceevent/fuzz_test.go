package traceevent

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"tracestreamer/internal/testutil"
)

// FuzzTraceEvent reads arbitrary input as a trace file and decodes every element:
// no panic, elements in order, each inside the input.
func FuzzTraceEvent(f *testing.F) {
	for _, s := range []string{`[{"ph":"B","ts":1,"pid":1,"tid":1,"name":"a"},{"ph":"E","ts":2}]`,
		`{"metadata":{},"traceEvents":[{"ph":"X","ts":"1.5","dur":2,"args":{"a":[1,],}},{}],}`,
		"[{\"ph\":\"i\",\"s\":\"g\"},\n", `{"traceEvents":[{"a":"]}"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzTraceEvent")
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
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
