package heapsnapshot

import (
	"bytes"
	"os"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/internal/testutil"
	"tracestreamer/schema"
)

// BenchmarkDecode decodes the bundled node snapshot (or the file named by
// $HEAPSNAPSHOT_BENCH) into rows that are dropped at once, without and with
// the analysis.
func BenchmarkDecode(b *testing.B) {
	text := testutil.Fixture(b, "node/snapshot.heapsnapshot.gz")
	if p := os.Getenv("HEAPSNAPSHOT_BENCH"); p != "" {
		var err error
		if text, err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
	}
	for _, analyse := range []bool{false, true} {
		name := "rows"
		if analyse {
			name = "analysis"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				out := heapfile.NewOutput(&testutil.Discard{}, schema.New(), heapfile.Options{Analyse: analyse})
				if _, err := out.Decode(0, Decoder(bytes.NewReader(text)), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
