package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"tracestreamer/parser/htrace"
	"tracestreamer/parser/traceevent"
	"tracestreamer/rows"
)

// generic writes the tables every database has: process and thread placeholders,
// data_type, trace_range, clock_snapshot, datasource_clockid, stat and meta.
func (r *run) generic() {
	t := r.tables
	if r.trace == nil {
		// Only the placeholders; with Trace Event input its importer
		// writes the full tables.
		traceevent.WritePlaceholderThreads(r.sink, t)
	}

	r.standaloneConfig()

	dt := rows.NewAppender(r.sink, t.DataType)
	for i, d := range []string{"int32_t", "string", "double", "boolean"} {
		dt.Row([]int64{int64(i), int64(i)}, d)
	}
	dt.Flush()

	start, end := r.rng.Bounds()
	tr := rows.NewAppender(r.sink, t.TraceRange)
	tr.Ints(start, end)
	tr.Flush()

	cs := rows.NewAppender(r.sink, t.ClockSnapshot)
	for i, c := range r.clocks {
		cs.Row([]int64{int64(i), int64(c.id), int64(c.ts)}, htrace.ClockName(c.id))
	}
	cs.Flush()

	if r.arkts.Seen() {
		dc := rows.NewAppender(r.sink, t.DatasourceClockID)
		dc.Row([]int64{0, 2}, pluginArkTS)
		dc.Flush()
	}
	r.dict.Flush()

	st := rows.NewAppender(r.sink, t.Stat)
	for _, row := range r.log.Rows() {
		st.Row([]int64{row.Count}, row.Event, row.Type, row.Severity, "trace")
	}
	st.Flush()

	src := rows.NewAppender(r.sink, t.Source)
	var paths []string
	for i, s := range r.sources {
		paths = append(paths, s.path)
		src.Row([]int64{int64(i), s.bytes}, s.path, s.format, s.compression, s.sha256,
			joinIDs(s.heapFiles), joinIDs(s.cpuProfiles))
	}
	src.Flush()

	if !r.opts.NoMeta {
		m := rows.NewAppender(r.sink, t.Meta)
		// The reference writes proto-based-trace for htrace input only.
		sourceType := "txt-based-trace"
		for _, s := range r.sources {
			if s.format == string(formatHTrace) {
				sourceType = "proto-based-trace"
			}
		}
		dur := int64(0)
		if start >= 0 && end > start {
			dur = (end - start) / 1e9
		}
		for _, kv := range [][2]string{
			{"datasize", fmt.Sprint(r.bytes)},
			{"parse_tool", "tracestreamer"},
			{"tool_version", Version},
			{"tool_publish_time", PublishDate},
			{"source_name", strings.Join(paths, ",")},
			{"output_name", r.opts.Output},
			{"runtime", time.Now().Format("2006-01-02 15:04:05")},
			{"trace_duration", fmt.Sprintf("%d s", dur)},
			{"source_type", sourceType},
		} {
			m.Row(nil, kv[0], kv[1])
		}
		m.Flush()
	}
}

// standaloneConfig writes the js_config row of a run whose heap files or CPU
// profiles all come from standalone files (no htrace config record).
// SmartPerf-Host reads the first js_config row before it draws any ArkTS row
// (and stops loading without one), taking type to choose between the snapshot
// and the timeline row and enable_cpu_profiler to show the profile. The row says
// what the files hold: pid 0 (unknown), type 1 if a timeline was read, else 0
// with heap files, else -1; trace_allocation 1 with a timeline; the intervals
// and capture_numeric_value, which no file records, are NULL.
func (r *run) standaloneConfig() {
	sa := r.standalone
	if r.arkts.ConfigSeen() || sa.snapshots+sa.timelines+sa.profiles == 0 {
		return
	}
	typ := int64(-1)
	switch {
	case sa.timelines > 0:
		typ = 1
	case sa.snapshots > 0:
		typ = 0
	}
	flag := func(n int) int64 { return int64(min(n, 1)) }
	a := rows.NewAppender(r.sink, r.tables.JSConfig)
	a.I(0)                  // pid
	a.I(typ)                // type
	a.Null()                // interval
	a.Null()                // capture_numeric_value
	a.I(flag(sa.timelines)) // trace_allocation
	a.I(flag(sa.profiles))  // enable_cpu_profiler
	a.Null()                // cpu_profiler_interval
	a.End()
	a.Flush()
}

// joinIDs renders ids as "0,1,2".
func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}
