package schema

import (
	"fmt"
	"testing"
)

// TestTableDeclaration: a table's columns are read from their declaration
// with their type, NULL and REAL; anything else is refused.
func TestTableDeclaration(t *testing.T) {
	tb := table("t", "id INT, name TEXT NULL, value INT NULL REAL, children INTTEXT, ratio REAL")
	var got []string
	for _, c := range tb.Columns {
		got = append(got, fmt.Sprintf("%s %v %v %v", c.Name, c.Type, c.Null, c.MayHoldReal))
	}
	want := []string{"id INT false false", "name TEXT true false", "value INT true true", "children INT false false",
		"ratio REAL false false"}
	if fmt.Sprint(got) != fmt.Sprint(want) || tb.Columns[3].Type != IntText || tb.NumInt() != 3 || tb.NumText() != 2 {
		t.Errorf("columns %q, %d INT, %d TEXT", got, tb.NumInt(), tb.NumText())
	}
	for _, bad := range []string{"id", "id BLOB", "name TEXT NULL REAL", "id INT MAYBE", "id INT REAL"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q accepted", bad)
				}
			}()
			table("t", bad)
		}()
	}
}

// TestNamedTablesDeclared: every named table of New has its declaration
// (no field is left nil), and each table is created once.
func TestNamedTablesDeclared(t *testing.T) {
	ts := New()
	seen := map[string]bool{}
	for _, tb := range ts.All() {
		if seen[tb.Name] {
			t.Errorf("table %s created twice", tb.Name)
		}
		seen[tb.Name] = true
	}
	for _, tb := range []*Table{ts.Process, ts.JSHeapNodes, ts.Source, ts.SystemTraceEvents, ts.JSHeapLeakCluster} {
		if tb == nil || !seen[tb.Name] {
			t.Errorf("a named table is missing: %v", tb)
		}
	}
	if len(ts.own) == 0 || ts.own[0] != ts.Source || ts.own[len(ts.own)-1] != ts.SystemTraceEvents {
		t.Errorf("own tables out of order")
	}
}
