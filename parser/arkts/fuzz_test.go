package arkts

import (
	"context"
	"tracestreamer/internal/testutil"

	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"tracestreamer/heapfile"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// FuzzRoute checks that routing any message never panics and that markers and
// chunks are only reported for messages that are JSON objects.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{`{"id":1,"result":{}}`, `{"id":3,"result":{"profile":` + refProfile + `}}`,
		`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":"{\"snapshot\":1}"}}`,
		`{"method":"HeapProfiler.reportHeapSnapshotProgress","params":{"done":0,"total":9}}`,
		`{"id":3,"result":{"profile":{"nodes":[{"id":1,"callFrame":{"functionName":"a"b","scriptId":"0"}}]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		testutil.CountExec("FuzzRoute")
		m := route(msg, nil)
		if (m.kind == kindMarker || m.kind == kindChunk) && !bytes.HasPrefix(bytes.TrimLeft(msg, " \t\r\n"), []byte("{")) {
			t.Fatalf("kind %d for %q", m.kind, msg)
		}
	})
}

// FuzzParser drives the whole state machine with a sequence of messages (the
// fuzz input split at NUL bytes; a leading byte picks the heap mode): no panic,
// no deadlock of the heap decoder goroutine, and heap files numbered 0, 1, ….
func FuzzParser(f *testing.F) {
	text := refSnapshot(`"node_count":3,"edge_count":5,"trace_function_count":0`, nodesB, edges5, emptyRst)
	seq := func(mode byte, msgs ...string) []byte {
		b := []byte{mode}
		for i, m := range msgs {
			if i > 0 {
				b = append(b, 0)
			}
			b = append(b, m...)
		}
		return b
	}
	chunk := func(s string) string {
		return `{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":` + string(jsonQuote(s)) + `}}`
	}
	f.Add(seq(0, chunk(text[:50]), chunk(text[50:]), `{"id":1,"result":{}}`, `{"id":3,"result":{"profile":`+refProfile+`}}`))
	f.Add(seq(1, `{"id":1,"result":{}}`, chunk(text), `{"id":2,"result":{}}`))
	f.Add(seq(2, `{"id":3,"result":{}}`, `{"id":3,"result":{"profile":`+refProfile+`}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		testutil.CountExec("FuzzParser")
		if len(data) == 0 {
			return
		}
		m := rows.NewMemory()
		ts := schema.New()
		rng := &rows.Range{}
		dict := tables.NewDict(m, ts)
		log := stat.NewLog(nil)
		heap := heapfile.New(m, ts, log, heapfile.Options{})
		p := New(Env{Sink: m, Tables: ts, Range: rng, Log: log, Heap: heap,
			CPU: cpuprofile.NewWriter(m, ts, dict, rng)}, Options{})
		cfg, _ := proto.Marshal(&hiprofpb.ArkTSConfig{Type: hiprofpb.ArkTSConfig_HeapType(int32(data[0]%3) - 1)})
		p.Config(cfg, "config")
		for i, msg := range bytes.Split(data[1:], []byte{0}) {
			res, _ := proto.Marshal(&hiprofpb.ArkTSResult{Result: msg})
			p.Result(context.Background(), res, int64(i), htrace.Clock{}, "fuzz")
		}
		p.Finish()
		heap.Flush()
		for i, r := range m.Rows["js_heap_files"] {
			if r[0].Int != int64(i) {
				t.Fatalf("heap file %d has id %d", i, r[0].Int)
			}
		}
	})
}

func jsonQuote(s string) []byte {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.Bytes()
}
