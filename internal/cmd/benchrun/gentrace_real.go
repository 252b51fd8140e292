package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// realSources are the real captures genRealTrace tiles, relative to the
// repository root, each with the script that made it: two headless Chromium
// traces (a startup and a busy page with DevTools' timeline categories and
// V8's sampling profiler) and two node traces (a short script and a program
// doing I/O, HTTP, timers and GC).
var realSources = []string{
	"testdata/chromium/busy.json.gz",  // capture-chromium-busy.sh
	"testdata/chromium/trace.json.gz", // capture-chromium.sh
	"testdata/node/busy.json.gz",      // capture-node-busy.sh
	"testdata/node/trace.json",        // capture-trace.sh
}

// Offsets between tiles. pidStride and tidStride lie above Linux's largest pid
// (pid_max ≤ 2^22), so shifted pids and tids never meet those of another
// tile; idMix scrambles the ids of async events and flows per tile.
const (
	pidStride = 1 << 22
	idMix     = 0x9E3779B97F4A7C15
	tileGapUS = 1000 // µs between the end of one tile and the next
)

// genRealTrace writes a Chrome Trace Event file of about size bytes made of
// real captures tiled end to end: tile k holds every element of every source
// (testdata, see realSources), in their file order, with timestamps moved to
// follow tile k−1, pids and tids moved to numbers of their own, and the ids
// of async events and flows (id, id2, bind_id) changed per tile, so that no
// tile merges with another and the phase mix, argument shapes, nesting and
// disorder are those of the real files. Metadata events (ph M) keep their
// timestamp. Writing stops after the element that reaches size. The content
// is deterministic. root is the repository root.
func genRealTrace(path, root string, size int64) error {
	var srcs []realSource
	var span int64
	for _, name := range realSources {
		s, err := loadRealSource(filepath.Join(root, name))
		if err != nil {
			return fmt.Errorf("realistic trace: %w", err)
		}
		srcs = append(srcs, s)
		span = max(span, s.maxTS-s.minTS)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString("{\"traceEvents\":[\n")
	written := int64(n)
	var buf []byte
	const base = 1_000_000_000 // µs of the first tile's start
	for k := int64(0); written < size; k++ {
		start := base + k*(span+tileGapUS)
		for _, s := range srcs {
			for _, e := range s.events {
				buf = e.appendTile(buf[:0], k, start-s.minTS)
				buf = append(buf, ",\n"...)
				w.Write(buf)
				written += int64(len(buf))
				if written >= size {
					break
				}
			}
			if written >= size {
				break
			}
		}
	}
	w.WriteString("{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"trace_end\",\"args\":{}}\n],\"displayTimeUnit\":\"ms\",\"metadata\":{\"generator\":\"benchrun genRealTrace\"}}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// A realSource is one capture's elements, each cut into its constant text and
// the values that change per tile.
type realSource struct {
	events       []realEvent
	minTS, maxTS int64 // µs, integer part, over elements other than metadata
}

// A realEvent is an element as constant pieces around fields to rewrite:
// the element is text[0] field[0] text[1] field[1] … text[len(fields)].
type realEvent struct {
	text   [][]byte
	fields []realField
}

type fieldKind uint8

const (
	fieldTS fieldKind = iota
	fieldPid
	fieldID
)

type realField struct {
	kind fieldKind
	raw  []byte // the original JSON value
}

func loadRealSource(path string) (realSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return realSource{}, err
	}
	defer f.Close()
	var r io.Reader = f
	if filepath.Ext(path) == ".gz" {
		z, err := gzip.NewReader(f)
		if err != nil {
			return realSource{}, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return realSource{}, fmt.Errorf("%s: %w", path, err)
	}
	s := realSource{minTS: math.MaxInt64, maxTS: math.MinInt64}
	for i, raw := range doc.TraceEvents {
		e, ts, meta, err := splitRealEvent(raw)
		if err != nil {
			return realSource{}, fmt.Errorf("%s: element %d: %w", path, i, err)
		}
		if !meta && ts != nil {
			v := tsInt(ts)
			s.minTS, s.maxTS = min(s.minTS, v), max(s.maxTS, v)
		}
		s.events = append(s.events, e)
	}
	if len(s.events) == 0 || s.minTS > s.maxTS {
		return realSource{}, fmt.Errorf("%s: no timed events", path)
	}
	return s, nil
}

// splitRealEvent cuts an element at the values of its top-level pid, tid, ts
// (except in metadata events), id, bind_id and id2's members. It returns the
// raw ts and whether the element is a metadata event.
func splitRealEvent(raw []byte) (e realEvent, ts []byte, meta bool, err error) {
	type span struct {
		kind       fieldKind
		start, end int
	}
	var spans []span
	var tsSpan *span
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return e, nil, false, errors.New("not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return e, nil, false, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return e, nil, false, err
		}
		end := int(dec.InputOffset())
		start := end - len(v)
		switch key {
		case "pid", "tid":
			spans = append(spans, span{fieldPid, start, end})
		case "ts":
			spans = append(spans, span{fieldTS, start, end})
			tsSpan = &spans[len(spans)-1]
			ts = v
		case "id", "bind_id":
			spans = append(spans, span{fieldID, start, end})
		case "id2":
			// {"local":"0x…"} or {"global":"0x…"}: rewrite the member values.
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) == nil {
				for _, mv := range m {
					if i := bytes.Index(v, mv); i >= 0 {
						spans = append(spans, span{fieldID, start + i, start + i + len(mv)})
					}
				}
			}
		case "ph":
			meta = string(v) == `"M"`
		}
	}
	if meta && tsSpan != nil {
		tsSpan.kind = 255 // kept as it is
	}
	// Spans are in element order except id2's members, at most two of them.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].start < spans[j-1].start; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	at := 0
	for _, s := range spans {
		if s.kind == 255 {
			continue
		}
		e.text = append(e.text, raw[at:s.start])
		e.fields = append(e.fields, realField{kind: s.kind, raw: raw[s.start:s.end]})
		at = s.end
	}
	e.text = append(e.text, raw[at:])
	return e, ts, meta, nil
}

// tsInt is the integer part of a JSON number of µs (0 if it is not one).
func tsInt(raw []byte) int64 {
	s := string(bytes.Trim(raw, `"`))
	if i := bytes.IndexAny([]byte(s), ".eE"); i >= 0 {
		f, _ := strconv.ParseFloat(s, 64)
		return int64(math.Floor(f))
	}
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

// appendTile appends the element as it appears in tile k, its timestamps
// moved by shift µs.
func (e *realEvent) appendTile(b []byte, k, shift int64) []byte {
	for i, f := range e.fields {
		b = append(b, e.text[i]...)
		switch f.kind {
		case fieldTS:
			b = appendShiftedTS(b, f.raw, shift)
		case fieldPid:
			b = appendShiftedPid(b, f.raw, k)
		case fieldID:
			b = appendTileID(b, f.raw, k)
		}
	}
	return append(b, e.text[len(e.text)-1]...)
}

// appendShiftedTS adds shift to a number of µs, keeping its fraction digits
// as written (a string or exponent form goes through float64).
func appendShiftedTS(b, raw []byte, shift int64) []byte {
	dot := bytes.IndexByte(raw, '.')
	intPart := raw
	if dot >= 0 {
		intPart = raw[:dot]
	}
	if v, err := strconv.ParseInt(string(intPart), 10, 64); err == nil && v >= 0 {
		b = strconv.AppendInt(b, v+shift, 10)
		if dot >= 0 {
			b = append(b, raw[dot:]...)
		}
		return b
	}
	f, err := strconv.ParseFloat(string(bytes.Trim(raw, `"`)), 64)
	if err != nil {
		return append(b, raw...)
	}
	return strconv.AppendFloat(b, f+float64(shift), 'f', -1, 64)
}

// appendShiftedPid moves a numeric pid or tid by k × pidStride; a string one
// gets the suffix "/k".
func appendShiftedPid(b, raw []byte, k int64) []byte {
	if k == 0 {
		return append(b, raw...)
	}
	if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return strconv.AppendInt(b, v+k*pidStride, 10)
	}
	return appendTileSuffix(b, raw, k)
}

// appendTileID changes an id for tile k: a hex string is XORed with k × idMix
// (a bijection, so ids stay distinct), a number gets k << 40 added (node's
// and Chromium's numeric ids are small), another string the suffix "/k".
func appendTileID(b, raw []byte, k int64) []byte {
	if k == 0 {
		return append(b, raw...)
	}
	if len(raw) > 4 && raw[0] == '"' && raw[1] == '0' && (raw[2] == 'x' || raw[2] == 'X') {
		if v, err := strconv.ParseUint(string(raw[3:len(raw)-1]), 16, 64); err == nil {
			b = append(b, `"0x`...)
			b = strconv.AppendUint(b, v^uint64(k)*idMix, 16)
			return append(b, '"')
		}
	}
	if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil && v >= 0 && v < 1<<40 {
		return strconv.AppendInt(b, v+k<<40, 10)
	}
	return appendTileSuffix(b, raw, k)
}

// appendTileSuffix gives a string the suffix "/k"; anything else is kept.
func appendTileSuffix(b, raw []byte, k int64) []byte {
	if len(raw) >= 2 && raw[0] == '"' {
		b = append(b, raw[:len(raw)-1]...)
		b = append(b, '/')
		b = strconv.AppendInt(b, k, 10)
		return append(b, '"')
	}
	return append(b, raw...)
}
