package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestQueryCommand runs `tracestreamer query` on a database and on traces
// (converted to a temporary database that is gone afterwards).
func TestQueryCommand(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(testutil.Root(), "testdata", "node", "profile.cpuprofile")
	chromium := filepath.Join(testutil.Root(), "testdata", "chromium", "trace.json.gz")
	db := filepath.Join(dir, "cpu.db")
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-q", profile, "-o", db}, &out, &errs); code != 0 {
		t.Fatalf("conversion: %d %s", code, errs.String())
	}
	sqlFile := filepath.Join(dir, "q.sql")
	os.WriteFile(sqlFile, []byte("-- the hottest function\nSELECT name, self_time FROM js_cpu_profiler_function\nORDER BY self_time DESC LIMIT 1;\n\nSELECT nope;\n"), 0o644)
	// This process's temporary folders (other runs may be making theirs).
	mine := filepath.Join(os.TempDir(), fmt.Sprintf("tracestreamer-%d-*", os.Getpid()))
	tmpBefore, _ := filepath.Glob(mine)
	for _, tc := range []struct {
		args       []string
		code       int
		out, errIn string
	}{
		{[]string{db, "SELECT count(*) AS nodes FROM js_cpu_profiler_node"}, 0, "nodes\n24\n", ""},
		{[]string{"--format", "csv", db, "SELECT 1 AS a", "SELECT 'x' AS b"}, 0, "a\n1\n\nb\nx\n", ""},
		{[]string{db, "--format=ndjson", "SELECT NULL AS n, x'01' AS b"}, 0, `{"n":null,"b":{"blob_hex":"01"}}` + "\n", ""},
		{[]string{db, "-f", sqlFile, "--format", "table"}, 1, "name  self_time\n----  ---------\nfib   246009000\n(1 row)\n",
			"tracestreamer: query: " + sqlFile + ":5:8: statement 2: no such column: nope\n"},
		{[]string{db, "DROP TABLE js_cpu_profiler_node"}, 1, "", "1:1: statement 1: refused: the statement would change the database"},
		// A trace instead of a database.
		{[]string{profile, "SELECT count(*) AS nodes FROM js_cpu_profiler_node"}, 0, "nodes\n24\n", ""},
		{[]string{chromium, "--format", "csv", "SELECT count(*) AS slices, count(DISTINCT name) AS names FROM callstack"}, 0,
			"slices,names\n17222,118\n", ""},
		{[]string{db, "--format", "xml", "SELECT 1"}, 2, "", `unknown format "xml"`},
		{[]string{db}, 2, "", "no SQL given"},
		{[]string{filepath.Join(dir, "missing.db"), "SELECT 1"}, 1, "", "no such file or directory"},
	} {
		out.Reset()
		errs.Reset()
		code := runQuery(context.Background(), tc.args, nil, &out, &errs)
		if code != tc.code || !strings.HasPrefix(out.String(), tc.out) || !strings.Contains(errs.String(), tc.errIn) {
			t.Errorf("%q: exit %d, output %q, stderr %q; want %d, %q, %q", tc.args, code, out.String(), errs.String(),
				tc.code, tc.out, tc.errIn)
		}
	}
	// A trace on standard input.
	in, err := os.Open(profile)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out.Reset()
	errs.Reset()
	if code := runQuery(context.Background(), []string{"-", "SELECT count(*) AS samples FROM js_cpu_profiler_sample"}, in, &out, &errs); code != 0 || out.String() != "samples\n333\n" {
		t.Errorf("a trace on standard input: exit %d, %q, %q", code, out.String(), errs.String())
	}
	// The temporary databases of the trace inputs are gone.
	tmpAfter, _ := filepath.Glob(mine)
	if len(tmpAfter) > len(tmpBefore) {
		t.Errorf("temporary files left: %v (before: %v)", tmpAfter, tmpBefore)
	}
}

func TestInfoCommand(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(testutil.Root(), "testdata", "node", "profile.cpuprofile")
	db := filepath.Join(dir, "cpu.db")
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-q", profile, "-o", db}, &out, &errs); code != 0 {
		t.Fatalf("conversion: %d %s", code, errs.String())
	}
	junk := filepath.Join(dir, "junk.txt")
	os.WriteFile(junk, []byte("hello"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		out  []string
		err  string
	}{
		{[]string{profile, db}, 0, []string{"format       cpuprofile\n", "  nodes        24\n", "  samples      387\n",
			"database    " + db + "\n", "  js_cpu_profiler_node       24\n", "  0   " + profile + "  cpuprofile  none         7269"}, ""},
		{[]string{junk}, 1, nil, "junk.txt: not a tracestreamer database nor an input tracestreamer reads"},
		{nil, 2, nil, "no file given"},
		{[]string{filepath.Join(dir, "missing")}, 1, nil, "no such file or directory"},
	} {
		out.Reset()
		errs.Reset()
		code := run(context.Background(), append([]string{"info"}, tc.args...), &out, &errs)
		if code != tc.code || !strings.Contains(errs.String(), tc.err) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tc.args, code, errs.String(), tc.code, tc.err)
		}
		for _, w := range tc.out {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: output lacks %q:\n%s", tc.args, w, out.String())
			}
		}
	}
}
