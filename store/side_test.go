package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/rows"
	"tracestreamer/schema"
)

// TestForkJoin writes js_heap_node_stats rows both directly and through two
// side databases, around a mark that is rolled back afterwards, and reads back
// the order, the row ids and what the rollback removed.
func TestForkJoin(t *testing.T) {
	var sides []string
	db := writeDB(t, func(a *Async, ts *schema.Tables) {
		stats := func(s rows.Sink, from, to int64) {
			app := rows.NewAppender(s, ts.JSHeapNodeStats)
			for i := from; i < to; i++ {
				app.IntsNull(0xf<<8, 0, i, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
			}
			app.Flush()
		}
		stats(a, 0, 3)
		s1, err := a.Fork([]*schema.Table{ts.JSHeapNodeStats})
		if err != nil {
			t.Fatal(err)
		}
		stats(s1, 3, 2500) // more than one statement's worth
		sides = append(sides, s1.(*side).paths...)
		stats(a, 2500, 2502) // put while the side is open: written before it
		if err := s1.Join(); err != nil {
			t.Fatal(err)
		}
		m := a.Mark([]*schema.Table{ts.JSHeapNodeStats})
		side2, err := a.Fork([]*schema.Table{ts.JSHeapNodeStats})
		if err != nil {
			t.Fatal(err)
		}
		stats(side2, 9000, 9010)
		if err := side2.Join(); err != nil {
			t.Fatal(err)
		}
		a.Rollback(m) // removes the second side's rows
		side3, err := a.Fork([]*schema.Table{ts.JSHeapNodeStats})
		if err != nil {
			t.Fatal(err)
		}
		stats(side3, 5000, 5001)
		sides = append(sides, side3.(*side).paths...)
		side3.Abort()
		side3.Abort()
		if err := side3.Join(); err == nil || !strings.Contains(err.Error(), "side sink joined twice or after Abort") {
			t.Errorf("Join after Abort: %v", err)
		}
		stats(a, 2502, 2503)
		// Rows of a table the side was not made for are an error of the side.
		side4, err := a.Fork([]*schema.Table{ts.JSHeapNodeStats})
		if err != nil {
			t.Fatal(err)
		}
		app := rows.NewAppender(side4, ts.JSHeapClass)
		app.Row([]int64{0, 0, 0, 0, 0, 0}, "x")
		app.Flush()
		if err := side4.Join(); err == nil || !strings.Contains(err.Error(), "side sink: rows of js_heap_class, which it was not made for") {
			t.Errorf("Join of a side given another table's rows: %v", err)
		}
	})
	var want []int64
	for _, r := range [][2]int64{{0, 3}, {2500, 2502}, {3, 2500}, {2502, 2503}} {
		for i := r[0]; i < r[1]; i++ {
			want = append(want, i)
		}
	}
	r, err := db.Query("SELECT rowid, node_index FROM js_heap_node_stats ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []int64
	for r.Next() {
		var rowid, idx int64
		if err := r.Scan(&rowid, &idx); err != nil {
			t.Fatal(err)
		}
		if rowid != int64(len(got))+1 {
			t.Fatalf("row %d has rowid %d", len(got)+1, rowid)
		}
		got = append(got, idx)
	}
	if !slices.Equal(got, want) {
		t.Errorf("node_index in rowid order: %d rows, first difference at %d; want 0-2, 2500-2501 (put directly while "+
			"the side was open), 3-2499 (the side), 2502, and none of the rolled back or aborted sides",
			len(got), firstDiffInt(got, want))
	}
	for _, p := range sides {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("side database %s left behind: %v", filepath.Base(p), err)
		}
	}
}

func firstDiffInt(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
