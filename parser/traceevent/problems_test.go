package traceevent

import (
	"bytes"
	"strings"
	"testing"

	"tracestreamer/stat"
)

// TestProblemsReachLog counts every Trace Event cell in an input's problems
// and finds each count in the run's Log after flush, with one warning per
// problem cell naming its first offset.
func TestProblemsReachLog(t *testing.T) {
	var p problems
	p.init()
	n := int64(1)
	want := map[[2]stat.Event]int64{}
	for _, e := range stat.Events() {
		if !e.IsJSON() {
			continue
		}
		for _, typ := range stat.Types() {
			p.Add(e, typ, n, 100+n)
			want[[2]stat.Event{e, stat.Event(typ)}] = n
			n++
		}
	}
	var out bytes.Buffer
	log := stat.NewLog(&out)
	p.flush(log, "in.json")
	for k, c := range want {
		if got := log.Count(k[0], stat.Type(k[1])); got != c {
			t.Errorf("%s/%s: %d, want %d", k[0], stat.Type(k[1]), got, c)
		}
	}
	if got := strings.Count(out.String(), "\n"); got != 45*4 {
		t.Errorf("%d warnings, want %d (one per problem cell)", got, 45*4)
	}
	if !strings.Contains(out.String(), "tracestreamer: warning: in.json: json_file data_lost: 2 (first at byte 102)\n") {
		t.Errorf("warnings:\n%.300s", out.String())
	}
}
