// Package arktstest writes .htrace files the way OpenHarmony's ArkTS profiler
// plugin does (docs/format/arkts.md#what-the-plugin-writes): a config record, then one
// "arkts-plugin" record per inspector message — CPU profiler responses, heap
// snapshot or timeline markers, progress events and addHeapSnapshotChunk events
// carrying the snapshot text in pieces. Tests and benchmarks use it to wrap real
// V8 captures into htrace files.
package arktstest

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"tracestreamer/parser/htrace"
	"tracestreamer/parser/jsonscan"
	"tracestreamer/proto/hiprofpb"
)

// Session writes one capture.
type Session struct {
	w *htrace.Writer
	// Time is the CLOCK_REALTIME ns stamped on the next record; Step is added
	// after each record.
	Time, Step uint64
	// Tracking is how long a timeline's allocation tracking runs: the time
	// added after its start marker and events, before the snapshot is taken.
	Tracking uint64
	// ChunkSize is the number of snapshot text bytes per chunk (default 64 KiB);
	// ChunkSizes, if set, gives the size of chunk i instead.
	ChunkSize  int
	ChunkSizes func(i int) int
	// NoProgress leaves out the reportHeapSnapshotProgress events.
	NoProgress bool
}

// NewSession starts an htrace file on w with the given header clock snapshot.
func NewSession(w io.WriteSeeker, clocks [htrace.NumClocks]uint64) (*Session, error) {
	hw, err := htrace.NewWriter(w, clocks)
	if err != nil {
		return nil, err
	}
	return &Session{w: hw, Time: 1_000_000_000, Step: 1_000_000}, nil
}

// Close finishes the file (final header).
func (s *Session) Close() error { return s.w.Close() }

// Config writes an "arkts-plugin_config" record (no timestamp, as the plugin).
func (s *Session) Config(c *hiprofpb.ArkTSConfig) error {
	data, err := marshal(c)
	if err != nil {
		return err
	}
	return s.w.Write(&hiprofpb.ProfilerPluginData{Name: "arkts-plugin_config", Data: data})
}

// Record writes one "arkts-plugin" record with an arbitrary ArkTSResult payload
// at the session's time.
func (s *Session) Record(payload []byte) error {
	t := s.Time
	s.Time += s.Step
	return s.w.Write(&hiprofpb.ProfilerPluginData{Name: "arkts-plugin", Data: payload,
		TvSec: t / 1e9, TvNsec: t % 1e9, Version: "1.01"})
}

// Raw writes a record with any name and payload (for unknown-plugin tests).
func (s *Session) Raw(rec *hiprofpb.ProfilerPluginData) error { return s.w.Write(rec) }

// RawBytes writes a length-prefixed record with arbitrary bytes.
func (s *Session) RawBytes(b []byte) error { return s.w.WriteRaw(b) }

// Message writes one inspector message.
func (s *Session) Message(msg string) error { return s.MessageBytes([]byte(msg)) }

// MessageBytes writes one inspector message.
func (s *Session) MessageBytes(msg []byte) error {
	data, err := marshal(&hiprofpb.ArkTSResult{Result: msg})
	if err != nil {
		return err
	}
	return s.Record(data)
}

// Marker is the response that ends (or, for a timeline, starts) a capture step.
func Marker(id int) string { return `{"id":` + strconv.Itoa(id) + `,"result":{}}` }

// ChunkMessage returns the addHeapSnapshotChunk event carrying text.
func ChunkMessage(text []byte) []byte {
	b := []byte(`{"method":"HeapProfiler.addHeapSnapshotChunk","params":{"chunk":`)
	b = AppendJSONString(b, text)
	return append(b, "}}"...)
}

// AppendJSONString appends text as a JSON string literal.
func AppendJSONString(b, text []byte) []byte { return jsonscan.AppendString(b, text) }

// Chunks writes text as addHeapSnapshotChunk events, cutting it into pieces of
// ChunkSize bytes (never inside a UTF-8 sequence).
func (s *Session) Chunks(text []byte) error {
	for i := 0; len(text) > 0; i++ {
		n := s.ChunkSize
		if s.ChunkSizes != nil {
			n = s.ChunkSizes(i)
		}
		if n <= 0 {
			n = 64 << 10
		}
		n = min(n, len(text))
		for n < len(text) && n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		if n == 0 {
			n = 1
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
		}
		if err := s.MessageBytes(ChunkMessage(text[:n])); err != nil {
			return err
		}
		text = text[n:]
	}
	return nil
}

func (s *Session) progress(done, total int, finished bool) error {
	if s.NoProgress {
		return nil
	}
	fin := ""
	if finished {
		fin = `,"finished":true`
	}
	return s.Message(fmt.Sprintf(`{"method":"HeapProfiler.reportHeapSnapshotProgress","params":{"done":%d,"total":%d%s}}`,
		done, total, fin))
}

// Snapshot writes one snapshot-mode capture: progress events, the chunks, and
// the {"id":1,"result":{}} end marker.
func (s *Session) Snapshot(text []byte) error {
	if err := s.progress(0, 100, false); err != nil {
		return err
	}
	if err := s.progress(100, 100, true); err != nil {
		return err
	}
	if err := s.Chunks(text); err != nil {
		return err
	}
	return s.Message(Marker(1))
}

// Timeline writes a timeline-mode capture: the start marker, the tracking
// events queued meanwhile, progress, the chunks and the {"id":2} end marker.
func (s *Session) Timeline(text []byte, events []string) error {
	if err := s.Message(Marker(1)); err != nil {
		return err
	}
	for _, e := range events {
		if err := s.Message(e); err != nil {
			return err
		}
	}
	s.Time += s.Tracking
	if err := s.progress(100, 100, true); err != nil {
		return err
	}
	if err := s.Chunks(text); err != nil {
		return err
	}
	return s.Message(Marker(2))
}

// CPUStart writes the two responses of Profiler.setSamplingInterval and
// Profiler.start.
func (s *Session) CPUStart() error {
	if err := s.Message(Marker(3)); err != nil {
		return err
	}
	return s.Message(Marker(3))
}

// CPUProfile writes the Profiler.stop response carrying profile (JSON object).
func (s *Session) CPUProfile(profile []byte) error {
	msg := append([]byte(`{"id":3,"result":{"profile":`), profile...)
	return s.MessageBytes(append(msg, "}}"...))
}
