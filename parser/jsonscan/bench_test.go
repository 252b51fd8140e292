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
	buf := make([]int64, 3*4096)
	benchArray(b, func(d *Decoder, first bool) bool {
		_, done, err := d.ReadInts(buf, &first)
		if err != nil {
			b.Fatal(err)
		}
		return done
	})
}

// BenchmarkIntsText takes the text of the same array's integers off the
// stream by their commas, the reading goroutine's part when several read
// the values (IntsText).
func BenchmarkIntsText(b *testing.B) {
	var dst []byte
	benchArray(b, func(d *Decoder, first bool) bool {
		var ok bool
		dst, ok = d.IntsText(dst[:0], 3*4096, first, 1<<20)
		return !ok
	})
}

// benchArray reads a nodes array through a 256 KiB buffer with read, which
// reads on in it and says whether it is done.
func benchArray(b *testing.B, read func(d *Decoder, first bool) bool) {
	text := nodesText(200000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		d := NewReader(bytes.NewReader(text), 256<<10)
		d.Expect('[')
		for first := true; !read(d, first); first = false {
		}
	}
}

// BenchmarkReadString decodes long strings as a chunk event's params.chunk
// holds them: snapshot text of the strings array, full of \" escapes, and of
// the nodes and edges arrays (most of a chunk), a line of numbers between
// two \n escapes (as in the 435 MB htrace of make bench).
func BenchmarkReadString(b *testing.B) {
	for _, bc := range []struct{ name, part string }{
		{"strings", `,\"system / Context\",\"(closure)\",1234,5678\n`},
		{"nodes", `,3,2730,8164145,40,4,0,0\n`},
		{"edges", `,32861962,105,3,28\n`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var s bytes.Buffer
			s.WriteByte('"')
			for s.Len() < 1<<20 {
				s.WriteString(bc.part)
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
		})
	}
}
