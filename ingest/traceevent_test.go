package ingest

import (
	"context"
	"database/sql"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"tracestreamer/internal/testutil"
)

// TestNodeTraceGolden converts a real trace written by node
// --trace-events-enabled (testdata/node/trace.json); the golden file
// testdata/golden/node_trace.txt is the reviewed expectation of every table.
func TestNodeTraceGolden(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "trace.json", testutil.Fixture(t, "node/trace.json"))
	out, sum, _ := convertAll(t, in)
	if sum.Rows["callstack"] != 59 || sum.Rows["process"] != 2 {
		t.Errorf("rows %v", sum.Rows)
	}
	db := testutil.OpenDB(t, out)
	skip := map[string]bool{"meta": true, "source": true, "stat": true}
	for _, tb := range sum.Tables {
		if sum.Rows[tb] == 0 {
			skip[tb] = true
		}
	}
	dump := testutil.Dump(t, db, skip)
	dump += "== stat, non-zero\n" + strings.Join(testutil.Query(t, db, "SELECT * FROM stat WHERE count > 0"), "\n") + "\n"
	testutil.Golden(t, "node_trace.txt", dump, *update)
}

// TestTraceWithOtherInputs reads a gzip Trace Event file in one run with a
// heap snapshot, and a cut gzip file, whose complete events are kept.
func TestTraceWithOtherInputs(t *testing.T) {
	dir := t.TempDir()
	trace := testutil.Fixture(t, "node/trace.json")
	gz := writeFile(t, dir, "trace.json.gz", trace)
	snap := writeFile(t, dir, "a.heapsnapshot", testutil.Fixture(t, "node/snapshot.heapsnapshot.gz"))
	out, sum, _ := convertAll(t, gz, snap)
	db := testutil.OpenDB(t, out)
	checkQueries(t, db, []queryWant{
		{"SELECT count(*) FROM callstack", "59"},
		{"SELECT count(*) FROM js_heap_files", "1"},
		{"SELECT group_concat(format || ':' || compression, ',') FROM source", "traceevent:gzip,heapsnapshot:none"},
		{"SELECT value FROM trace_config WHERE key = 'compression'", "gzip"},
		{"SELECT value FROM trace_config WHERE key = 'uncompressed_size'", "16593"},
		{"SELECT count FROM stat WHERE event_name = 'json_gzip' AND stat_type = 'received'", "1"},
		{"SELECT value FROM meta WHERE name = 'source_type'", "txt-based-trace"},
		{"SELECT count(*) FROM stat", "725"},
	})
	if sum.Problems != 4 { // the node trace's 4 unknown metadata names
		t.Errorf("problems %d, want 4", sum.Problems)
	}

	// The same gzip file cut in the middle: what was decompressed is kept.
	b, err := os.ReadFile(gz)
	must(t, err)
	cut := writeFile(t, dir, "cut.json", nil)
	must(t, os.WriteFile(cut, b[:len(b)*2/3], 0o644))
	out, _, warn := convertAll(t, cut)
	db = testutil.OpenDB(t, out)
	n := testutil.Query(t, db, "SELECT count(*) FROM callstack")[0]
	if n == "0" || n == "59" {
		t.Errorf("cut file: %s slices, want some but not all", n)
	}
	if got := testutil.Query(t, db, "SELECT count FROM stat WHERE event_name = 'json_gzip' AND stat_type = 'data_lost'"); got[0] != "1" {
		t.Errorf("json_gzip data_lost %v", got)
	}
	if !strings.Contains(warn, "cut.json: json_gzip data_lost: 1") {
		t.Errorf("warnings %q", warn)
	}
}

// TestChromiumTrace converts a real startup trace of headless Chromium
// (testdata/chromium/trace.json.gz, made by testdata/capture-chromium.sh).
// The expected counts were worked out from the JSON independently (a script
// counting X + B + thread-scoped instants + b events, process/global
// instants, s/f pairs).
func TestChromiumTrace(t *testing.T) {
	dir := t.TempDir()
	in := dir + "/trace.json.gz"
	raw := testutil.Fixture(t, "chromium/trace.json.gz")
	must(t, os.WriteFile(in, raw, 0o644))
	out, _, warn := convertAll(t, in)
	db := testutil.OpenDB(t, out)
	checkQueries(t, db, []queryWant{
		{"SELECT count(*) FROM callstack", "17222"},
		{"SELECT count(*) FROM instant", "1"},
		{"SELECT count(*) FROM flow", "479"},
		{"SELECT count(*) FROM process", "10"},
		{"SELECT name FROM process WHERE id = 1", "Browser"},
		{"SELECT count(*) FROM process WHERE name = 'Renderer'", "4"},
		{"SELECT count(*) FROM callstack WHERE dur IS NULL", "35"}, // 34 B and 1 b still open when tracing stopped
		{"SELECT value FROM trace_config WHERE key = 'metadata.clock-domain'", "LINUX_CLOCK_MONOTONIC"},
		{"SELECT count FROM stat WHERE event_name = 'json_event' AND stat_type = 'invalid_data'", "0"},
		{"SELECT count(*) FROM callstack c JOIN callstack p ON p.id = c.parent_id WHERE c.cookie IS NULL AND (p.depth != c.depth - 1 OR p.callid != c.callid OR c.ts < p.ts)", "0"},
		{"SELECT count(*) FROM process WHERE id > 0 AND thread_count = 0", "0"},
		// Every slice, instant, mark, counter and async event (ph in BEXiIRCbneSTpF:
		// 16144 X, 955 I, 89 R, 34 B, 1 b, counted in the JSON with Python) is a user-space
		// trace marker to SmartPerf-Host, which draws no process rows without them.
		{"SELECT count FROM stat WHERE event_name = 'tracing_mark_write' AND stat_type = 'received'", "17223"},
		// Flows as HiTrace-style chains for SmartPerf-Host: 467 slices are the end of
		// an arrow from another slice, 108 more only start arrows (one chain each);
		// each links to the slice its first arrow comes from, within its chain. (56
		// arrows start or end at a thread instant at their event's time, as in
		// catapult and Perfetto: before flow events bound to closed intervals they
		// went to its parent, 452 and 105.)
		{"SELECT count(*), count(DISTINCT chainId), sum(parentSpanId = '') FROM callstack WHERE chainId IS NOT NULL", "575|108|108"},
		{"SELECT chainId, spanId, parentSpanId FROM callstack WHERE id IN (770, 771, 780) ORDER BY id", "770|770|,770|771|770,770|780|771"},
		{`SELECT count(*) FROM callstack c JOIN callstack p ON p.id = CAST(c.parentSpanId AS INT)
			WHERE c.parentSpanId != '' AND (p.chainId != c.chainId OR c.spanId != CAST(c.id AS TEXT) OR NOT EXISTS
			(SELECT 1 FROM flow WHERE slice_out = p.id AND slice_in = c.id))`, "0"},
	})
	if !strings.Contains(warn, "json_begin not_match: 34 (at the end of input)") {
		t.Errorf("warnings %q", warn)
	}
}

// TestBeforeInput checks that the command's hook sees each input's format
// before it is read.
func TestBeforeInput(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.json", testutil.Fixture(t, "node/trace.json"))
	prof := writeFile(t, dir, "p.cpuprofile", testutil.Fixture(t, "node/profile.cpuprofile"))
	var seen []string
	_, err := Run(context.Background(), []string{trace, prof}, Options{Output: dir + "/out.db", Warnings: io.Discard,
		BeforeInput: func(format string) { seen = append(seen, format) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, ","); got != "traceevent,cpuprofile" {
		t.Errorf("formats %q", got)
	}
}

// TestUTF16Trace reads Trace Event files written as UTF-16 (both byte
// orders), with a name outside the BMP (a surrogate pair).
func TestUTF16Trace(t *testing.T) {
	text := `[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"größe 😀"}]`
	units := utf16.Encode([]rune(text))
	for _, big := range []bool{false, true} {
		b := []byte{0xff, 0xfe}
		if big {
			b = []byte{0xfe, 0xff}
		}
		for _, u := range units {
			if big {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
		dir := t.TempDir()
		out, _, _ := convertAll(t, writeFile(t, dir, "t.json", b))
		db := testutil.OpenDB(t, out)
		if got := testutil.Query(t, db, "SELECT name || '|' || ts || '|' || dur FROM callstack"); strings.Join(got, ",") != "größe 😀|1000|2000" {
			t.Errorf("big endian %v: %q", big, got)
		}
	}
}

type queryWant struct{ query, want string }

// checkQueries runs each query on db and compares its rows, joined by
// commas, with want.
func checkQueries(t *testing.T, db *sql.DB, checks []queryWant) {
	t.Helper()
	for _, c := range checks {
		if got := strings.Join(testutil.Query(t, db, c.query), ","); got != c.want {
			t.Errorf("%s = %q, want %q", c.query, got, c.want)
		}
	}
}
