package arkts

import (
	"bytes"
	"testing"

	"tracestreamer/parser/arkts/arktstest"
)

// BenchmarkRouteChunk measures routing a 64 KiB chunk event: parsing its head
// and unescaping params.chunk.
func BenchmarkRouteChunk(b *testing.B) {
	var text bytes.Buffer
	for text.Len() < 64<<10 {
		text.WriteString(`,"system / Context","(closure)",1234,5678` + "\n")
	}
	msg := arktstest.ChunkMessage(text.Bytes())
	buf := make([]byte, 0, 80<<10)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if m := route(msg, buf); m.kind != kindChunk {
			b.Fatal("not a chunk")
		}
	}
}
