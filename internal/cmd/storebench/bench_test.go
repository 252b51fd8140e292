package storebench

import (
	"path/filepath"
	"testing"

	"tracestreamer/rows"
)

// Each benchmark op is one row: ns/op is ns per row and allocs/op allocations
// per row. The timed part is making the batches (the same for every writer;
// "gen-only" measures it alone), inserting them and the COMMIT; opening the
// database with its schema, closing and removing it are not timed.

func BenchmarkNodes(b *testing.B)   { benchAll(b, "nodes") }
func BenchmarkEdges(b *testing.B)   { benchAll(b, "edges") }
func BenchmarkStrings(b *testing.B) { benchAll(b, "strings") }

func benchAll(b *testing.B, workload string) {
	g, _ := GenByName(workload)
	b.Run("gen-only", func(b *testing.B) { benchWrite(b, g, "") })
	for _, kind := range Kinds {
		b.Run(kind, func(b *testing.B) { benchWrite(b, g, kind) })
	}
}

// benchWrite writes b.N rows of g with the writer kind ("": none).
func benchWrite(b *testing.B, g Gen, kind string) {
	var w Writer
	if kind != "" {
		var err error
		if w, err = Open(kind, filepath.Join(b.TempDir(), "bench.db")); err != nil {
			b.Fatal(err)
		}
	}
	batch := &rows.Batch{}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(BatchRows, b.N-done)
		g.Fill(batch, done, n)
		if w != nil {
			if err := w.Insert(batch); err != nil {
				w.Close()
				b.Fatal(err)
			}
		}
		done += n
	}
	if w != nil {
		if err := w.EndTx(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w.Close()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
