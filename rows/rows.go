// Package rows carries table rows from the parsers to the store in batches.
//
// A parser appends rows to an Appender per table; full batches are handed to a Sink
// (the SQLite store, or a Memory sink in tests). Values of INT columns and of TEXT
// columns are kept in two row-major arrays so that the common all-integer tables
// (js_heap_nodes, js_heap_edges) cost one int64 per value.
package rows

import (
	"fmt"
	"math"
	"slices"

	"tracestreamer/schema"
)

// Batch is a run of rows of one table.
type Batch struct {
	Table *schema.Table
	N     int      // number of rows
	Ints  []int64  // N × Table.NumInt() values, row-major
	Texts []string // N × Table.NumText() values, row-major
	// Nulls lists the positions in Ints whose value is NULL, ascending.
	Nulls []int32
	// Reals lists the positions in Ints that hold the bits of a float64
	// (math.Float64bits) to be stored as REAL, ascending.
	Reals []int32
	// TextNulls lists the positions in Texts whose value is NULL, ascending.
	TextNulls []int32
	// RowIDs, if not empty, holds each row's SQLite rowid: the rows may then
	// come in any order and still read back in rowid order.
	RowIDs []int64
}

// Reset empties b for reuse with table t.
func (b *Batch) Reset(t *schema.Table) {
	b.Table = t
	b.N = 0
	b.Ints = b.Ints[:0]
	b.Texts = b.Texts[:0]
	b.Nulls = b.Nulls[:0]
	b.Reals = b.Reals[:0]
	b.TextNulls = b.TextNulls[:0]
	b.RowIDs = b.RowIDs[:0]
}

// Mark identifies a point in the stream of rows; see Sink.Rollback.
type Mark int64

// Sink receives batches in order. Put takes ownership of the batch; NewBatch returns
// an empty batch, possibly a recycled one. Mark and Rollback let a parser drop every
// row of a set of tables that was put after the mark (a heap snapshot found to be
// corrupt after part of it was streamed). Err reports the first error of the sink.
type Sink interface {
	NewBatch(t *schema.Table) *Batch
	Put(b *Batch)
	Mark(tables []*schema.Table) Mark
	Rollback(m Mark)
	Err() error
}

// DefaultBatchRows is the number of rows an Appender collects before handing a
// batch to its sink.
const DefaultBatchRows = 4096

// Appender builds the rows of one table.
type Appender struct {
	sink  Sink
	table *schema.Table
	b     *Batch
	max   int
	count int64
	// nInt and nText are the table's INT and TEXT columns: the values of a row.
	nInt, nText int
}

// NewAppender returns an appender of rows of t to sink.
func NewAppender(sink Sink, t *schema.Table) *Appender {
	return &Appender{sink: sink, table: t, max: DefaultBatchRows, nInt: t.NumInt(), nText: t.NumText()}
}

func (a *Appender) batch() *Batch {
	if a.b == nil {
		a.b = a.sink.NewBatch(a.table)
		if a.count >= int64(a.max) {
			// A table that filled a batch before gets room for a whole one
			// at once, instead of growing it a quarter at a time (which
			// leaves about four batches' worth of garbage).
			a.b.Ints = slices.Grow(a.b.Ints, a.max*a.nInt)
			a.b.Texts = slices.Grow(a.b.Texts, a.max*a.nText)
		}
	}
	return a.b
}

// Ints appends a row of a table whose columns are all INT.
func (a *Appender) Ints(v ...int64) {
	b := a.batch()
	b.Ints = append(b.Ints, v...)
	a.endRow(b)
}

// Row appends a row with its INT values and TEXT values, each in column order.
func (a *Appender) Row(ints []int64, texts ...string) {
	b := a.batch()
	b.Ints = append(b.Ints, ints...)
	b.Texts = append(b.Texts, texts...)
	a.endRow(b)
}

// Int appends v to the current row (Int, Text and RowID build a row value
// by value in column order; End finishes it).
func (a *Appender) Int(v Int) {
	b := a.batch()
	b.MarkInt(len(b.Ints), v)
	b.Ints = append(b.Ints, v.v)
}

// Text appends v to the current row.
func (a *Appender) Text(v Text) {
	b := a.batch()
	b.MarkText(len(b.Texts), v)
	b.Texts = append(b.Texts, v.s)
}

// RowID gives the row being built an explicit rowid. Call it for every row
// of a table or for none.
func (a *Appender) RowID(id int64) {
	b := a.batch()
	b.RowIDs = append(b.RowIDs, id)
}

// End finishes the row built with Int and Text (or, after Begin, by
// appending to the batch).
func (a *Appender) End() { a.endRow(a.batch()) }

// endRow counts the row just built. A row whose INT, TEXT or rowid values
// do not fill exactly the table's columns is a programming error that would
// shift every later value into the wrong column: it panics, naming the table.
func (a *Appender) endRow(b *Batch) {
	b.N++
	if len(b.Ints) != b.N*a.nInt || len(b.Texts) != b.N*a.nText || (len(b.RowIDs) != 0 && len(b.RowIDs) != b.N) {
		a.badRow(b)
	}
	a.count++
	if b.N >= a.max {
		a.Flush()
	}
}

func (a *Appender) badRow(b *Batch) {
	panic(fmt.Sprintf("rows: row %d of table %s has %d INT and %d TEXT values, want %d and %d",
		a.count, a.table.Name, len(b.Ints)-(b.N-1)*a.nInt, len(b.Texts)-(b.N-1)*a.nText, a.nInt, a.nText))
}

// Count returns the number of rows appended so far.
func (a *Appender) Count() int64 { return a.count }

// Flush hands the pending rows to the sink.
func (a *Appender) Flush() {
	if a.b != nil && a.b.N > 0 {
		a.sink.Put(a.b)
		a.b = nil
	}
}

// Discard drops the pending rows without handing them to the sink.
func (a *Appender) Discard() {
	if a.b != nil {
		a.b.Reset(a.table)
	}
}

// Int is the value of an INT column that may be NULL or hold a REAL. Its
// zero value is NULL.
type Int struct {
	v    int64
	kind uint8 // 0 NULL, 1 integer, 2 REAL (v holds its bits)
}

// I is the integer v.
func I(v int64) Int { return Int{v, 1} }

// IOpt is v, or NULL when ok is false.
func IOpt(v int64, ok bool) Int {
	if !ok {
		return Int{}
	}
	return Int{v, 1}
}

// R is the REAL f.
func R(f float64) Int { return Int{int64(math.Float64bits(f)), 2} }

// Text is the value of a TEXT column that may be NULL. Its zero value is
// NULL.
type Text struct {
	s  string
	ok bool
}

// S is the text s.
func S(s string) Text { return Text{s, true} }

// SOpt is s, or NULL when ok is false.
func SOpt(s string, ok bool) Text { return Text{s, ok} }

// Begin returns the batch the next row goes to, for writers that append a
// whole row at once (package tables): they append its values to Ints and
// Texts, mark its NULLs and REALs with MarkInt, MarkText and MarkReal, and
// call End.
func (a *Appender) Begin() *Batch { return a.batch() }

// Bits is the value to store in Batch.Ints for v: the integer, the bits of
// the REAL, or 0 for NULL (marked by Batch.MarkInt).
func (v Int) Bits() int64 { return v.v }

// Str is the value to store in Batch.Texts for v ("" for NULL, marked by
// Batch.MarkText).
func (v Text) Str() string { return v.s }

// MarkInt records that Ints[pos] holds v's NULL or REAL, if it does.
func (b *Batch) MarkInt(pos int, v Int) {
	switch v.kind {
	case 0:
		b.Nulls = append(b.Nulls, int32(pos))
	case 2:
		b.Reals = append(b.Reals, int32(pos))
	}
}

// MarkReal records that Ints[pos] holds the bits of a REAL.
func (b *Batch) MarkReal(pos int) { b.Reals = append(b.Reals, int32(pos)) }

// MarkText records that Texts[pos] is NULL if v is.
func (b *Batch) MarkText(pos int, v Text) {
	if !v.ok {
		b.TextNulls = append(b.TextNulls, int32(pos))
	}
}
