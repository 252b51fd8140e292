package ingest

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
)

// referenceSchema returns the statements of trace_streamer 4.3.7's exported
// schema (testdata/golden/reference-schema.sql, docs/format/README.md#tables):
// each CREATE statement as sqlite_master holds it, without the comments the
// sqlite3 shell adds.
func referenceSchema(t *testing.T) []string {
	t.Helper()
	b := testutil.Fixture(t, "golden/reference-schema.sql")
	// The copy is of the specification the project was built from; where that
	// sits beside the repository (its developers' machines), the copy must
	// not drift from it.
	if spec, err := os.ReadFile(filepath.Join(testutil.Root(), "..", "shared", "spec", "reference-schema.sql")); err == nil &&
		!bytes.Equal(spec, b) {
		t.Errorf("testdata/golden/reference-schema.sql differs from the specification's reference-schema.sql beside the repository: copy it again")
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "--") && !strings.HasPrefix(l, "/*") {
			lines = append(lines, l)
		}
	}
	var stmts []string
	for _, s := range strings.Split(strings.Join(lines, "\n"), ";\n") {
		if s = strings.TrimSpace(s); s != "" {
			stmts = append(stmts, strings.TrimSuffix(s, ";"))
		}
	}
	return stmts
}

// TestReferenceSchema checks that a database of every input kind starts with
// trace_streamer 4.3.7's tables and args_view exactly as its export has them
// (names, columns, column order, declared types and the statement text itself,
// in creation order), with tracestreamer's own tables and views after them.
func TestReferenceSchema(t *testing.T) {
	ref := referenceSchema(t)
	if len(ref) != 90 {
		t.Fatalf("reference schema has %d statements, want 89 tables and args_view", len(ref))
	}
	dir := t.TempDir()
	htraceIn := capture(t, testClocks(8_000_000_000_000), func(s *arktstest.Session) { referenceSession(t, s) })
	snap := writeFile(t, dir, "a.heapsnapshot", testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))
	prof := writeFile(t, dir, "a.cpuprofile", testutil.Fixture(t, "node/profile.cpuprofile"))
	trace := writeFile(t, dir, "trace.json", testutil.Fixture(t, "node/trace.json"))
	tests := []struct {
		name   string
		inputs []string
	}{
		{"htrace", []string{htraceIn}},
		{"standalone", []string{snap, prof}},
		{"trace event", []string{trace}},
	}
	own := regexp.MustCompile(`^CREATE (TABLE|VIEW) (js_cpu_profile|js_cpu_profiler_node_time|js_cpu_profiler_function|` +
		`js_heap_native_size|js_heap_node_stats|js_heap_class|js_heap_class_diff|js_heap_class_summary|js_heap_leak|js_heap_leak_path|` +
		`js_heap_leak_cluster|js_heap_retainer|source|callstack_extra|async_track|` +
		`instant_extra|flow|flow_event|object_instance|object_snapshot|memory_dump|memory_dump_value|memory_dump_edge|` +
		`clock_sync_marker|context_event|linked_id|stack_frame|cpu_profile|stack_sample|metadata_event|` +
		`system_trace_events)\b`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _ := convertAll(t, tt.inputs...)
			got := testutil.Query(t, testutil.OpenDB(t, out), "SELECT sql FROM sqlite_master ORDER BY rowid")
			if len(got) < len(ref) {
				t.Fatalf("%d schema entries, want at least %d", len(got), len(ref))
			}
			for i, want := range ref {
				if got[i] != want {
					t.Errorf("schema entry %d:\n got %s\nwant %s", i, got[i], want)
				}
			}
			for _, s := range got[len(ref):] {
				if !own.MatchString(s) {
					t.Errorf("unexpected schema entry after the reference's: %.80s", s)
				}
			}
			if n := len(got) - len(ref); n != 31 {
				t.Errorf("%d own tables and views, want 31", n)
			}
		})
	}
}

// TestSchemaOpensInOldSQLite checks that a database needs nothing newer than
// SQLite 3.36.0, the version sql.js 1.6.2 in SmartPerf-Host is built with: the
// file header asks for the legacy file format (read and write version 1) and
// schema format 4 (read since 3.3.0), and no statement uses a schema feature
// added after 3.36 (STRICT tables 3.37, the JSON operators -> and ->> 3.38,
// RIGHT and FULL joins 3.39, unixepoch 3.38, IS DISTINCT FROM 3.39). The
// scripts/smartperf check opens every table and view in sql.js 1.6.2 itself.
func TestSchemaOpensInOldSQLite(t *testing.T) {
	dir := t.TempDir()
	snap := writeFile(t, dir, "a.heapsnapshot", testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))
	out, _, _ := convertAll(t, snap)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:16]) != "SQLite format 3\x00" {
		t.Fatalf("header %q", b[:16])
	}
	if b[18] != 1 || b[19] != 1 {
		t.Errorf("file format versions %d/%d, want 1/1 (legacy, no WAL)", b[18], b[19])
	}
	if f := binary.BigEndian.Uint32(b[44:]); f != 4 {
		t.Errorf("schema format %d, want 4", f)
	}
	newer := regexp.MustCompile(`(?i)\bSTRICT\b|->|\bunixepoch\b|\bRIGHT\s+(OUTER\s+)?JOIN\b|\bFULL\s+(OUTER\s+)?JOIN\b|` +
		`\bDISTINCT\s+FROM\b`)
	stmts := testutil.Query(t, testutil.OpenDB(t, out), "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
	if len(stmts) < 100 {
		t.Fatalf("only %d schema statements", len(stmts))
	}
	for _, s := range stmts {
		if m := newer.FindString(s); m != "" {
			t.Errorf("statement uses %q, newer than SQLite 3.36: %.80s", m, s)
		}
	}
}
