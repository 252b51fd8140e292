package inspect_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/ingest"
	"tracestreamer/inspect"
	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
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
	// A format the conversion reads but info does not count: format and size.
	raw := fixture("rawheap", "static-leak-final.rawheap.gz")
	tr, err := inspect.ReadTrace(context.Background(), raw, nil)
	if err != nil || tr.Format != "rawheap" || tr.Compression != "gzip" || tr.Content != int64(len(gunzip(t, raw))) || len(tr.Holds) != 0 {
		t.Errorf("rawheap: %+v, %v", tr, err)
	}
}
