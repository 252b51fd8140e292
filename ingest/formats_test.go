package ingest

import (
	"testing"

	"tracestreamer/internal/testutil"
)

// TestInputFormats: every entry of the registry is complete and named once,
// and each bundled fixture is recognised as its format by exactly one entry.
func TestInputFormats(t *testing.T) {
	seen := map[format]bool{}
	for _, f := range inputFormats() {
		if f.name == formatUnknown || seen[f.name] || f.detect == nil || f.read == nil || f.usable == nil || f.event == 0 {
			t.Errorf("incomplete or repeated entry %q", f.name)
		}
		seen[f.name] = true
	}
	for _, tt := range []struct {
		fixture string
		want    format
	}{
		{"node/snapshot.heapsnapshot.gz", formatHeapSnapshot},
		{"node/timeline.heaptimeline.gz", formatHeapSnapshot},
		{"node/profile.cpuprofile", formatCPUProfile},
		{"node/trace.json", formatTraceEvent},
		{"chromium/trace.json.gz", formatTraceEvent},
		{"rawheap/hybrid.dyn.rawheap.gz", formatRawheap},
		{"rawheap/static-node.rawheap.gz", formatRawheap},
	} {
		head := testutil.Fixture(t, tt.fixture)
		head = head[:min(len(head), sniffSize)]
		var matched []format
		for _, f := range inputFormats() {
			if f.detect(head) {
				matched = append(matched, f.name)
			}
		}
		if len(matched) != 1 || matched[0] != tt.want || detect(head) != tt.want {
			t.Errorf("%s: recognised as %q, want %q", tt.fixture, matched, tt.want)
		}
	}
	if !seen[formatHTrace] || !formatNamed(formatHTrace).detect([]byte("OHOSPROF")) {
		t.Error("htrace magic not recognised")
	}
}
