// Command mkhtrace wraps DevTools/V8 captures (.heapsnapshot, .heaptimeline,
// .cpuprofile, optionally gzip-compressed) into an .htrace file as OpenHarmony's
// ArkTS profiler plugin would have written them, for examples, tests and
// benchmarks.
//
// Usage:
//
//	mkhtrace [-snapshot F]... [-timeline F] [-cpuprofile F] [-chunk BYTES] -o OUT.htrace
//
// Snapshots are written in snapshot mode (one Snapshot<N> each); a timeline
// switches the config to timeline mode, so -snapshot and -timeline exclude each
// other. A CPU profile adds the CPU profiler's start responses and its profile.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var snaps multi
	flag.Var(&snaps, "snapshot", "heap snapshot file (repeatable)")
	timeline := flag.String("timeline", "", "heap timeline file (allocation tracking)")
	cpu := flag.String("cpuprofile", "", "CPU profile file")
	out := flag.String("o", "", "output .htrace file")
	chunk := flag.Int("chunk", 64<<10, "bytes of snapshot text per chunk message")
	noClock := flag.Bool("noclock", false, "write no clock snapshot in the header")
	flag.Parse()
	if err := run(snaps, *timeline, *cpu, *out, *chunk, *noClock); err != nil {
		fmt.Fprintln(os.Stderr, "mkhtrace:", err)
		os.Exit(1)
	}
}

// readMaybeGzip reads a file, gunzipping it if it starts with the gzip magic.
func readMaybeGzip(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return io.ReadAll(zr)
	}
	return b, nil
}

// clocks is the clock snapshot mkhtrace writes: BOOTTIME 1000 s, REALTIME in
// November 2026, MONOTONIC 900 s (moved to match a CPU profile's start).
func clocks() [htrace.NumClocks]uint64 {
	var c [htrace.NumClocks]uint64
	c[htrace.ClockBoottime] = 1_000_000_000_000
	c[htrace.ClockRealtime] = 1_795_000_000_000_000_000
	c[htrace.ClockMonotonic] = 900_000_000_000
	return c
}

func run(snaps []string, timeline, cpu, out string, chunk int, noClock bool) error {
	if out == "" {
		return errors.New("no output (-o)")
	}
	if len(snaps) > 0 && timeline != "" {
		return errors.New("-snapshot and -timeline need different heap modes; write two files")
	}
	if len(snaps) == 0 && timeline == "" && cpu == "" {
		return errors.New("nothing to write: give -snapshot, -timeline or -cpuprofile")
	}
	var prof []byte
	if cpu != "" {
		var err error
		if prof, err = readMaybeGzip(cpu); err != nil {
			return err
		}
		prof = bytes.TrimSpace(prof)
	}
	var c [htrace.NumClocks]uint64
	if !noClock {
		c = clocks()
		if prof != nil {
			// Put the profile's MONOTONIC start 1 s into the capture, where the
			// CPU profiler's start responses are.
			var head struct {
				StartTime uint64 `json:"startTime"`
			}
			if err := json.Unmarshal(prof, &head); err == nil && head.StartTime > 1e6 {
				c[htrace.ClockMonotonic] = head.StartTime*1000 - 1_000_000_000
			}
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".mkhtrace-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	s, err := arktstest.NewSession(tmp, c)
	if err != nil {
		return err
	}
	s.Time = c[htrace.ClockRealtime] + 1_000_000_000
	s.ChunkSize = chunk
	cfg := &hiprofpb.ArkTSConfig{Pid: 4242, Type: hiprofpb.ArkTSConfig_SNAPSHOT, Interval: 10,
		EnableCpuProfiler: cpu != "", CpuProfilerInterval: 1000}
	switch {
	case timeline != "":
		cfg.Type, cfg.Interval, cfg.TrackAllocations = hiprofpb.ArkTSConfig_TIMELINE, 0, true
	case len(snaps) == 0:
		cfg.Type, cfg.Interval = hiprofpb.ArkTSConfig_INVALID, 0
	}
	if err := s.Config(cfg); err != nil {
		return err
	}
	if cpu != "" {
		if err := s.CPUStart(); err != nil {
			return err
		}
	}
	for _, f := range snaps {
		text, err := readMaybeGzip(f)
		if err != nil {
			return err
		}
		if err := s.Snapshot(text); err != nil {
			return err
		}
	}
	if timeline != "" {
		text, err := readMaybeGzip(timeline)
		if err != nil {
			return err
		}
		// Tracking ran at least as long as the samples say (µs since it began),
		// as in a real capture: the snapshot is taken when it stops.
		var samples struct {
			Samples []int64 `json:"samples"`
		}
		if err := json.Unmarshal(text, &samples); err != nil {
			return fmt.Errorf("%s: %w", timeline, err)
		}
		for i := 0; i < len(samples.Samples); i += 2 {
			s.Tracking = max(s.Tracking, uint64(samples.Samples[i])*1000)
		}
		if err := s.Timeline(text, nil); err != nil {
			return err
		}
	}
	if prof != nil {
		if err := s.CPUProfile(prof); err != nil {
			return err
		}
	}
	if err := s.Close(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
