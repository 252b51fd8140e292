package cpuprofile

import (
	"context"
	"testing"

	"tracestreamer/internal/testutil"
)

// FuzzParse parses arbitrary profile text, repairing ArkTS names: never a
// panic, and the runs of a parsed profile are in time order, each ending where
// the next starts.
func FuzzParse(f *testing.F) {
	f.Add([]byte(refProfile))
	f.Add([]byte(`{"head":{"functionName":"(root)","id":1,"children":[{"functionName":"f","id":2,"lineNumber":3}]},"startTime":1.5,"endTime":2,"samples":[2,1],"timestamps":[1500001,1500003]}`))
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"a"b","scriptId":"0","url":""}}],"startTime":0,"samples":[1,1],"timeDeltas":[1,-1]}`))
	for _, shape := range hostileShapes {
		f.Add(genHostile(shape, 2000)[:min(4000, len(genHostile(shape, 2000)))])
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		testutil.CountExec("FuzzParse")
		p, _, err := ParseRepairing(context.Background(), text)
		if err != nil {
			return
		}
		runs := p.Runs()
		for i := 1; i < len(runs); i++ {
			if runs[i].Start < runs[i-1].Start || runs[i-1].End != runs[i].Start {
				t.Fatalf("run %d %+v after %+v", i, runs[i], runs[i-1])
			}
		}
		if n := len(runs); n > 0 && runs[n-1].End < runs[n-1].Start {
			t.Fatalf("last run %+v ends before it starts", runs[n-1])
		}
		p.CompatRuns()
	})
}
