package cpuprofile

import (
	"context"
	"fmt"
	"io"
)

// Describe says what a CPU profile holds, for tracestreamer info, decoding it
// as a conversion does without writing it: its form, duration, nodes and
// samples, and what was repaired.
func Describe(ctx context.Context, r io.Reader, add func(what string, count int64, note string)) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	p, repaired, err := ParseRepairing(ctx, b)
	if err != nil {
		return err
	}
	form := "current format"
	if p.Legacy {
		form = "legacy format (head tree, timestamps)"
	}
	line(add, "CPU profile", 1, "%s, %.3f ms from startTime to endTime", form, float64(p.EndTime-p.StartTime)/1e6)
	line(add, "nodes", int64(len(p.Nodes)), "")
	line(add, "samples", int64(len(p.Samples)), "")
	if repaired > 0 {
		line(add, "names repaired", int64(repaired), "written without JSON escaping")
	}
	for _, pr := range p.Problems {
		line(add, "problem", 1, "%s", pr)
	}
	return nil
}

// line hands add one line of a description, its note formatted.
func line(add func(what string, count int64, note string), what string, n int64, note string, args ...any) {
	add(what, n, fmt.Sprintf(note, args...))
}
