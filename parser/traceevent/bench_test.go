package traceevent

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// benchTrace is an unsorted array trace of n tasks: B/E with nested X
// children (written child-first), args and thread times.
func benchTrace(n int) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := range n {
		tid := 1 + i%8
		ts := float64(i/8) * 100
		fmt.Fprintf(&b, `{"pid":1,"tid":%d,"ts":%.3f,"ph":"B","cat":"toplevel","name":"RunTask","tts":%.3f,"args":{"src_file":"a.cc","src_func":"Post"}},`+"\n", tid, ts, ts/3)
		fmt.Fprintf(&b, `{"pid":1,"tid":%d,"ts":%.3f,"ph":"X","cat":"blink","name":"Layout","dur":10.5,"tts":%.3f,"tdur":8.25,"args":{"data":{"frame":"0x7f3a%d","nodes":%d}}},`+"\n", tid, ts+20, ts/3, i%64, i%5000)
		fmt.Fprintf(&b, `{"pid":1,"tid":%d,"ts":%.3f,"ph":"X","cat":"v8","name":"v8.run","dur":40,"tts":%.3f,"tdur":30}`+",\n", tid, ts+1, ts/3)
		fmt.Fprintf(&b, `{"pid":1,"tid":%d,"ts":%.3f,"ph":"E","cat":"toplevel","name":"RunTask","tts":%.3f},`+"\n", tid, ts+50, ts/3+10)
	}
	b.WriteString(`{"ph":"M","pid":1,"name":"process_name","args":{"name":"bench"}}]`)
	return b.Bytes()
}

// BenchmarkReader measures the container reader that cuts a file into
// elements.
func BenchmarkReader(b *testing.B) {
	data := benchTrace(20000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, err := tokenizer.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// BenchmarkDecode measures the element decoder on typical events.
func BenchmarkDecode(b *testing.B) {
	raw := []byte(`{"pid":1,"tid":3,"ts":123456.789,"ph":"X","cat":"blink","name":"Layout","dur":10.5,"tts":41152.263,"tdur":8.25,"args":{"data":{"frame":"0x7f3a12","nodes":431}}}`)
	var d event.Decoder
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := d.Decode(&tokenizer.Element{Raw: raw}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport measures the whole importer (read, sort, build rows) into
// a sink that discards rows, with a sort budget small enough to spill.
func BenchmarkImport(b *testing.B) {
	data := benchTrace(20000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		mem := discard{}
		ts := schema.New()
		im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{},
			Log: stat.NewLog(nil)}, Options{SortBudget: 4 << 20})
		if err := im.Read(context.Background(), bytes.NewReader(data), Input{Path: "bench"}); err != nil {
			b.Fatal(err)
		}
		im.Finish()
	}
}

// BenchmarkImportCaptures imports each bundled real capture (Chromium busy
// page and startup, node I/O program and short script), read into memory
// beforehand, into a sink that discards rows, with the default options.
// MB/s are per byte of JSON.
func BenchmarkImportCaptures(b *testing.B) {
	files, size := testutil.Captures(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for i, data := range files {
			mem := discard{}
			ts := schema.New()
			im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{},
				Log: stat.NewLog(nil)}, Options{})
			if err := im.Read(context.Background(), bytes.NewReader(data), Input{Path: fmt.Sprint("capture", i)}); err != nil {
				b.Fatal(err)
			}
			im.Finish()
		}
	}
}

// discard is a sink that drops every row.
type discard struct{}

func (discard) NewBatch(t *schema.Table) *rows.Batch {
	b := &rows.Batch{}
	b.Reset(t)
	return b
}
func (discard) Put(*rows.Batch)                {}
func (discard) Mark([]*schema.Table) rows.Mark { return 0 }
func (discard) Rollback(rows.Mark)             {}
func (discard) Err() error                     { return nil }
