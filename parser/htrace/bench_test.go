package htrace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"tracestreamer/proto/hiprofpb"
	"tracestreamer/stat"
)

// BenchmarkRecords measures record framing and ProfilerPluginData decoding over
// a file of 64 KiB records (the size of heap snapshot chunk messages).
func BenchmarkRecords(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "b.htrace"))
	if err != nil {
		b.Fatal(err)
	}
	w, _ := NewWriter(f, [NumClocks]uint64{})
	payload := bytes.Repeat([]byte("x"), 64<<10)
	for i := 0; i < 512; i++ {
		w.Write(&hiprofpb.ProfilerPluginData{Name: "arkts-plugin", Data: payload, TvSec: uint64(i), TvNsec: 5})
	}
	w.Close()
	f.Close()
	data, _ := os.ReadFile(f.Name())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), "b", stat.NewLog(nil))
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 512 {
			b.Fatalf("%d records", n)
		}
	}
}
