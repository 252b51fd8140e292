package testutil

import (
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Discard is a rows.Sink that drops every row and recycles its batches at
// once, for benchmarks of what produces rows.
type Discard struct{ free []*rows.Batch }

// NewBatch implements rows.Sink.
func (d *Discard) NewBatch(t *schema.Table) *rows.Batch {
	if n := len(d.free); n > 0 {
		b := d.free[n-1]
		d.free = d.free[:n-1]
		b.Reset(t)
		return b
	}
	b := &rows.Batch{}
	b.Reset(t)
	return b
}

// Put implements rows.Sink.
func (d *Discard) Put(b *rows.Batch) { d.free = append(d.free, b) }

// Mark implements rows.Sink.
func (d *Discard) Mark([]*schema.Table) rows.Mark { return 0 }

// Rollback implements rows.Sink.
func (d *Discard) Rollback(rows.Mark) {}

// Err implements rows.Sink.
func (d *Discard) Err() error { return nil }
