package tables

import (
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// BenchmarkEdgeRows compares a js_heap_edges row (two nullable columns)
// appended as a named row with the same values appended positionally, as
// the snapshot decoder did before (per row).
func BenchmarkEdgeRows(b *testing.B) {
	ts := schema.New()
	b.Run("named", func(b *testing.B) {
		w := NewJSHeapEdges(&testutil.Discard{}, ts)
		for i := int64(0); b.Loop(); i++ {
			w.Append(&JSHeapEdges{FileID: 0, EdgeIndex: i, Type: 2, NameOrIndex: 7, ToNode: i * 7,
				FromNodeID: rows.I(i), ToNodeID: rows.I(i + 1)})
		}
	})
	b.Run("positional", func(b *testing.B) {
		a := rows.NewAppender(&testutil.Discard{}, ts.JSHeapEdges)
		for i := int64(0); b.Loop(); i++ {
			a.Ints(0, i, 2, 7, i*7, i, i+1)
		}
	})
}

// TestNamedRowsMatchPositional appends rows of a table with NULLs, a REAL
// and texts both ways and compares the batches.
func TestNamedRowsMatchPositional(t *testing.T) {
	ts := schema.New()
	named, positional := rows.NewMemory(), rows.NewMemory()
	w := NewStackSample(named, ts)
	w.Append(&StackSample{ID: 1, Source: "s", CPUProfileID: rows.Int{}, TS: 5, Itid: 2, CPU: rows.I(3),
		Name: rows.Text{}, FrameID: rows.I(4), Weight: rows.R(0.5), Argsetid: rows.IOpt(9, false)})
	w.Flush()
	a := rows.NewAppender(positional, ts.StackSample)
	a.Int(rows.I(1))
	a.Text(rows.S("s"))
	a.Int(rows.Int{})
	a.Int(rows.I(5))
	a.Int(rows.I(2))
	a.Int(rows.I(3))
	a.Text(rows.Text{})
	a.Int(rows.I(4))
	a.Int(rows.R(0.5))
	a.Int(rows.Int{})
	a.End()
	a.Flush()
	got, want := named.Rows["stack_sample"], positional.Rows["stack_sample"]
	if len(got) != 1 || len(want) != 1 || len(got[0]) != 10 {
		t.Fatalf("rows %v and %v", got, want)
	}
	for i := range want[0] {
		if got[0][i] != want[0][i] {
			t.Errorf("column %d: %+v, want %+v", i, got[0][i], want[0][i])
		}
	}
	if !got[0][2].Null || !got[0][6].Null || got[0][8].Real != 0.5 || got[0][9].Null != true {
		t.Errorf("row %+v", got[0])
	}
}
