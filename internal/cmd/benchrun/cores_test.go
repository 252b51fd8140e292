package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestMeasurePeakNotInherited holds 300 MB in this process, then measures a
// run of a program that uses a few MB: its peak must be its own, not this
// process's (see resetPeak).
func TestMeasurePeakNotInherited(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector's shadow of the freed 300 MB stays resident (make test runs this without it)")
	}
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("no /proc/self/clear_refs here:", err)
	}
	prog, err := exec.LookPath("true")
	if err != nil {
		t.Skip(err)
	}
	held := make([]byte, 300<<20)
	for i := range held {
		held[i] = byte(i)
	}
	held = nil
	out := filepath.Join(t.TempDir(), "none.db")
	f, err := measure(exec.Command(prog), out)
	if err != nil {
		t.Fatal(err)
	}
	if f.rss <= 0 || f.rss > 100<<20 {
		t.Errorf("peak RSS of true = %d MB, want (0, 100]", f.rss>>20)
	}
	if f.db != 0 {
		t.Errorf("db = %d, want 0: true writes no database", f.db)
	}
}

func TestCoresInput(t *testing.T) {
	inputs := []string{"trace-real", "trace-29mb", "snapshot", "rawheap"}
	for _, tc := range []struct {
		only string
		want []string
	}{
		{"", inputs},
		{"cores", inputs},
		{"snapshot", []string{"snapshot"}},
		{"trace", []string{"trace-real", "trace-29mb"}},
		{"cores/snapshot", []string{"snapshot"}},
		{"cores/29mb", []string{"trace-29mb"}},
		{"cores/rawheap", []string{"rawheap"}},
		{"heap", []string{"rawheap"}},
		{"timeline", nil},
	} {
		var got []string
		for _, in := range inputs {
			if coresInput(in, tc.only) {
				got = append(got, in)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("-only %q: %q, want %q", tc.only, got, tc.want)
		}
	}
}
