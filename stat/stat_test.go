package stat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCellReachesTheTable counts each (event, type) cell once, with a
// different count, and finds every count in its row of the table.
func TestEveryCellReachesTheTable(t *testing.T) {
	for _, json := range []bool{false, true} {
		l := NewLog(nil)
		if json {
			l.UseJSON()
		}
		want := map[[2]string]int64{}
		n := int64(1)
		for _, e := range Events() {
			for _, typ := range Types() {
				l.Add(e, typ, n)
				if json || !e.IsJSON() {
					want[[2]string{e.String(), typ.String()}] = n
				}
				n++
			}
		}
		rows := l.Rows()
		if len(rows) != len(want) {
			t.Errorf("json %v: %d rows, want %d", json, len(rows), len(want))
		}
		for _, r := range rows {
			k := [2]string{r.Event, r.Type}
			if r.Count != want[k] {
				t.Errorf("json %v: %s/%s count %d, want %d", json, r.Event, r.Type, r.Count, want[k])
			}
			delete(want, k)
		}
		if len(want) != 0 {
			t.Errorf("json %v: cells missing from the table: %v", json, want)
		}
	}
}

func TestTableLayout(t *testing.T) {
	l := NewLog(nil)
	rows := l.Rows()
	// rawheap's rows come only once it has counted something.
	if len(rows) != 500 || rows[0].Event != "binder_transaction" || rows[489].Event != "other" ||
		rows[490].Event != "htrace_record" || rows[499] != (Row{"trace_js_cpu_profiler", "invalid_data", "error", 0}) {
		t.Fatalf("%d rows: %v … %v", len(rows), rows[0], rows[len(rows)-1])
	}
	l.UseJSON()
	rows = l.Rows()
	if len(rows) != 725 || rows[490] != (Row{"json_file", "received", "info", 0}) || rows[714].Event != "json_top_level" {
		t.Fatalf("%d rows with JSON: %v, %v", len(rows), rows[490], rows[714])
	}
	l.Add(Rawheap, Received, 1)
	if rows = l.Rows(); len(rows) != 730 || rows[729] != (Row{"rawheap", "invalid_data", "error", 0}) {
		t.Fatalf("%d rows with a rawheap: %v", len(rows), rows[len(rows)-1])
	}
	l.Add(JSHeapNames, InvalidData, 3)
	if rows = l.Rows(); len(rows) != 735 || rows[734] != (Row{"js_heap_names", "invalid_data", "error", 3}) {
		t.Fatalf("%d rows with a heap name problem: %v", len(rows), rows[len(rows)-1])
	}
	sev := map[Type]string{Received: "info", DataLost: "error", NotMatch: "info", NotSupported: "warn", InvalidData: "error"}
	for typ, s := range sev {
		if typ.Severity() != s {
			t.Errorf("%s severity %s, want %s", typ, typ.Severity(), s)
		}
	}
}

// TestEventNames checks the event table: names unique and in the reference's
// spelling, a description for every event tracestreamer counts, and every
// Trace Event row documented in docs/format/stat.md.
func TestEventNames(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Events() {
		name := e.String()
		if name == "" || seen[name] || strings.ToLower(name) != name {
			t.Errorf("event %d: name %q empty, repeated or not lower case", e, name)
		}
		seen[name] = true
		if (e.IsJSON() || e >= firstOwn) && e.Description() == "" {
			t.Errorf("%s has no description", name)
		}
	}
	if len(seen) != 98+45+10 {
		t.Errorf("%d events, want 153", len(seen))
	}
	for _, e := range []Event{JSMemory, ClockSync, Other, TracingMarkWrite, JSONFile, JSONTopLevel} {
		if !seen[e.String()] {
			t.Errorf("missing %s", e)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "format", "stat.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Events() {
		if (e.IsJSON() || e >= JSHeapCounts) && !bytes.Contains(doc, []byte("| `"+e.String()+"` |")) {
			t.Errorf("%s is not in docs/format/stat.md", e)
		}
	}
}
