package rows

import (
	"math"
	"sync"

	"tracestreamer/schema"
)

// Value is one stored value of a Memory sink: Null, or an Int, a Real or a
// Text.
type Value struct {
	Null bool
	Int  int64
	Real float64
	// IsReal tells that Real holds the value.
	IsReal bool
	Text   string
	// IsText tells which of Int and Text holds the value.
	IsText bool
}

// Memory is a Sink that keeps every row in memory, for tests. It is safe for
// concurrent use; read Rows once writing is over.
type Memory struct {
	mu    sync.Mutex
	Rows  map[string][][]Value
	marks []map[string]int
}

// NewMemory returns an empty Memory sink.
func NewMemory() *Memory { return &Memory{Rows: map[string][][]Value{}} }

// NewBatch implements Sink.
func (m *Memory) NewBatch(t *schema.Table) *Batch {
	b := &Batch{}
	b.Reset(t)
	return b
}

// Put implements Sink.
func (m *Memory) Put(b *Batch) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := b.Table
	ni, nt := t.NumInt(), t.NumText()
	nulls, reals, tnulls := b.Nulls, b.Reals, b.TextNulls
	for r := 0; r < b.N; r++ {
		row := make([]Value, len(t.Columns))
		for c, col := range t.Columns {
			s := t.Slot(c)
			if col.Type.IsText() {
				pos := r*nt + s
				if len(tnulls) > 0 && int(tnulls[0]) == pos {
					tnulls = tnulls[1:]
					row[c] = Value{Null: true, IsText: true}
					continue
				}
				row[c] = Value{Text: b.Texts[pos], IsText: true}
				continue
			}
			pos := r*ni + s
			if len(nulls) > 0 && int(nulls[0]) == pos {
				nulls = nulls[1:]
				row[c] = Value{Null: true}
				continue
			}
			if len(reals) > 0 && int(reals[0]) == pos {
				reals = reals[1:]
				row[c] = Value{Real: math.Float64frombits(uint64(b.Ints[pos])), IsReal: true}
				continue
			}
			row[c] = Value{Int: b.Ints[pos]}
		}
		if len(b.RowIDs) > 0 {
			// Keep rowid order: a row sits at index rowid-1 (nil in gaps).
			at := int(b.RowIDs[r]) - 1
			for len(m.Rows[t.Name]) <= at {
				m.Rows[t.Name] = append(m.Rows[t.Name], nil)
			}
			m.Rows[t.Name][at] = row
			continue
		}
		m.Rows[t.Name] = append(m.Rows[t.Name], row)
	}
}

// Mark implements Sink.
func (m *Memory) Mark(tables []*schema.Table) Mark {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := make(map[string]int, len(tables))
	for _, t := range tables {
		counts[t.Name] = len(m.Rows[t.Name])
	}
	m.marks = append(m.marks, counts)
	return Mark(len(m.marks) - 1)
}

// Rollback implements Sink.
func (m *Memory) Rollback(mk Mark) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, n := range m.marks[mk] {
		m.Rows[name] = m.Rows[name][:n]
	}
}

// Err implements Sink.
func (m *Memory) Err() error { return nil }
