package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestGeneratedFileIsCurrent fails when schema changed and tables_gen.go was
// not regenerated (go generate ./tables).
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(testutil.Root(), "tables", "tables_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		line, g, w, _ := testutil.FirstDiff(string(got), string(want))
		t.Errorf("tables/tables_gen.go is stale (go generate ./tables): line %d is\n%s\nwant\n%s", line, g, w)
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{"id": "ID", "file_id": "FileID", "chainId": "ChainID",
		"timestamp_us": "TimestampUS", "heap_file_ids": "HeapFileIDs", "cpu_profile_id": "CPUProfileID",
		"parentSpanId": "ParentSpanID", "argsetid": "Argsetid", "itid": "Itid"} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}
