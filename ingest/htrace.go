package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"tracestreamer/parser/htrace"
	"tracestreamer/stat"
)

// Plugin names of hiprofiler records (docs/format/htrace.md#plugin-names).
const (
	pluginArkTS       = "arkts-plugin"
	pluginArkTSConfig = "arkts-plugin_config"
)

// htrace reads an .htrace input and dispatches its records by plugin name.
func (r *run) htrace(ctx context.Context, in io.Reader, name string, source int64) error {
	rd := htrace.NewReader(in, name, r.log)
	r.arkts.SetInput(name, source)
	defer r.arkts.Finish()
	clockInstalled := false
	var skipped skippedPlugins
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if !clockInstalled && rd.Clock().Valid() {
			clockInstalled = true
			r.installClock(rd.Clock())
		}
		where := fmt.Sprintf("%s: record %d at offset %d", name, rec.Index, rec.Offset)
		if rec.Malformed != nil {
			r.log.Warn(stat.HTraceRecord, stat.InvalidData, where, "malformed ProfilerPluginData: %v", rec.Malformed)
		}
		if !rec.HasName {
			r.log.Add(stat.HTraceRecord, stat.NotMatch, 1)
			continue
		}
		plugin := string(rec.Name)
		r.dict.ID(plugin)
		switch plugin {
		case pluginArkTSConfig:
			r.arkts.Config(rec.Data, where)
		case pluginArkTS:
			r.arkts.Result(ctx, rec.Data, recordTime(rec, rd.Clock()), rd.Clock(), where)
		default:
			skipped.add(plugin)
		}
	}
	skipped.report(r.log, name)
	return nil
}

// maxPluginNames bounds the distinct plugin names counted one by one.
const maxPluginNames = 64

// skippedPlugins counts the records of plugins tracestreamer does not read,
// per plugin name, to report each name once at the end of an input.
type skippedPlugins struct {
	n          map[string]int64
	otherNames int64 // distinct names beyond maxPluginNames
	other      int64 // their records
}

func (s *skippedPlugins) add(plugin string) {
	if s.n == nil {
		s.n = map[string]int64{}
	}
	if _, ok := s.n[plugin]; ok || len(s.n) < maxPluginNames {
		s.n[plugin]++
		return
	}
	s.other++
}

// report counts the records in stat, (other, not_supported) for known
// hiprofiler plugins and (other, invalid_data) for unknown names, and prints
// one warning per plugin name.
func (s *skippedPlugins) report(log *stat.Log, where string) {
	for _, plugin := range slices.Sorted(maps.Keys(s.n)) {
		n := s.n[plugin]
		if htrace.KnownPlugin(plugin) {
			log.Report(stat.Other, stat.NotSupported, n, where,
				fmt.Sprintf("%d records of the hiprofiler plugin %q skipped: not supported yet", n, plugin))
		} else {
			log.Report(stat.Other, stat.InvalidData, n, where,
				fmt.Sprintf("%d records of an unknown plugin %q skipped", n, plugin))
		}
	}
	if s.other > 0 {
		log.Report(stat.Other, stat.InvalidData, s.other, where,
			fmt.Sprintf("%d more records of other plugins skipped (more than %d plugin names)", s.other, maxPluginNames))
	}
}

// recordTime returns a record's time on the primary clock. ArkTS records are
// stamped with CLOCK_REALTIME; a record that names another clock in clock_id is
// converted from that clock.
func recordTime(rec *htrace.Record, clock htrace.Clock) int64 {
	t, _ := rec.Time()
	src := htrace.ClockRealtime
	if rec.HasClockID && rec.ClockID != 0 {
		if c, ok := htrace.ClockFromLinux(rec.ClockID); ok {
			src = c
		}
	}
	return int64(clock.ToBoot(src, t))
}

// installClock records the clock snapshot used for conversion.
func (r *run) installClock(c htrace.Clock) {
	snap := c.Snapshot()
	for id := htrace.ClockBoottime; id < htrace.NumClocks; id++ {
		if snap[id] != 0 {
			r.clocks = append(r.clocks, clockRow{id: id, ts: snap[id]})
		}
	}
	r.log.Add(stat.ClockSync, stat.Received, 1)
}
