package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

var rawheapTestdata = filepath.Join(testutil.Root(), "testdata", "rawheap") + string(filepath.Separator)

// TestStaticRawheapRowsEqualTranslation converts static (ArkTS 1.2) dumps
// and a hybrid pair, and the translator's .heapsnapshot of each, and compares
// every js_heap_* row, the analysis' included: a dump alone (compressed), the
// three dumps of one process in one run (leaks), and the pair (dynamic half
// first, as the translator takes it).
func TestStaticRawheapRowsEqualTranslation(t *testing.T) {
	tr := func(name string) string { return rawheapTestdata + name + ".translated.heapsnapshot.gz" }
	raw := func(name string) string { return rawheapTestdata + name + ".rawheap.gz" }
	leak := []string{"static-leak-baseline", "static-leak-target", "static-leak-final"}
	for _, c := range []struct {
		name      string
		raw, want []string
	}{
		{"V3", []string{raw("static-node")}, []string{tr("static-node")}},
		{"V3, three dumps of one process", []string{raw(leak[0]), raw(leak[1]), raw(leak[2])}, []string{tr(leak[0]), tr(leak[1]), tr(leak[2])}},
		{"hybrid pair", []string{raw("hybrid.dyn"), raw("hybrid.sta")}, []string{tr("hybrid")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := convertHeaps(t, c.raw, "a.db"), convertHeaps(t, c.want, "b.db")
			if files := testutil.Query(t, a, "SELECT count(*) FROM js_heap_files"); files[0] != fmt.Sprint(len(c.want)) {
				t.Errorf("%s heap files, want %d", files[0], len(c.want))
			}
			if len(c.raw) == 2 {
				// Each file of the pair has its source row; the heap file is
				// listed under the dynamic one.
				got := testutil.Query(t, a, "SELECT format, heap_file_ids FROM source ORDER BY id")
				if fmt.Sprint(got) != "[rawheap|0 rawheap|]" {
					t.Errorf("source rows %q", got)
				}
				if n := testutil.Query(t, a, "SELECT count FROM stat WHERE event_name = 'rawheap' AND stat_type = 'received'"); fmt.Sprint(n) != "[2]" {
					t.Errorf("rawheap received %v", n)
				}
			}
			compared, diffs := compareHeapTables(t, a, b, len(c.want) == 3)
			t.Logf("%d rows compared, %d differences", compared, diffs)
		})
	}
}

// TestStaticRawheapFaults converts damaged static dumps: what is kept, the
// warning naming the file and the offset, the stat row, and the run's error
// only when nothing was usable.
func TestStaticRawheapFaults(t *testing.T) {
	good := testutil.Fixture(t, "rawheap/static-node.rawheap.gz")
	// The first record of objects (INSTANCE_DUMP), after the string pool
	// and the roots.
	objects := 33
	for good[objects] != 0x14 {
		objects += 17 + int(binary.LittleEndian.Uint32(good[objects+9:]))
	}
	for _, c := range []struct {
		name   string
		data   []byte
		warn   string
		typ    string
		nodes  string // js_heap_nodes rows, "" when the run fails
		errMsg string
	}{
		{"cut in the objects", good[:objects+5000], fmt.Sprintf("offset %d: record tag 0x14: body of", objects), "data_lost", "1", ""},
		{"header only", good[:33], "", "", "", "nothing usable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "x.rawheap"), filepath.Join(dir, "x.db")
			if err := os.WriteFile(in, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			_, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: &warn})
			if c.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), c.errMsg) {
					t.Fatalf("error %v, want %q", err, c.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(warn.String(), in+": "+c.warn) {
				t.Errorf("warnings %q, want %q", warn.String(), c.warn)
			}
			db := testutil.OpenDB(t, out)
			if got := testutil.Query(t, db, "SELECT count FROM stat WHERE event_name = 'rawheap' AND stat_type = ?", c.typ); len(got) != 1 || got[0] != "1" {
				t.Errorf("rawheap %s: %v", c.typ, got)
			}
			// The roots and the complete objects before the cut: more than
			// the two root nodes, fewer than the whole dump's.
			got := testutil.Query(t, db, "SELECT count(*) FROM js_heap_files")
			n := testutil.Query(t, db, "SELECT count(*) FROM js_heap_nodes")
			if got[0] != c.nodes || n[0] == "0" {
				t.Errorf("%s heap files, %s nodes", got[0], n[0])
			}
		})
	}
}

// TestHybridPairOrder: a pair is a dynamic dump followed by its static dump;
// the other way round, or alone, each is read as a heap file of its own.
func TestHybridPairOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		inputs []string
		files  string
	}{
		{"dynamic, static", []string{"hybrid.dyn", "hybrid.sta"}, "1"},
		{"static, dynamic", []string{"hybrid.sta", "hybrid.dyn"}, "2"},
		{"static alone", []string{"hybrid.sta"}, "1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in []string
			for _, f := range c.inputs {
				in = append(in, rawheapTestdata+f+".rawheap.gz")
			}
			db := convertHeaps(t, in, "x.db")
			if got := testutil.Query(t, db, "SELECT count(*) FROM js_heap_files"); got[0] != c.files {
				t.Errorf("%s heap files, want %s", got[0], c.files)
			}
			// Edge type 7 is "xref", the translator's last edge type.
			if got := testutil.Query(t, db, "SELECT count(*) FROM js_heap_edges WHERE type = 7"); len(c.inputs) == 2 && c.files == "1" && got[0] != "32" || c.files == "2" && got[0] != "0" {
				t.Errorf("%s xref edges, want 32", got[0])
			}
		})
	}
}

// TestHybridPairCancelled: a run cancelled before it reads a hybrid pair
// (an uncompressed dynamic half, read at offsets, and its static half) reads
// nothing of either half and ends with the context's error, without a
// warning. The static half has an extra record of an unknown tag at its end,
// which the run not cancelled warns about: reading the half reaches it.
func TestHybridPairCancelled(t *testing.T) {
	dir := t.TempDir()
	sta := filepath.Join(dir, "hybrid.sta.rawheap")
	extra := make([]byte, 17+4) // tag, 8-byte id, body length, item count; a body of 4 bytes
	extra[0] = 0xEE
	binary.LittleEndian.PutUint32(extra[9:], 4)
	if err := os.WriteFile(sta, append(testutil.Fixture(t, "rawheap/hybrid.sta.rawheap.gz"), extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	// The dynamic half uncompressed: read where it is, at offsets.
	dyn := filepath.Join(dir, "hybrid.dyn.rawheap")
	if err := os.WriteFile(dyn, testutil.Fixture(t, "rawheap/hybrid.dyn.rawheap.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []string{dyn, sta}
	for _, cancelled := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var warn bytes.Buffer
		_, err := Run(ctx, in, Options{Output: filepath.Join(dir, fmt.Sprintf("%v.db", cancelled)), Warnings: &warn,
			BeforeInput: func(string) {
				if cancelled {
					cancel()
				}
			}})
		cancel()
		switch {
		case !cancelled && (err != nil || !strings.Contains(warn.String(), "record of unknown tag 0xee")):
			t.Errorf("not cancelled: %v, warnings %q", err, warn.String())
		case cancelled && (!errors.Is(err, context.Canceled) || warn.Len() > 0):
			t.Errorf("cancelled: %v, want context.Canceled; warnings %q", err, warn.String())
		}
	}
}
