package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/rawheap"
)

// TestDescribeInPasses: a compressed dynamic dump whose metadata and index
// do not fit the bytes the first pass keeps is described in further passes
// over the file, as an uncompressed copy is in place; from standard input,
// which cannot be read again, as far as the kept bytes go.
func TestDescribeInPasses(t *testing.T) {
	gz := filepath.Join(testutil.Root(), "testdata/rawheap/v1-2026-leak-final.rawheap.gz")
	zr, err := gzip.NewReader(bytes.NewReader(mustReadFile(t, gz)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want, err := rawheap.Describe(bytes.NewReader(raw), int64(len(raw)))
	if err != nil || want.Problem != "" || want.Objects != 28407 {
		t.Fatalf("in place: %+v, %v", want, err)
	}
	for _, keep := range []int{16, 4 << 10, 60 << 10} {
		s, err := Sniff(context.Background(), gz, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, size, err := describeInPasses(context.Background(), s, keep)
		s.Close()
		if err != nil || size != int64(len(raw)) || *d != *want {
			t.Errorf("keep %d: %+v, %d bytes, %v; want %+v", keep, d, size, err, want)
		}

		s, err = Sniff(context.Background(), "-", bytes.NewReader(mustReadFile(t, gz)), nil)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err = describeInPasses(context.Background(), s, keep)
		s.Close()
		if err != nil || d.Objects != -1 || d.Timestamp != want.Timestamp || d.VMType != "dynamic" ||
			!strings.Contains(d.Problem, "not from standard input") {
			t.Errorf("stdin, keep %d: %+v, %v", keep, d, err)
		}
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
