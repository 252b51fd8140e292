package jsonscan

import (
	"bytes"
	"fmt"
	"testing"
)

// nodesText is a V8-style nodes array of n 7-value nodes.
func nodesText(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d,0,0", i%14, i%50000, 2*i+1, 16+i%100, i%9)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// BenchmarkReadInts scans an integer array through a 256 KiB buffer.
func BenchmarkReadInts(b *testing.B) {
	text := nodesText(200000)
	buf := make([]int64, 3*4096)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		d := NewReader(bytes.NewReader(text), 256<<10)
		d.Expect('[')
		first := true
		for {
			_, done, err := d.ReadInts(buf, &first)
			if err != nil {
				b.Fatal(err)
			}
			if done {
				break
			}
		}
	}
}

// BenchmarkReadString decodes a long string with escapes, as a chunk event's
// params.chunk (snapshot text full of \" escapes).
func BenchmarkReadString(b *testing.B) {
	var s bytes.Buffer
	s.WriteByte('"')
	for s.Len() < 1<<20 {
		s.WriteString(`,\"system / Context\",\"(closure)\",1234,5678\n`)
	}
	s.WriteByte('"')
	text := s.Bytes()
	var dst []byte
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		var err error
		if dst, err = NewBytes(text).ReadString(dst[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
