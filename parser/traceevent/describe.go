package traceevent

import (
	"cmp"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"

	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

// Describe says what a Trace Event file holds, for tracestreamer info, without
// importing it: every element's common fields decoded and counted by phase,
// the processes, threads and time span.
func Describe(r io.Reader, add func(what string, count int64, format string, args ...any)) error {
	rd, err := tokenizer.NewReader(r)
	if err != nil {
		return err
	}
	phases := map[string]int64{}
	procs := map[event.Ident]bool{}
	type thread struct{ pid, tid event.Ident }
	threads := map[thread]bool{}
	var n, invalid int64
	minTS, maxTS := int64(1<<63-1), int64(-1)
	for {
		el, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n++
		ev, err := event.Decode(el)
		if err != nil {
			invalid++
			continue
		}
		ph := "(none)"
		if ev.Ph != 0 {
			ph = string(ev.Ph)
		}
		phases[ph]++
		if ev.Pid.Present && len(procs) < 1<<20 {
			procs[ev.Pid] = true
		}
		if ev.Tid.Present && len(threads) < 1<<20 {
			threads[thread{ev.Pid, ev.Tid}] = true
		}
		if ev.TS.Valid && ev.Ph != 'M' {
			minTS, maxTS = min(minTS, ev.TS.NS), max(maxTS, ev.TS.NS)
			if end := ev.TS.NS + ev.Dur.NS; ev.Dur.Valid && end > maxTS {
				maxTS = end
			}
		}
	}
	form := "JSON array"
	if rd.Form() == tokenizer.ObjectForm {
		form = "object with traceEvents"
	}
	add("events", n, "%s", form)
	names := slices.SortedFunc(maps.Keys(phases), func(a, b string) int {
		return cmp.Or(cmp.Compare(phases[b], phases[a]), strings.Compare(a, b))
	})
	for _, ph := range names {
		add("  phase "+ph, phases[ph], "%s", phaseName(ph))
	}
	if invalid > 0 {
		add("  not decodable", invalid, "counted in stat by a conversion")
	}
	add("processes", int64(len(procs)), "")
	add("threads", int64(len(threads)), "")
	if maxTS >= 0 {
		add("time span", (maxTS-minTS)/1000, "µs, from ts %.3f to %.3f µs", float64(minTS)/1e3, float64(maxTS)/1e3)
	}
	for _, k := range rd.OtherKeys {
		name, _ := tokenizer.MemberText(k)
		add("member "+name, int64(len(rd.Other[k])), "bytes")
	}
	return nil
}

// phaseName says what a phase is (docs/format/traceevent.md).
func phaseName(ph string) string {
	return map[string]string{
		"B": "duration begin", "E": "duration end", "X": "complete", "i": "instant", "I": "instant (legacy)",
		"C": "counter", "b": "async begin", "n": "async instant", "e": "async end", "S": "async start (legacy)",
		"T": "async step into", "p": "async step past", "F": "async finish (legacy)", "s": "flow start",
		"t": "flow step", "f": "flow end", "P": "sample", "N": "object created", "O": "object snapshot",
		"D": "object destroyed", "M": "metadata", "V": "global memory dump", "v": "process memory dump",
		"R": "mark", "c": "clock sync", "(": "context enter", ")": "context leave", "=": "linked id",
	}[ph]
}
