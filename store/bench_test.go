package store

import (
	"path/filepath"
	"testing"

	"tracestreamer/rows"
	"tracestreamer/schema"
)

// BenchmarkInsertNodes measures bare insert speed of 9-int js_heap_nodes rows
// through the Async sink (rows/s is reported as a metric).
func BenchmarkInsertNodes(b *testing.B) {
	ts := schema.New()
	db, err := Create(filepath.Join(b.TempDir(), "bench.db"), ts.DDL())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Abort()
	a := NewAsync(db, 16)
	app := rows.NewAppender(a, ts.JSHeapNodes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		app.Ints(0, int64(i), 3, int64(i%5000), int64(i)*2+1, 48, 4, 0, 0)
	}
	app.Flush()
	if err := a.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkInsertStrings measures js_heap_string rows (two ints and a text).
func BenchmarkInsertStrings(b *testing.B) {
	ts := schema.New()
	db, err := Create(filepath.Join(b.TempDir(), "bench.db"), ts.DDL())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Abort()
	a := NewAsync(db, 16)
	app := rows.NewAppender(a, ts.JSHeapString)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		app.Row([]int64{0, int64(i)}, "system / Context / some string")
	}
	app.Flush()
	if err := a.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
