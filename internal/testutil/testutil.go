// Package testutil holds helpers shared by tests: reading the committed fixtures
// and looking at rows collected by a rows.Memory sink.
package testutil

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"tracestreamer/rows"
)

// Root returns the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Fixture returns the contents of testdata/<name>, gunzipped if it ends in .gz.
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(name) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// Captures returns the bundled real Trace Event captures (Chromium busy page
// and startup, node I/O program and short script: the ones
// internal/cmd/benchrun's realistic trace tiles), each read whole and
// gunzipped, and their total size: the benchmarks' inputs.
func Captures(tb testing.TB) (files [][]byte, size int64) {
	tb.Helper()
	for _, name := range []string{"chromium/busy.json.gz", "chromium/trace.json.gz", "node/busy.json.gz", "node/trace.json"} {
		b := Fixture(tb, name)
		files = append(files, b)
		size += int64(len(b))
	}
	return files, size
}

// Ints returns column col of every row of table in m as integers (NULL as the
// sentinel value null).
func Ints(m *rows.Memory, table string, col int, null int64) []int64 {
	var out []int64
	for _, r := range m.Rows[table] {
		if r[col].Null {
			out = append(out, null)
		} else {
			out = append(out, r[col].Int)
		}
	}
	return out
}

// IntRows returns the rows of table with every column as an integer.
func IntRows(m *rows.Memory, table string) [][]int64 {
	var out [][]int64
	for _, r := range m.Rows[table] {
		row := make([]int64, len(r))
		for i, v := range r {
			row[i] = v.Int
		}
		out = append(out, row)
	}
	return out
}

// Repeat is an endless stream of one byte (bound it with io.LimitReader):
// inputs of any size without holding them.
type Repeat byte

func (r Repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
