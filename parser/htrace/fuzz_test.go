package htrace

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"tracestreamer/internal/testutil"

	"tracestreamer/proto/hiprofpb"
	"tracestreamer/stat"
)

// FuzzReader feeds arbitrary bytes to the record reader: it must never panic,
// and records must come in increasing offset order inside the input.
func FuzzReader(f *testing.F) {
	var clocks [NumClocks]uint64
	clocks[ClockBoottime], clocks[ClockRealtime] = 5, 9
	good := build(f, clocks, rec("arkts-plugin_config", 0, 0), rec("arkts-plugin", 1, 2), rec("cpu-plugin", 3, 0))
	f.Add(good)
	f.Add(good[:HeaderSize+3])
	f.Add(append(bytes.Clone(good), AppendHeader(nil, Header{Magic: Magic, Length: HeaderSize + 4, DataType: DataHiperf})...))
	f.Add([]byte("MarkPositionJSON->{}\n" + string(good)))
	f.Add(build(f, [NumClocks]uint64{}, &hiprofpb.ProfilerPluginData{Name: "arkts-plugin", Data: []byte(`{"id":1,"result":{}}`)}))
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzReader")
		r := NewReader(bytes.NewReader(data), "fuzz", stat.NewLog(nil))
		last := int64(-1)
		for {
			rec, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrNotHTrace) && len(data) >= HeaderSize && r.Records() > 0 {
					t.Fatalf("error after records: %v", err)
				}
				return
			}
			if rec.Offset <= last || rec.Offset >= int64(len(data)) {
				t.Fatalf("record at offset %d after %d (input %d bytes)", rec.Offset, last, len(data))
			}
			last = rec.Offset
			rec.Time()
		}
	})
}
