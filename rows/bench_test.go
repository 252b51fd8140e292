package rows

import (
	"testing"

	"tracestreamer/schema"
)

// discard is a Sink that recycles every batch at once.
type discard struct{ free []*Batch }

func (d *discard) NewBatch(t *schema.Table) *Batch {
	if n := len(d.free); n > 0 {
		b := d.free[n-1]
		d.free = d.free[:n-1]
		b.Reset(t)
		return b
	}
	b := &Batch{}
	b.Reset(t)
	return b
}
func (d *discard) Put(b *Batch)                { d.free = append(d.free, b) }
func (d *discard) Mark(t []*schema.Table) Mark { return 0 }
func (d *discard) Rollback(Mark)               {}
func (d *discard) Err() error                  { return nil }

// BenchmarkAppendNodeRows measures batching 9-int rows (per row).
func BenchmarkAppendNodeRows(b *testing.B) {
	a := NewAppender(&discard{}, schema.New().JSHeapNodes)
	for i := 0; b.Loop(); i++ {
		a.Ints(0, int64(i), 3, 7, int64(i)*2, 16, 1, 0, 0)
	}
}
