package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"tracestreamer/parser/rawheap"
)

// TestFixtureMetadata reads the metadata.json the fixtures carry: every
// dynamic fixture carries the same 50 748 bytes (scripts/rawheap/fixtures.sh
// appends one file to each); a file that is no .rawheap gives none.
func TestFixtureMetadata(t *testing.T) {
	root := "../../.."
	for _, tc := range []struct {
		fixture string
		size    int // 0: an error
	}{
		{rawheapMetaFixture, 50748},
		{"testdata/rawheap/v2.rawheap.gz", 50748},
		{"testdata/rawheap/v1-2024.rawheap.gz", 50748},
		{"testdata/rawheap/v2-2026.rawheap.gz", 50748},
		{"testdata/rawheap/static-node.rawheap.gz", 0}, // a static dump carries none
		{"testdata/node/snapshot.heapsnapshot.gz", 0},  // not a .rawheap
		{"testdata/rawheap/no-such.rawheap.gz", 0},     // missing
	} {
		meta, err := fixtureMetadata(filepath.Join(root, tc.fixture))
		if tc.size == 0 {
			if err == nil {
				t.Errorf("%s: %d bytes of metadata, want an error", tc.fixture, len(meta))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.fixture, err)
			continue
		}
		if len(meta) != tc.size || !bytes.HasPrefix(meta, []byte(`{"type_enum": {"INVALID": 8,`)) || meta[len(meta)-1] != '}' {
			t.Errorf("%s: %d bytes %.30q…, want %d bytes of the runtime's metadata.json", tc.fixture, len(meta), meta, tc.size)
			continue
		}
		m, err := rawheap.ParseMetadata(meta)
		if err != nil {
			t.Errorf("%s: %v", tc.fixture, err)
		} else if m.TypeOf("TAGGED_ARRAY") == 0 || m.TypeOf("HCLASS") == 0 {
			t.Errorf("%s: metadata without TAGGED_ARRAY or HCLASS, which mkrawheap needs", tc.fixture)
		}
	}
}

// TestGenRawheapMissing: without the V8 snapshot the dump is made of, the
// input is missing (make bench's snapshot case makes it); with it but no
// mkrawheap, generation fails; neither leaves a file behind.
func TestGenRawheapMissing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		source  bool
		noInput bool // the error is noInput{"snapshot"}
	}{
		{"no snapshot", false, true},
		{"no mkrawheap", true, false},
	} {
		dir := t.TempDir()
		if tc.source {
			if err := os.WriteFile(filepath.Join(dir, rawheapSource), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := genRawheap(filepath.Join(dir, "no-bin"), "../../..", filepath.Join(dir, "snapshot.rawheap"))
		var missing noInput
		if got := errors.As(err, &missing) && missing == (noInput{"snapshot"}); err == nil || got != tc.noInput {
			t.Errorf("%s: %v, want noInput{snapshot} %v", tc.name, err, tc.noInput)
		}
		entries, _ := os.ReadDir(dir)
		if want := map[bool]int{false: 0, true: 1}[tc.source]; len(entries) != want {
			t.Errorf("%s: %d files left in the cache, want %d (the source)", tc.name, len(entries), want)
		}
	}
}
