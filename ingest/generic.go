package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"tracestreamer/parser/htrace"
	"tracestreamer/parser/traceevent"
	"tracestreamer/tables"
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

	sa := r.standalone
	r.arkts.StandaloneConfig(sa.snapshots, sa.timelines, sa.profiles)

	dt := tables.NewDataType(r.sink, t)
	for i, d := range []string{"int32_t", "string", "double", "boolean"} {
		dt.Append(&tables.DataType{ID: int64(i), TypeID: int64(i), Desc: d})
	}
	dt.Flush()

	start, end := r.rng.Bounds()
	tr := tables.NewTraceRange(r.sink, t)
	tr.Append(&tables.TraceRange{StartTS: start, EndTS: end})
	tr.Flush()

	cs := tables.NewClockSnapshot(r.sink, t)
	for i, c := range r.clocks {
		cs.Append(&tables.ClockSnapshot{ID: int64(i), ClockID: int64(c.id), TS: int64(c.ts), ClockName: htrace.ClockName(c.id)})
	}
	cs.Flush()

	if r.arkts.Seen() {
		dc := tables.NewDatasourceClockID(r.sink, t)
		dc.Append(&tables.DatasourceClockID{ID: 0, DataSourceName: pluginArkTS, ClockID: 2})
		dc.Flush()
	}
	r.dict.Flush()

	st := tables.NewStat(r.sink, t)
	for _, row := range r.log.Rows() {
		st.Append(&tables.Stat{EventName: row.Event, StatType: row.Type, Count: row.Count, Serverity: row.Severity,
			Source: "trace"})
	}
	st.Flush()

	src := tables.NewSource(r.sink, t)
	var paths []string
	for i, s := range r.sources {
		paths = append(paths, s.path)
		src.Append(&tables.Source{ID: int64(i), Path: s.path, Format: s.format, Compression: s.compression,
			Bytes: s.bytes, Sha256: s.sha256, HeapFileIDs: joinIDs(s.heapFiles), CPUProfileIDs: joinIDs(s.cpuProfiles)})
	}
	src.Flush()

	if !r.opts.NoMeta {
		m := tables.NewMeta(r.sink, t)
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
			m.Append(&tables.Meta{Name: kv[0], Value: kv[1]})
		}
		m.Flush()
	}
}

// joinIDs renders ids as "0,1,2".
func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}
