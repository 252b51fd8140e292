package tokenizer

import (
	"bytes"
	"testing"
	"tracestreamer/internal/testutil"
)

// BenchmarkReaderCaptures cuts the bundled real captures (Chromium busy page
// and startup, node I/O program and short script) into elements.
func BenchmarkReaderCaptures(b *testing.B) {
	files, size := testutil.Captures(b)
	b.SetBytes(size)
	for b.Loop() {
		n := 0
		for _, data := range files {
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := r.Next(); err != nil {
					break
				}
				n++
			}
		}
		if n < 100000 {
			b.Fatalf("%d elements", n)
		}
	}
}
