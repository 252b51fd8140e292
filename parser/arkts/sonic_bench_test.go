package arkts

// Benchmarks of route against github.com/bytedance/sonic doing the same job
// on real ArkTS plugin messages: classifying the message and, for a chunk
// event, unescaping params.chunk into the caller's buffer; for a Profiler.stop
// response, finding the raw text of result.profile. TestSonicRouteSame checks
// that the sonic versions agree with route on these messages.

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/bytedance/sonic"
	"github.com/bytedance/sonic/ast"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
)

type sonicParams struct {
	Chunk *string `json:"chunk"`
}

type sonicHead struct {
	ID     *int64                  `json:"id"`
	Method *string                 `json:"method"`
	Params *sonicParams            `json:"params"`
	Result *sonic.NoCopyRawMessage `json:"result"`
}

type sonicResult struct {
	Profile sonic.NoCopyRawMessage `json:"profile"`
}

// sonicRoute is route done with sonic's typed Unmarshal.
func sonicRoute(api sonic.API, msg, chunkBuf []byte) message {
	var h sonicHead
	if err := api.Unmarshal(msg, &h); err != nil {
		return message{kind: kindInvalid, err: err}
	}
	var m message
	if h.ID != nil {
		m.id = *h.ID
	}
	switch {
	case h.Params != nil && h.Params.Chunk != nil && (h.Method == nil || *h.Method == chunkMethod):
		m.kind, m.chunk = kindChunk, append(chunkBuf[:0], *h.Params.Chunk...)
	case h.ID != nil && h.Result != nil:
		var r sonicResult
		if err := api.Unmarshal(*h.Result, &r); err != nil {
			return message{kind: kindInvalid, err: err}
		}
		switch {
		case r.Profile != nil:
			m.kind, m.profile = kindProfile, r.Profile
		case bytes.Equal(bytes.TrimSpace(*h.Result), []byte("{}")):
			m.kind = kindMarker
		}
	}
	return m
}

// astRoute is route done with sonic's lazy ast.Searcher: the member paths
// route needs, looked up one by one.
func astRoute(msg, chunkBuf []byte) message {
	s := ast.NewSearcher(unsafe.String(unsafe.SliceData(msg), len(msg)))
	var m message
	if n, err := s.GetByPath("params", "chunk"); err == nil {
		method, merr := s.GetByPath("method")
		name, _ := method.String()
		if merr != nil || name == chunkMethod {
			text, err := n.String()
			if err != nil {
				return message{kind: kindInvalid, err: err}
			}
			m.kind, m.chunk = kindChunk, append(chunkBuf[:0], text...)
			return m
		}
	}
	id, err := s.GetByPath("id")
	if err != nil {
		return m
	}
	if m.id, err = id.Int64(); err != nil {
		return m
	}
	if p, err := s.GetByPath("result", "profile"); err == nil {
		raw, _ := p.Raw()
		m.kind, m.profile = kindProfile, []byte(raw)
		return m
	}
	if r, err := s.GetByPath("result"); err == nil {
		if raw, _ := r.Raw(); raw == "{}" {
			m.kind = kindMarker
		}
	}
	return m
}

// benchMessages returns real plugin messages: a 64 KiB chunk of the node heap
// snapshot, a progress event, a marker and the Profiler.stop response
// carrying the node CPU profile.
func benchMessages(tb testing.TB) []struct {
	name string
	msg  []byte
	kind kind
} {
	snap := testutil.Fixture(tb, "node/snapshot.heapsnapshot.gz")
	profile := testutil.Fixture(tb, "node/profile.cpuprofile")
	return []struct {
		name string
		msg  []byte
		kind kind
	}{
		{"chunk64k", arktstest.ChunkMessage(snap[1<<20 : 1<<20+64<<10]), kindChunk},
		{"progress", []byte(`{"method":"HeapProfiler.reportHeapSnapshotProgress","params":{"done":120,"total":4096}}`), kindOther},
		{"marker", []byte(`{"id":12,"result":{}}`), kindMarker},
		{"profile", append(append([]byte(`{"id":3,"result":{"profile":`), profile...), "}}"...), kindProfile},
	}
}

func TestSonicRouteSame(t *testing.T) {
	for _, tt := range benchMessages(t) {
		want := route(tt.msg, nil)
		if want.kind != tt.kind {
			t.Fatalf("%s: route kind %d", tt.name, want.kind)
		}
		for _, got := range []message{sonicRoute(sonic.ConfigStd, tt.msg, nil), sonicRoute(sonic.ConfigFastest, tt.msg, nil),
			astRoute(tt.msg, nil)} {
			if got.kind != want.kind || got.id != want.id || !bytes.Equal(got.chunk, want.chunk) ||
				!bytes.Equal(got.profile, want.profile) {
				t.Errorf("%s: sonic kind %d id %d chunk %d bytes profile %d bytes, route %d %d %d %d", tt.name,
					got.kind, got.id, len(got.chunk), len(got.profile), want.kind, want.id, len(want.chunk), len(want.profile))
			}
		}
	}
}

// BenchmarkRouteSonic compares route with sonic on each message.
func BenchmarkRouteSonic(b *testing.B) {
	for _, tt := range benchMessages(b) {
		buf := make([]byte, 0, 2*len(tt.msg))
		run := func(name string, f func() message) {
			b.Run(tt.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(tt.msg)))
				b.ReportAllocs()
				for b.Loop() {
					if f().kind != tt.kind {
						b.Fatal("wrong kind")
					}
				}
			})
		}
		run("jsonscan", func() message { return route(tt.msg, buf) })
		run("sonicStd", func() message { return sonicRoute(sonic.ConfigStd, tt.msg, buf) })
		run("sonicFastest", func() message { return sonicRoute(sonic.ConfigFastest, tt.msg, buf) })
		run("sonicAST", func() message { return astRoute(tt.msg, buf) })
	}
}
