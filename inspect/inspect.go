// Package inspect describes an input or a tracestreamer database for
// `tracestreamer info`: for a trace file its format, compression, size and
// what it holds (heap files, CPU profiles, events by phase), read in one
// pass; for a database its writer, sources, time range and tables.
//
// It must not write a database or any other file, nor change one: traces are
// read as a conversion reads them (ingest.Sniff) and counted by the parsers'
// own decoders, databases through store's read-only Reader.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"tracestreamer/ingest"
	"tracestreamer/parser/arkts"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/htrace"
	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/stat"
)

// Item is one line of what an input holds.
type Item struct {
	What  string
	Count int64
	Note  string // details, may be empty
}

// Trace is what info says about a trace file.
type Trace struct {
	Path        string
	Format      string // as the conversion names it (table source's format)
	Compression string
	Bytes       int64 // the file's bytes read
	Content     int64 // decompressed bytes read
	Holds       []Item
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n *int64
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ErrUnknown is returned for a file that is neither a database nor an input
// tracestreamer reads.
var ErrUnknown = errors.New("not a tracestreamer database nor an input tracestreamer reads")

// ReadTrace reads the trace at path once and counts what it holds.
func ReadTrace(ctx context.Context, path string, stdin io.Reader) (*Trace, error) {
	t := &Trace{Path: path}
	s, err := ingest.Sniff(path, stdin, func(r io.Reader) io.Reader { return counter{ctxReader{ctx, r}, &t.Bytes} })
	if err != nil {
		return nil, err
	}
	defer s.Close()
	t.Format, t.Compression = s.Format, s.Compression
	content := counter{s.Content, &t.Content}
	switch s.Format {
	case "htrace":
		err = t.htrace(content)
	case "heapsnapshot":
		err = t.heapSnapshot(content)
	case "cpuprofile":
		err = t.cpuProfile(ctx, content)
	case "traceevent":
		err = t.traceEvent(content)
	case "":
		return nil, fmt.Errorf("%s: %w", path, ErrUnknown)
	default:
		// A format read by the conversion that info does not count yet
		// (.rawheap dumps): its format and size.
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Whatever the parser left unread still counts as the file's size.
	io.Copy(io.Discard, content)
	return t, nil
}

func (t *Trace) add(what string, n int64, note string, args ...any) {
	t.Holds = append(t.Holds, Item{What: what, Count: n, Note: fmt.Sprintf(note, args...)})
}

// htrace counts the records by plugin and what the ArkTS ones make up.
func (t *Trace) htrace(r io.Reader) error {
	rd := htrace.NewReader(r, t.Path, stat.NewLog(nil))
	census := arkts.NewCensus()
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
	t.add("records", records, "%s", pluginList(plugins))
	if malformed > 0 {
		t.add("malformed records", malformed, "")
	}
	if census.Configs+census.Messages > 0 {
		mode := map[int32]string{arkts.ModeSnapshot: "snapshot", arkts.ModeTimeline: "timeline"}[census.Mode]
		t.add("ArkTS heap snapshots", census.Snapshots, "heap mode %s", mode)
		t.add("ArkTS heap timelines", census.Timelines, "")
		if census.Open {
			t.add("ArkTS heap file without its end marker", 1, "kept by a conversion if its text is whole")
		}
		t.add("ArkTS snapshot chunks", census.Chunks, "%.1f MB of snapshot text", float64(census.ChunkText)/1e6)
		t.add("ArkTS CPU profiles", census.Profiles, "")
		if census.Invalid > 0 {
			t.add("ArkTS messages that are not JSON", census.Invalid, "")
		}
	}
	return nil
}

// pluginList is "name N, name N" by falling count.
func pluginList(m map[string]int64) string {
	names := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if m[a] != m[b] {
			return int(m[b] - m[a])
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
	}
	return strings.Join(parts, ", ")
}

// heapSnapshot reads the counts a snapshot's header declares and the sizes
// of its arrays (a timeline has samples), skipping their values.
func (t *Trace) heapSnapshot(r io.Reader) error {
	js := jsonscan.NewReader(r, 1<<20)
	var nodeCount, edgeCount, funcCount int64 = -1, -1, -1
	lengths := map[string]int64{}
	buf := make([]int64, 1<<14)
	err := js.Object(func(key []byte) error {
		k := string(key)
		switch k {
		case "snapshot":
			v, err := js.Value(1 << 20)
			if err != nil {
				return err
			}
			obj, _ := v.(map[string]any)
			for name, dst := range map[string]*int64{"node_count": &nodeCount, "edge_count": &edgeCount,
				"trace_function_count": &funcCount} {
				if n, ok := obj[name].(jsonscan.Number); ok {
					*dst, _ = n.Int()
				}
			}
			return nil
		case "nodes", "edges", "samples", "locations", "trace_function_infos":
			n, err := intsLength(js, buf)
			lengths[k] = n
			return err
		case "strings":
			n, err := arrayLength(js)
			lengths[k] = n
			return err
		}
		return js.SkipValue()
	})
	if err != nil {
		return err
	}
	what := "heap snapshot"
	if lengths["samples"] > 0 || funcCount > 0 {
		what = "heap timeline (allocation tracking)"
	}
	t.add(what, 1, "header: %d nodes, %d edges, %d allocation-stack functions", nodeCount, edgeCount, funcCount)
	t.add("strings", lengths["strings"], "")
	if n := lengths["samples"]; n > 0 {
		t.add("timeline samples", n/2, "")
	}
	if n := lengths["locations"]; n > 0 {
		t.add("locations", n/4, "")
	}
	return nil
}

// arrayLength skips an array, counting its elements.
func arrayLength(js *jsonscan.Decoder) (int64, error) {
	var n int64
	err := js.Array(func(int) error {
		n++
		return js.SkipValue()
	})
	return n, err
}

// intsLength skips an array of numbers in batches, counting its elements.
func intsLength(js *jsonscan.Decoder, buf []int64) (int64, error) {
	if err := js.Expect('['); err != nil {
		return 0, err
	}
	var total int64
	var bad jsonscan.NonIntegers
	for first := true; ; {
		n, done, err := js.ReadIntsLenient(buf, &first, &bad)
		total += int64(n)
		if err != nil || done {
			return total, err
		}
	}
}

// cpuProfile decodes the profile as the conversion does.
func (t *Trace) cpuProfile(ctx context.Context, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	p, repaired, err := cpuprofile.ParseRepairing(ctx, b)
	if err != nil {
		return err
	}
	form := "current format"
	if p.Legacy {
		form = "legacy format (head tree, timestamps)"
	}
	t.add("CPU profile", 1, "%s, %.3f ms from startTime to endTime", form, float64(p.EndTime-p.StartTime)/1e6)
	t.add("nodes", int64(len(p.Nodes)), "")
	t.add("samples", int64(len(p.Samples)), "")
	if repaired > 0 {
		t.add("names repaired", int64(repaired), "written without JSON escaping")
	}
	for _, pr := range p.Problems {
		t.add("problem", 1, "%s", pr)
	}
	return nil
}

// traceEvent decodes every element's common fields and counts them by phase.
func (t *Trace) traceEvent(r io.Reader) error {
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
	t.add("events", n, "%s", form)
	names := slices.SortedFunc(maps.Keys(phases), func(a, b string) int {
		if phases[a] != phases[b] {
			return int(phases[b] - phases[a])
		}
		return strings.Compare(a, b)
	})
	for _, ph := range names {
		t.add("  phase "+ph, phases[ph], "%s", phaseName(ph))
	}
	if invalid > 0 {
		t.add("  not decodable", invalid, "counted in stat by a conversion")
	}
	t.add("processes", int64(len(procs)), "")
	t.add("threads", int64(len(threads)), "")
	if maxTS >= 0 {
		t.add("time span", (maxTS-minTS)/1000, "µs, from ts %.3f to %.3f µs", float64(minTS)/1e3, float64(maxTS)/1e3)
	}
	for _, k := range rd.OtherKeys {
		t.add("member "+k, int64(len(rd.Other[k])), "bytes")
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

// IsDatabase reports whether path starts as a SQLite database does.
func IsDatabase(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "SQLite format 3\x00"
}
