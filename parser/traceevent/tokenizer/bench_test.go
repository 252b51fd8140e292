package tokenizer

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReaderCaptures cuts the bundled real captures (Chromium busy page
// and startup, node I/O program and short script) into elements.
func BenchmarkReaderCaptures(b *testing.B) {
	var files [][]byte
	var size int64
	for _, name := range []string{"testdata/chromium/busy.json.gz", "testdata/chromium/trace.json.gz",
		"testdata/node/busy.json.gz", "testdata/node/trace.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", name))
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			z, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			if data, err = io.ReadAll(z); err != nil {
				b.Fatal(err)
			}
		}
		files = append(files, data)
		size += int64(len(data))
	}
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
