package arkts

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"tracestreamer/parser/htrace"
	"tracestreamer/stat"
)

// DescribeHTrace says what an .htrace capture holds, for tracestreamer info,
// without converting it: its records by plugin and what the ArkTS ones make up
// (heap files, CPU profiles), one line at a time to add.
func DescribeHTrace(r io.Reader, path string, add func(what string, count int64, format string, args ...any)) error {
	rd := htrace.NewReader(r, path, stat.NewLog(nil))
	census := NewCensus()
	plugins := map[string]int64{}
	var records, malformed int64
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		records++
		if rec.Malformed != nil {
			malformed++
		}
		if !rec.HasName {
			continue
		}
		name := string(rec.Name)
		plugins[name]++
		switch name {
		case "arkts-plugin_config":
			census.Config(rec.Data)
		case "arkts-plugin":
			census.Result(rec.Data)
		}
	}
	add("records", records, "%s", pluginList(plugins))
	if malformed > 0 {
		add("malformed records", malformed, "")
	}
	if census.Configs+census.Messages > 0 {
		mode := map[int32]string{ModeSnapshot: "snapshot", ModeTimeline: "timeline"}[census.Mode]
		add("ArkTS heap snapshots", census.Snapshots, "heap mode %s", mode)
		add("ArkTS heap timelines", census.Timelines, "")
		if census.Open {
			add("ArkTS heap file without its end marker", 1, "kept by a conversion if its text is whole")
		}
		add("ArkTS snapshot chunks", census.Chunks, "%.1f MB of snapshot text", float64(census.ChunkText)/1e6)
		add("ArkTS CPU profiles", census.Profiles, "")
		if census.Invalid > 0 {
			add("ArkTS messages that are not JSON", census.Invalid, "")
		}
	}
	return nil
}

// pluginList is "name N, name N" by falling count.
func pluginList(m map[string]int64) string {
	names := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
	}
	return strings.Join(parts, ", ")
}
