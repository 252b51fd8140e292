// Package cpuprofile decodes V8 and ArkTS CPU profiles (the .cpuprofile JSON that
// DevTools, node --cpu-prof and the ArkTS runtime's Profiler.stop write) and turns
// their samples into runs of equal samples, as js_cpu_profiler_sample stores them
// (docs/format/cpuprofile.md#cpu-profiles).
//
// # Decoder
//
// A profile is one JSON object. An ArkTS profile arrives as one message,
// held in memory, which Parse and ParseRepairing decode. A standalone file
// can be any size, and a small compressed one can hold gigabytes of text
// (white space, a member nobody reads): ParseRepairingReader decodes it as it
// reads, through a fixed buffer. Its contract: it must not hold the text,
// nor any one value it skips or member name, whole; what it keeps is what
// the profile holds (nodes, their names, samples, deltas), plus a buffer,
// or, for a pipe it must repair, a deflated copy of the text. The repair needs the text twice
// (streamed again through repairReader); the caller reopens it. Both decode
// with jsonscan. github.com/bytedance/sonic's typed decoder, doing the same job
// (sonic_bench_test.go: the same finished Profile), is faster on large
// profiles, but it does not check every string of the members it skips, so
// it accepts text Parse refuses (TestSonicSkipsUnchecked); a fast path with
// jsonscan as fallback would need an extra validating pass, and was not
// adopted. Parse end to end, 2 shared cores, ranges of 6 runs
// (BenchmarkParse, generated profiles from testdata/bench/gen-cpuprofile.js):
//
//	input                  jsonscan                            sonic (CaseSensitive, ValidateString)
//	4.9 MB, 95 k samples   43–60 ms, 81–113 MB/s, 82 k allocs   28–43 ms, 112–174 MB/s, 50 k allocs
//	2.8 MB, 11 k nodes     25–41 ms, 68–114 MB/s, 66 k allocs   19–25 ms, 114–147 MB/s, 41 k allocs
//	7.3 KB node profile    53–90 µs, 81–136 MB/s, 267 allocs    43–55 µs, 131–168 MB/s, 172 allocs
//	1.0 KB ArkTS profile   6.6–9.2 µs, 106–148 MB/s, 52 allocs  7.5–11 µs, 87–130 MB/s, 35 allocs
//
// sonic's ConfigStd and ConfigFastest fall in the same ranges. The decode is
// a few percent of a conversion (the rows cost more), so the gain is small.
package cpuprofile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/stat"
)

// Node is one call tree node.
type Node struct {
	ID           int64
	FunctionName string
	ScriptID     string
	URL          string
	LineNumber   int64
	ColumnNumber int64
	HitCount     int64
	Children     []int64
	Parent       int64 // 0 if none
}

// Profile is a decoded CPU profile. Times are in ns on the profile's own clock
// (the JSON's µs × 1000).
type Profile struct {
	Nodes      []Node
	StartTime  int64
	EndTime    int64
	HasEndTime bool
	Samples    []int64
	TimeDeltas []int64 // ns
	// Legacy is set for the old format: a "head" call tree, "timestamps" in µs
	// and startTime/endTime in seconds. It is converted to the current form.
	Legacy bool
	// Problems lists what was wrong but tolerated (unknown sample nodes, …).
	Problems []string
	// CutStrings counts the names, URLs and script ids longer than 32 MiB,
	// cut to their first 32 MiB.
	CutStrings int

	startText, endText []byte // startTime, endTime as written (unit known at the end)
	timestamps         []int64
	dec                *decodeState // while decoding
}

// decodeState is what Parse needs while it decodes.
type decodeState struct {
	ctx     context.Context
	reads   int  // nodes and array elements decoded, for check
	decoded bool // the text decoded; what failed came after
}

// Parse decodes a profile object.
//
// A panic while decoding (a bug, whatever the input) is returned as an error.
func Parse(b []byte) (*Profile, error) {
	p, _, err := parse(context.Background(), b)
	return p, err
}

// maxKey is more than the length of any member name the decoder reads:
// longer names are not held whole (jsonscan.Decoder.ObjectKnown).
const maxKey = 4 << 10

// checkEvery is how many array elements or nodes the decoder reads between
// two looks at its context.
const checkEvery = 1 << 14

// parse is Parse that stops with ctx's error soon after ctx is cancelled;
// failedAt is the offset where the text failed to decode (len(b) when the
// text decoded but did not make a profile).
func parse(ctx context.Context, b []byte) (_ *Profile, failedAt int64, err error) {
	return decodeFrom(ctx, jsonscan.NewBytes(b), int64(len(b)))
}

// readBuffer is the size of the buffer a profile is read through.
const readBuffer = 64 << 10

// parseReader is parse of the text read from r, in memory proportional to
// what the profile holds (its nodes, samples and deltas), not to its text;
// failedAt is math.MaxInt64 where parse's is len(b).
func parseReader(ctx context.Context, r io.Reader) (_ *Profile, failedAt int64, err error) {
	return decodeFrom(ctx, jsonscan.NewReader(r, readBuffer), math.MaxInt64)
}

// decodeFrom decodes a profile from js; textEnd is failedAt when the text
// decoded but did not make a profile.
func decodeFrom(ctx context.Context, js *jsonscan.Decoder, textEnd int64) (_ *Profile, failedAt int64, err error) {
	failedAt = textEnd
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error at offset %d (please report it): %v", js.Offset(), r)
		}
	}()
	p := &Profile{dec: &decodeState{ctx: ctx}}
	if err := p.decode(js); err != nil {
		if ctx.Err() != nil {
			return nil, failedAt, ctx.Err()
		}
		if p.dec.decoded {
			return nil, failedAt, err
		}
		return nil, js.Offset(), err
	}
	if !js.AtEOF() {
		return nil, js.Offset(), js.Errorf("data after the profile object")
	}
	if err := p.finish(); err != nil {
		return nil, failedAt, err
	}
	p.dec = nil
	return p, failedAt, nil
}

// check returns the context's error every checkEvery calls.
func (p *Profile) check() error {
	p.dec.reads++
	if p.dec.reads%checkEvery == 0 {
		return p.dec.ctx.Err()
	}
	return nil
}

// usToNs converts a JSON number of µs to ns, exactly (no float rounding).
func usToNs(b []byte) (int64, error) {
	if v, ok := jsonscan.ScaleDecimal(b, 3); ok {
		return v, nil
	}
	return 0, fmt.Errorf("%q is not a time", b)
}

func (p *Profile) readIntArray(js *jsonscan.Decoder, conv func([]byte) (int64, error)) ([]int64, error) {
	out := []int64{}
	err := js.Array(func(int) error {
		if err := p.check(); err != nil {
			return err
		}
		b, err := js.ReadNumber()
		if err != nil {
			return err
		}
		v, err := conv(b)
		if err != nil {
			return js.Errorf("%v", err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

func (p *Profile) decode(js *jsonscan.Decoder) error {
	var have struct{ nodes, start, samples, deltas bool }
	err := js.ObjectKnown(maxKey, func(key []byte) (err error) {
		switch string(key) {
		case "nodes":
			have.nodes = true
			return js.Array(func(i int) error {
				if err := p.check(); err != nil {
					return err
				}
				n, err := p.decodeNode(js)
				if err != nil {
					return fmt.Errorf("node %d: %w", i, err)
				}
				p.Nodes = append(p.Nodes, n)
				return nil
			})
		case "startTime":
			have.start = true
			p.startText, err = readNumberText(js)
		case "endTime":
			p.HasEndTime = true
			p.endText, err = readNumberText(js)
		case "head":
			have.nodes = true
			p.Legacy = true
			_, err = p.decodeLegacyNode(js, 0)
		case "timestamps":
			p.timestamps, err = p.readIntArray(js, usToNs)
		case "samples":
			have.samples = true
			p.Samples, err = p.readIntArray(js, jsonscan.ParseInt)
		case "timeDeltas":
			have.deltas = true
			p.TimeDeltas, err = p.readIntArray(js, usToNs)
		default:
			err = js.SkipValue()
		}
		return err
	})
	if err != nil {
		return err
	}
	p.dec.decoded = true
	switch {
	case !have.nodes:
		return errors.New("no nodes: not a CPU profile")
	case !have.start:
		return errors.New("no startTime")
	case !have.samples && have.deltas:
		return errors.New("timeDeltas without samples")
	}
	return p.times()
}

func readNumberText(js *jsonscan.Decoder) ([]byte, error) {
	b, err := js.ReadNumber()
	return bytes.Clone(b), err
}

// times converts startTime and endTime: µs, or seconds in the legacy format,
// whose sample "timestamps" (µs) become timeDeltas.
func (p *Profile) times() error {
	conv := usToNs
	if p.Legacy {
		conv = secToNs
	}
	var err error
	if p.StartTime, err = conv(p.startText); err != nil {
		return fmt.Errorf("startTime: %w", err)
	}
	if p.HasEndTime {
		if p.EndTime, err = conv(p.endText); err != nil {
			return fmt.Errorf("endTime: %w", err)
		}
	}
	if p.timestamps != nil && p.TimeDeltas == nil {
		prev := p.StartTime
		for _, t := range p.timestamps {
			p.TimeDeltas = append(p.TimeDeltas, t-prev)
			prev = t
		}
	}
	return nil
}

// secToNs converts a JSON number of seconds to ns, exactly.
func secToNs(b []byte) (int64, error) {
	if v, ok := jsonscan.ScaleDecimal(b, 9); ok {
		return v, nil
	}
	return 0, fmt.Errorf("%q is not a time", b)
}

// decodeLegacyNode reads a node of the legacy "head" tree (call frame fields on
// the node itself, 1-based lines and columns, children as nested nodes),
// appending it and its subtree to p.Nodes in pre-order. It returns the node's id.
func (p *Profile) decodeLegacyNode(js *jsonscan.Decoder, depth int) (int64, error) {
	if depth > 1<<16 {
		return 0, errors.New("call tree nested too deeply")
	}
	if err := p.check(); err != nil {
		return 0, err
	}
	idx := len(p.Nodes)
	p.Nodes = append(p.Nodes, Node{HitCount: -1, ID: -1})
	var kids []int64
	err := js.ObjectKnown(maxKey, func(key []byte) (err error) {
		switch string(key) {
		case "id":
			p.Nodes[idx].ID, err = js.ReadInt()
		case "hitCount":
			p.Nodes[idx].HitCount, err = js.ReadInt()
		case "callFrame":
			err = js.ObjectKnown(maxKey, func(k []byte) error { return p.decodeCallFrame(js, k, &p.Nodes[idx]) })
		case "children":
			err = js.Array(func(int) error {
				id, err := p.decodeLegacyNode(js, depth+1)
				kids = append(kids, id)
				return err
			})
		default:
			err = p.decodeCallFrame(js, key, &p.Nodes[idx])
		}
		return err
	})
	n := &p.Nodes[idx]
	if n.ID < 0 {
		n.ID = int64(idx + 1)
	}
	n.Children = kids
	// The legacy format counts lines and columns from 1.
	n.LineNumber--
	n.ColumnNumber--
	return n.ID, err
}

func (p *Profile) decodeNode(js *jsonscan.Decoder) (Node, error) {
	n := Node{HitCount: -1}
	haveID := false
	err := js.ObjectKnown(maxKey, func(key []byte) (err error) {
		switch string(key) {
		case "id":
			haveID = true
			n.ID, err = js.ReadInt()
		case "callFrame":
			err = js.ObjectKnown(maxKey, func(key []byte) error { return p.decodeCallFrame(js, key, &n) })
		case "hitCount":
			n.HitCount, err = js.ReadInt()
		case "children":
			n.Children, err = p.readIntArray(js, jsonscan.ParseInt)
		case "parent":
			n.Parent, err = js.ReadInt()
		default:
			err = js.SkipValue()
		}
		return err
	})
	if err == nil && !haveID {
		err = errors.New("no id")
	}
	return n, err
}

// decodeCallFrame reads the callFrame member key into n.
func (p *Profile) decodeCallFrame(js *jsonscan.Decoder, key []byte, n *Node) (err error) {
	switch string(key) {
	case "functionName":
		n.FunctionName, err = p.readString(js)
	case "url":
		n.URL, err = p.readString(js)
	case "scriptId":
		// A string in the protocol; some producers write a number.
		var c byte
		if c, err = js.Peek(); err == nil && c != '"' {
			var b []byte
			b, err = js.ReadNumber()
			n.ScriptID = string(b)
		} else if err == nil {
			n.ScriptID, err = p.readString(js)
		}
	case "lineNumber":
		n.LineNumber, err = js.ReadInt()
	case "columnNumber":
		n.ColumnNumber, err = js.ReadInt()
	default:
		err = js.SkipValue()
	}
	return err
}

// readString reads a name, a URL or a script id: its first maxString bytes
// (p.CutStrings counts the strings cut), invalid UTF-8 replaced.
func (p *Profile) readString(js *jsonscan.Decoder) (string, error) {
	b, cut, err := js.ReadStringMax(nil, maxString)
	if cut {
		p.CutStrings++
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), err
}

// maxString is the most bytes of a name, a URL or a script id kept: a longer
// one is cut (CutStrings), as a Trace Event file's strings are past the same
// length, so that a string of any length costs bounded memory (a 400 MB
// function name of a 408 KB .gz took 1.3 GB whole).
const maxString = 32 << 20

// Report counts a profile read from where under trace_js_cpu_profiler and
// warns of what its reading tolerated: p and repaired as
// ParseRepairing gives them, or err, the reason it was dropped (invalid_data;
// Report then returns false). A kept profile is counted as received,
// its repaired names as one invalid_data, each of its Problems as one
// not_match and each cut string as one data_lost.
func Report(log *stat.Log, where string, p *Profile, repaired int, err error) bool {
	if err != nil {
		log.Warn(stat.JSCPUProfiler, stat.InvalidData, where, "CPU profile dropped: %v", err)
		return false
	}
	if repaired > 0 {
		log.Warn(stat.JSCPUProfiler, stat.InvalidData, where,
			"CPU profile repaired: %d function or module names were written without JSON escaping", repaired)
	}
	for _, pr := range p.Problems {
		log.Warn(stat.JSCPUProfiler, stat.NotMatch, where, "CPU profile: %s", pr)
	}
	if p.CutStrings > 0 {
		log.Report(stat.JSCPUProfiler, stat.DataLost, int64(p.CutStrings), where,
			fmt.Sprintf("CPU profile: %d names, URLs or script ids longer than %d bytes were cut to their first %d", p.CutStrings, maxString, maxString))
	}
	log.Add(stat.JSCPUProfiler, stat.Received, 1)
	return true
}

// finish resolves parents and children and derives missing hit counts.
func (p *Profile) finish() error {
	index := make(map[int64]int, len(p.Nodes))
	for i, n := range p.Nodes {
		if _, dup := index[n.ID]; dup {
			return fmt.Errorf("node id %d appears twice", n.ID)
		}
		index[n.ID] = i
	}
	// Parents from children lists (first registration wins), else from "parent".
	parent := make(map[int64]int64, len(p.Nodes))
	anyChildren := false
	for _, n := range p.Nodes {
		for _, c := range n.Children {
			anyChildren = true
			if _, ok := parent[c]; !ok {
				parent[c] = n.ID
			}
		}
	}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		if par, ok := parent[n.ID]; ok {
			n.Parent = par
		}
	}
	if !anyChildren {
		// The "parent" form: build children lists in node order.
		for _, n := range p.Nodes {
			if n.Parent != 0 {
				if pi, ok := index[n.Parent]; ok {
					p.Nodes[pi].Children = append(p.Nodes[pi].Children, n.ID)
				}
			}
		}
	}
	var hits map[int64]int64
	unknown := 0
	for _, s := range p.Samples {
		if _, ok := index[s]; !ok {
			unknown++
		}
	}
	if unknown > 0 {
		p.Problems = append(p.Problems, fmt.Sprintf("%d samples name node ids that are not in the profile", unknown))
	}
	for i := range p.Nodes {
		if p.Nodes[i].HitCount < 0 {
			if hits == nil {
				hits = map[int64]int64{}
				for _, s := range p.Samples {
					hits[s]++
				}
			}
			p.Nodes[i].HitCount = hits[p.Nodes[i].ID]
		}
	}
	if len(p.TimeDeltas) != len(p.Samples) {
		p.Problems = append(p.Problems, fmt.Sprintf("%d samples but %d timeDeltas", len(p.Samples), len(p.TimeDeltas)))
	}
	return nil
}

// Run is a run of consecutive samples of one node, [Start, End) in ns on the
// profile's clock.
type Run struct {
	NodeID     int64
	Start, End int64
}

// Timestamps returns the time of every sample: startTime + Σ timeDeltas[0..i]
// (V8 semantics; a missing delta counts as 0).
func (p *Profile) Timestamps() []int64 {
	ts := make([]int64, len(p.Samples))
	t := p.StartTime
	for i := range p.Samples {
		if i < len(p.TimeDeltas) {
			t += p.TimeDeltas[i]
		}
		ts[i] = t
	}
	return ts
}

// Interval returns the typical sampling interval: the median positive delta.
func (p *Profile) Interval() int64 {
	var pos []int64
	for _, d := range p.TimeDeltas {
		if d > 0 {
			pos = append(pos, d)
		}
	}
	if len(pos) == 0 {
		return 0
	}
	slices.Sort(pos)
	return pos[len(pos)/2]
}

// End returns the profile's end time: its endTime, or without one the end of
// its last sample run (the start time when it has no samples).
func (p *Profile) End() int64 {
	if p.HasEndTime {
		return p.EndTime
	}
	if runs := p.Runs(); len(runs) > 0 {
		return runs[len(runs)-1].End
	}
	return p.StartTime
}

// Runs merges consecutive equal samples into runs. Samples are taken in time
// order (a stable sort when deltas are negative, as DevTools does). A run ends
// where the next one starts; the last ends one sampling interval after its last
// sample, but not after endTime when endTime is later than that sample.
func (p *Profile) Runs() []Run {
	if len(p.Samples) == 0 {
		return nil
	}
	ts := p.Timestamps()
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	if !sort.SliceIsSorted(order, func(a, b int) bool { return ts[order[a]] < ts[order[b]] }) {
		sort.SliceStable(order, func(a, b int) bool { return ts[order[a]] < ts[order[b]] })
	}
	var runs []Run
	for _, i := range order {
		if len(runs) > 0 && runs[len(runs)-1].NodeID == p.Samples[i] {
			continue
		}
		if len(runs) > 0 {
			runs[len(runs)-1].End = ts[i]
		}
		runs = append(runs, Run{NodeID: p.Samples[i], Start: ts[i]})
	}
	last := ts[order[len(order)-1]]
	end := last + p.Interval()
	if p.HasEndTime && p.EndTime >= last && p.EndTime < end {
		end = p.EndTime
	}
	runs[len(runs)-1].End = end
	return runs
}

// CompatRuns reproduces the reference trace_streamer's timing (docs/format/cpuprofile.md#compat-timing):
// timeDeltas[0] is ignored, deltas are read as uint32, and the last run ends at
// the last sample's time.
func (p *Profile) CompatRuns() []Run {
	n := len(p.Samples)
	if n == 0 {
		return nil
	}
	// T(i) for i = 0..n, as far as deltas exist.
	t := make([]int64, n+1)
	t[0] = p.StartTime
	for i := 1; i <= n; i++ {
		t[i] = t[i-1]
		if i < len(p.TimeDeltas) {
			t[i] += int64(uint32(p.TimeDeltas[i]/1000)) * 1000
		}
	}
	var runs []Run
	for a := 0; a < n; {
		b := a
		for b+1 < n && p.Samples[b+1] == p.Samples[a] {
			b++
		}
		end := t[b+1]
		if b == n-1 {
			end = t[n-1]
			if len(p.TimeDeltas) > n {
				end = t[n]
			}
		}
		runs = append(runs, Run{NodeID: p.Samples[a], Start: t[a], End: end})
		a = b + 1
	}
	return runs
}
