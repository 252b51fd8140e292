package cpuprofile

import (
	"context"
	"errors"
	"io"
)

// Describe says what a CPU profile holds, for tracestreamer info, decoding it
// as a conversion does without writing it: its form, duration, nodes and
// samples, and what was repaired.
func Describe(ctx context.Context, r io.Reader, add func(what string, count int64, format string, args ...any)) error {
	p, repaired, err := ParseRepairingReader(ctx, r, nil)
	var re *ReadError
	if errors.As(err, &re) {
		return re.Err
	}
	if err != nil {
		return err
	}
	form := "current format"
	if p.Legacy {
		form = "legacy format (head tree, timestamps)"
	}
	add("CPU profile", 1, "%s, %.3f ms from startTime to endTime", form, float64(p.EndTime-p.StartTime)/1e6)
	add("nodes", int64(len(p.Nodes)), "")
	add("samples", int64(len(p.Samples)), "")
	if repaired > 0 {
		add("names repaired", int64(repaired), "written without JSON escaping")
	}
	for _, pr := range p.Problems {
		add("problem", 1, "%s", pr)
	}
	return nil
}
