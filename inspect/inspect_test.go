package inspect_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/heapfile"
	"tracestreamer/ingest"
	"tracestreamer/inspect"
	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/store"
)

func fixture(parts ...string) string {
	return filepath.Join(append([]string{testutil.Root(), "testdata"}, parts...)...)
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// arktsCapture writes the node snapshot twice and the CPU profile into an
// htrace file as the ArkTS plugin does.
func arktsCapture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "arkts.htrace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := arktstest.NewSession(f, [htrace.NumClocks]uint64{1e18, 1e18, 1e9, 1e9, 1e9, 1e9, 1e9})
	if err != nil {
		t.Fatal(err)
	}
	snap := gunzip(t, fixture("node", "snapshot.heapsnapshot.gz"))
	prof, err := os.ReadFile(fixture("node", "profile.cpuprofile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error {
			return s.Config(&hiprofpb.ArkTSConfig{Pid: 1, Type: hiprofpb.ArkTSConfig_SNAPSHOT, EnableCpuProfiler: true})
		},
		s.CPUStart,
		func() error { return s.Snapshot(snap) },
		func() error { return s.Snapshot(snap) },
		func() error { return s.CPUProfile(prof) },
		s.Close,
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func holds(t *testing.T, tr *inspect.Trace) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	for _, it := range tr.Holds {
		m[strings.TrimSpace(it.What)] = it.Count
	}
	return m
}

func TestReadTrace(t *testing.T) {
	for _, tc := range []struct {
		path        string
		format, zip string
		content     int64
		want        map[string]int64
	}{
		{fixture("chromium", "trace.json.gz"), "traceevent", "gzip", 4396080,
			map[string]int64{"events": 18264, "phase X": 16144, "phase I": 955, "phase s": 479, "phase f": 479,
				"phase M": 83, "phase B": 34, "phase b": 1, "processes": 10, "threads": 74}},
		{fixture("node", "profile.cpuprofile"), "cpuprofile", "none", 7269,
			map[string]int64{"CPU profile": 1, "nodes": 24, "samples": 387}},
		{fixture("node", "snapshot.heapsnapshot.gz"), "heapsnapshot", "gzip", 4594124,
			map[string]int64{"heap snapshot": 1, "strings": 23216, "locations": 5245}},
		{fixture("node", "timeline.heaptimeline.gz"), "heapsnapshot", "gzip", 4564329,
			map[string]int64{"heap timeline (allocation tracking)": 1, "timeline samples": 8}},
	} {
		tr, err := inspect.ReadTrace(context.Background(), tc.path, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		st, _ := os.Stat(tc.path)
		if tr.Format != tc.format || tr.Compression != tc.zip || tr.Bytes != st.Size() || tr.Content != tc.content {
			t.Errorf("%s: %s %s %d %d bytes, want %s %s %d %d", tc.path, tr.Format, tr.Compression, tr.Bytes, tr.Content,
				tc.format, tc.zip, st.Size(), tc.content)
		}
		got := holds(t, tr)
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s = %d, want %d (all: %v)", tc.path, k, got[k], v, got)
			}
		}
	}
}

// TestReadTraceAgreesWithConversion: what info counts in an htrace capture is
// what a conversion makes of it.
func TestReadTraceAgreesWithConversion(t *testing.T) {
	in := arktsCapture(t)
	tr, err := inspect.ReadTrace(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := holds(t, tr)
	db := filepath.Join(t.TempDir(), "a.db")
	sum, err := ingest.Run(context.Background(), []string{in}, ingest.Options{Output: db})
	if err != nil {
		t.Fatal(err)
	}
	if got["ArkTS heap snapshots"] != 2 || got["ArkTS heap snapshots"] != sum.Rows["js_heap_files"] ||
		got["ArkTS CPU profiles"] != 1 || got["ArkTS CPU profiles"] != sum.Rows["js_cpu_profile"] ||
		got["ArkTS heap timelines"] != 0 {
		t.Errorf("info %v, conversion js_heap_files %d js_cpu_profile %d", got, sum.Rows["js_heap_files"], sum.Rows["js_cpu_profile"])
	}
	var out bytes.Buffer
	tr.Write(&out)
	if !strings.Contains(out.String(), "format       htrace\n") || !strings.Contains(out.String(), "arkts-plugin_config 1") {
		t.Errorf("output:\n%s", out.String())
	}

	d, err := inspect.ReadDatabase(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for _, tab := range d.Tables {
		rows[tab.Name] = tab.Rows
	}
	for _, name := range sum.Tables {
		if rows[name] != sum.Rows[name] {
			t.Errorf("table %s: info %d rows, conversion %d", name, rows[name], sum.Rows[name])
		}
	}
	if len(d.Sources) != 1 || d.Sources[0][1] != in || d.Sources[0][2] != "htrace" || d.Sources[0][5] != "0,1" ||
		d.Sources[0][6] != "0" || !d.HasRange || d.End <= d.Start {
		t.Errorf("sources %q, range %v %d..%d", d.Sources, d.HasRange, d.Start, d.End)
	}
	out.Reset()
	d.Write(&out)
	for _, want := range []string{"written by  tracestreamer " + ingest.Version, "js_heap_files              2\n", "0 indexes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("database output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestReadTraceUnknown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.txt")
	os.WriteFile(path, []byte("hello, world"), 0o644)
	if _, err := inspect.ReadTrace(context.Background(), path, nil); !errors.Is(err, inspect.ErrUnknown) {
		t.Errorf("got %v", err)
	}
	if inspect.IsDatabase(path) {
		t.Error("a text file taken for a database")
	}
	// A .rawheap that is not ArkTS's (ArkWeb and JSVM write V8's own format).
	path = filepath.Join(t.TempDir(), "oom.rawheap")
	os.WriteFile(path, []byte("\x01\x02V8 heap dump of another layout"), 0o644)
	if _, err := inspect.ReadTrace(context.Background(), path, nil); !errors.Is(err, inspect.ErrUnknown) ||
		!strings.Contains(err.Error(), "a V8-format .rawheap from ArkWeb or JSVM is not read") {
		t.Errorf("got %v", err)
	}
}

// TestReadRawheapDamaged: a dump without its trailer (the raw dump alone, as
// the runtime writes it, or cut short) is described by its header, saying
// that a conversion cannot read it; a static dump cut in a record by the
// records before the cut.
func TestReadRawheapDamaged(t *testing.T) {
	dir := t.TempDir()
	dyn := gunzip(t, fixture("rawheap", "v2-2026.rawheap.gz"))
	dump := binary.LittleEndian.Uint32(dyn[len(dyn)-8:])
	sta := gunzip(t, fixture("rawheap", "static-node.rawheap.gz"))
	for _, tc := range []struct {
		name    string
		b       []byte
		want    map[string]int64
		problem string
	}{
		{"alone.rawheap", dyn[:dump], map[string]int64{"ArkTS heap dump": 1, "metadata trailer": 0, "header types": 3,
			"timestamp": 1764000000000000}, "no valid metadata trailer"},
		{"cut.rawheap.gz", dyn[:len(dyn)-100], map[string]int64{"ArkTS heap dump": 1, "metadata trailer": 0,
			"timestamp": 1764000000000000}, "no valid metadata trailer"},
		{"cut-static.rawheap.gz", sta[:len(sta)-10], map[string]int64{"ArkTS heap dump": 1, "records": 14, "roots": 140},
			"cut by the end of the file"},
	} {
		path := filepath.Join(dir, tc.name)
		b := tc.b
		if strings.HasSuffix(path, ".gz") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			b = buf.Bytes()
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := inspect.ReadTrace(context.Background(), path, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := holds(t, tr)
		for k, v := range tc.want {
			if n, ok := got[k]; !ok || n != v {
				t.Errorf("%s: %s = %d, want %d (all %v)", tc.name, k, got[k], v, got)
			}
		}
		if _, ok := got["objects"]; ok && !strings.Contains(tc.name, "static") {
			t.Errorf("%s: objects counted without a section index: %v", tc.name, got)
		}
		var out bytes.Buffer
		tr.Write(&out)
		if !strings.Contains(out.String(), tc.problem) {
			t.Errorf("%s: output lacks %q:\n%s", tc.name, tc.problem, out.String())
		}
		t.Logf("%s:\n%s", tc.name, out.String())
	}
}

// TestReadRawheap: info's description of each .rawheap fixture is the same
// read compressed, uncompressed (in place) and from standard input, and
// agrees with a conversion of it: a dynamic dump's objects are the nodes
// carrying an object id (every other node has id 0, SyntheticRoot 1); a
// static dump's roots are the elements of its StaticRoot node.
func TestReadRawheap(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, kind, version, vm string
		ts                      int64
	}{
		{"v1", "dynamic V1", "1.0.0", "", 1764000000000000},
		{"v1-2024", "dynamic V1 (2024 form, no version)", "1.0.0", "", 0},
		{"v2", "dynamic V2", "2.0.0", "", 1764000000000000},
		{"v2-2026", "dynamic V2", "2.0.0", "dynamic", 1764000000000000},
		{"v1-2026-leak-baseline", "dynamic V1", "1.0.0", "dynamic", 1764000000000000},
		{"v1-2026-leak-target", "dynamic V1", "1.0.0", "dynamic", 1764000060000000},
		{"v1-2026-leak-final", "dynamic V1", "1.0.0", "dynamic", 1764000120000000},
		{"hybrid.dyn", "dynamic V2", "2.0.0", "", 1764000000000000},
		{"static-node", "static", "3.0.0", "", 1795000000000},
		{"static-leak-baseline", "static", "3.0.0", "", 1795000000000},
		{"static-leak-final", "static", "3.0.0", "", 1795000120000},
		{"hybrid.sta", "static, the static half of a hybrid pair", "3.0.0", "", 1795000000000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gz := fixture("rawheap", tc.name+".rawheap.gz")
			raw := gunzip(t, gz)
			plain := filepath.Join(dir, tc.name+".rawheap")
			if err := os.WriteFile(plain, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			var first map[string]int64
			for _, in := range []struct {
				path, zip string
				stdin     io.Reader
			}{{gz, "gzip", nil}, {plain, "none", nil}, {"-", "gzip", bytes.NewReader(mustRead(t, gz))}} {
				tr, err := inspect.ReadTrace(context.Background(), in.path, in.stdin)
				if err != nil {
					t.Fatal(err)
				}
				got := holds(t, tr)
				var out bytes.Buffer
				tr.Write(&out)
				if in.path == gz {
					t.Logf("%s", out.String())
				}
				st, _ := os.Stat(in.path)
				if tr.Format != "rawheap" || tr.Compression != in.zip || tr.Content != int64(len(raw)) ||
					in.path != "-" && tr.Bytes != st.Size() {
					t.Errorf("%s: %s %s %d bytes (%d decompressed)", in.path, tr.Format, tr.Compression, tr.Bytes, tr.Content)
				}
				note := map[string]string{}
				for _, it := range tr.Holds {
					note[it.What] = it.Note
				}
				if note["ArkTS heap dump"] != tc.kind+", version "+tc.version || got["timestamp"] != tc.ts {
					t.Errorf("%s: %q, timestamp %d", in.path, note["ArkTS heap dump"], got["timestamp"])
				}
				if vm := strings.Contains(note["header types"], "vm dynamic"); vm != (tc.vm == "dynamic") {
					t.Errorf("%s: header types %q", in.path, note["header types"])
				}
				if note["problem"] != "" {
					t.Errorf("%s: problem %q", in.path, note["problem"])
				}
				if first == nil {
					first = got
				} else if fmt.Sprint(got) != fmt.Sprint(first) {
					t.Errorf("%s: %v, compressed %v", in.path, got, first)
				}
			}
			// What a conversion makes of it.
			db := filepath.Join(dir, tc.name+".db")
			if _, err := ingest.Run(context.Background(), []string{gz}, ingest.Options{Output: db}); err != nil {
				t.Fatal(err)
			}
			rd, err := store.OpenReader(db)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			q := func(sql string) int64 {
				n, err := rd.QueryInt(sql)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if strings.HasPrefix(tc.kind, "dynamic") {
				// The objects are the nodes with an id of their own: not the
				// synthetic root (1), nor the nodes the translator gives id 0,
				// which keep 0 (the first) or get a synthetic id, 2^52 and
				// more (heapfile.SyntheticID).
				if n := q(fmt.Sprintf(`SELECT count(*) FROM js_heap_nodes WHERE id NOT IN (0, 1) AND id < %d`,
					heapfile.SyntheticID(0, 0))); first["objects"] != n {
					t.Errorf("objects %d, conversion's nodes with an object id %d", first["objects"], n)
				}
				if first["metadata trailer"] != 1 {
					t.Errorf("trailer %d", first["metadata trailer"])
				}
			} else {
				n := q(`SELECT edge_count FROM js_heap_nodes n JOIN js_heap_string s ON s.file_id = n.file_id AND s.file_index = n.name WHERE s.string LIKE 'StaticRoot[%'`)
				if first["roots"] != n {
					t.Errorf("roots %d, the conversion's StaticRoot node has %d edges", first["roots"], n)
				}
			}
			t.Logf("js_heap_nodes %d", q(`SELECT count(*) FROM js_heap_nodes`))
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
