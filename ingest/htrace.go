package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"

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
			r.arkts.Result(rec.Data, recordTime(rec, rd.Clock()), rd.Clock(), where)
		default:
			if htrace.KnownPlugin(plugin) {
				r.log.Add(stat.Other, stat.NotSupported, 1)
			} else {
				r.log.Add(stat.Other, stat.InvalidData, 1)
			}
		}
	}
	return nil
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
