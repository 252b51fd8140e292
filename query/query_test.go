package query_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/ingest"
	"tracestreamer/internal/testutil"
	"tracestreamer/query"
	"tracestreamer/store"
)

// profileDB converts the bundled node CPU profile (24 nodes; fib has the most
// self time, 246.009 ms) into a database and opens it.
func profileDB(t *testing.T) (*store.Reader, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "cpu.db")
	in := filepath.Join(testutil.Root(), "testdata", "node", "profile.cpuprofile")
	if _, err := ingest.Run(context.Background(), []string{in}, ingest.Options{Output: db}); err != nil {
		t.Fatal(err)
	}
	r, err := store.OpenReader(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, db
}

func run(t *testing.T, r *store.Reader, f query.Format, sql ...string) (string, error) {
	t.Helper()
	var scripts []query.Script
	for i, s := range sql {
		scripts = append(scripts, query.Script{Name: "q" + string(rune('1'+i)), SQL: s})
	}
	var out bytes.Buffer
	err := query.Run(context.Background(), r, scripts, f, &out)
	return out.String(), err
}

// odd is a row with every kind of value that formats tend to confuse.
const odd = `SELECT NULL AS n, '' AS e, 'NULL' AS t, x'00ff' AS b, 2.0 AS r, 'a,b"c' AS q, 'tab	and
line\' AS s, 7 AS n`

func TestFormats(t *testing.T) {
	r, _ := profileDB(t)
	top := "SELECT name, self_time, total_time FROM js_cpu_profiler_function ORDER BY self_time DESC LIMIT 2"
	for _, tc := range []struct {
		format query.Format
		sql    string
		want   string
	}{
		{query.Table, top, "" +
			"name      self_time  total_time\n" +
			"--------  ---------  ----------\n" +
			"fib       246009000   246009000\n" +
			"busyLoop    3797000   249806000\n" +
			"(2 rows)\n"},
		{query.Table, odd, "" +
			"   n  e   t       b          r  q      s                   n\n" +
			"----  --  ------  -------  ---  -----  ------------------  -\n" +
			"NULL  \"\"  \"NULL\"  x'00ff'  2.0  a,b\"c  \"tab\\tand\\nline\\\\\"  7\n" +
			"(1 row)\n"},
		{query.CSV, top, "name,self_time,total_time\nfib,246009000,246009000\nbusyLoop,3797000,249806000\n"},
		{query.CSV, odd, "n,e,t,b,r,q,s,n\n" + `,"",NULL,\x00ff,2.0,"a,b""c","tab	and` + "\n" + `line\",7` + "\n"},
		{query.TSV, odd, "n\te\tt\tb\tr\tq\ts\tn\n" + `\N` + "\t\tNULL\t" + `\x00ff` + "\t2.0\ta,b\"c\t" + `tab\tand\nline\\` + "\t7\n"},
		{query.JSON, top, `[
{"name":"fib","self_time":246009000,"total_time":246009000},
{"name":"busyLoop","self_time":3797000,"total_time":249806000}
]
`},
		{query.JSON, odd, `[
{"n":null,"e":"","t":"NULL","b":{"blob_hex":"00ff"},"r":2.0,"q":"a,b\"c","s":"tab\tand\nline\\","n_8":7}
]
`},
		{query.JSON, "SELECT 1 AS x WHERE 0", "[]\n"},
		{query.NDJSON, top, `{"name":"fib","self_time":246009000,"total_time":246009000}
{"name":"busyLoop","self_time":3797000,"total_time":249806000}
`},
		// Several statements: one result after another; statements without
		// columns print nothing.
		{query.CSV, "SELECT count(*) AS nodes FROM js_cpu_profiler_node; ; -- nothing\nSELECT 0.5 AS half;", "nodes\n24\n\nhalf\n0.5\n"},
		{query.Table, "SELECT 1 AS x WHERE 0", "x\n-\n(0 rows)\n"},
	} {
		got, err := run(t, r, tc.format, tc.sql)
		if err != nil {
			t.Errorf("%s %q: %v", tc.format, tc.sql, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s %q:\ngot\n%s\nwant\n%s", tc.format, tc.sql, got, tc.want)
		}
	}
}

// A wide result streams: the widths come from the first 1000 rows.
func TestTableLongResult(t *testing.T) {
	r, _ := profileDB(t)
	got, err := run(t, r, query.Table, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
SELECT i FROM n`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 2004 || lines[0] != "   i" || lines[1000] != " 999" || lines[1002] != "1001" || lines[2002] != "(2000 rows)" {
		t.Errorf("%d lines: %q … %q %q … %q", len(lines), lines[0], lines[1000], lines[1002], lines[2002])
	}
}

func TestErrors(t *testing.T) {
	r, _ := profileDB(t)
	for _, tc := range []struct {
		sql  []string
		want string // the error
		out  string // printed before it
	}{
		{[]string{"SELECT 1 AS a;\n  SELECT nosuch FROM js_cpu_profiler_node"},
			"q1:2:10: statement 2: no such column: nosuch", "a\n1\n"},
		{[]string{"SELECT 1 AS a", "SELEC 2"}, `q2:1:1: statement 1: near "SELEC": syntax error`, "a\n1\n"},
		{[]string{"SELECT * FROM nosuch"}, "q1:1:1: statement 1: no such table: nosuch", ""},
		// Run-time errors point at their statement.
		{[]string{"SELECT 1 AS a; SELECT abs(-9223372036854775807 - 1)"}, "q1:1:16: statement 2: SQL logic error: integer overflow", "a\n1\n"},
		// Writes are refused before they run, whatever the statement.
		{[]string{"DELETE FROM js_cpu_profiler_node"}, "q1:1:1: statement 1: " + query.ReadOnlyMessage, ""},
		{[]string{"SELECT 1 AS a;\n\nCREATE TABLE x(a)"}, "q1:3:1: statement 2: " + query.ReadOnlyMessage, "a\n1\n"},
		{[]string{"PRAGMA user_version = 3"}, "q1:1:1: statement 1: " + query.ReadOnlyMessage, ""},
		{[]string{"CREATE TEMP TABLE x(a)"}, "q1:1:1: statement 1: " + query.ReadOnlyMessage, ""},
		{[]string{"PRAGMA query_only = 0; UPDATE js_cpu_profiler_node SET hit_count = 0"},
			"q1:1:24: statement 2: " + query.ReadOnlyMessage, ""},
	} {
		out, err := run(t, r, query.CSV, tc.sql...)
		var qe *query.Error
		if !errors.As(err, &qe) || err.Error() != tc.want || out != tc.out {
			t.Errorf("%q: got error %v and output %q, want %q and %q", tc.sql, err, out, tc.want, tc.out)
		}
	}
	// Nothing was written.
	if got, _ := run(t, r, query.CSV, "SELECT count(*) AS n, sum(hit_count) > 0 AS hits FROM js_cpu_profiler_node"); got != "n,hits\n24,1\n" {
		t.Errorf("after the refusals: %q", got)
	}
}

func TestInterrupted(t *testing.T) {
	r, _ := profileDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := query.Run(ctx, r, []query.Script{{Name: "q", SQL: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
SELECT count(*) FROM n`}}, query.CSV, &out)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, name := range []string{"table", "CSV", "tsv", "json", "ndjson"} {
		if _, err := query.ParseFormat(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := query.ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("xml: %v", err)
	}
}
