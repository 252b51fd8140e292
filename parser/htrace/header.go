// Package htrace reads OpenHarmony hiprofiler .htrace files: 1024-byte section
// headers followed by little-endian u32 length-prefixed ProfilerPluginData records
// (docs/format/htrace.md). The Reader streams: it holds one record at a time.
package htrace

import (
	"bytes"
	"encoding/binary"
)

// Magic is the section header magic, the bytes "OHOSPROF".
const Magic = 0x464F5250534F484F

// HeaderSize is the size of a section header.
const HeaderSize = 1024

// Section data types.
const (
	DataProtobuf   = 0    // length-prefixed ProfilerPluginData records
	DataHiperf     = 1    // raw perf.data
	DataStandalone = 1000 // raw payload of a standalone plugin
	DataUnknown    = 1024 // the reference's default; parsed as records
)

// Clock ids of the trace_streamer clock model (not Linux clockid numbers).
const (
	ClockUnknown = iota
	ClockBoottime
	ClockRealtime
	ClockRealtimeCoarse
	ClockMonotonic
	ClockMonotonicCoarse
	ClockMonotonicRaw
	// NumClocks is the size of a clock snapshot array.
	NumClocks
)

// ClockName returns the clock's name as the reference writes it in clock_snapshot.
func ClockName(id int) string {
	switch id {
	case ClockBoottime:
		return "boottime"
	case ClockRealtime:
		return "realtime"
	case ClockRealtimeCoarse:
		return "realtime_corse"
	case ClockMonotonic:
		return "monotonic"
	case ClockMonotonicCoarse:
		return "monotonic-coarse"
	case ClockMonotonicRaw:
		return "monotonic-raw"
	}
	return "unknown"
}

// Header is a section header.
type Header struct {
	Offset   int64 // byte offset of the header in the input
	Magic    uint64
	Length   uint64 // section size including this header
	Version  uint32
	Segments uint32
	SHA256   [32]byte
	DataType uint32
	// Clocks holds the clock snapshot in ns, indexed by clock id (Clocks[0] unused).
	Clocks               [NumClocks]uint64
	StandalonePluginName string
	PluginVersion        string
	DurationNs           uint64
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// parseHeader decodes a 1024-byte header.
func parseHeader(b []byte) Header {
	le := binary.LittleEndian
	h := Header{
		Magic:    le.Uint64(b[0:]),
		Length:   le.Uint64(b[8:]),
		Version:  le.Uint32(b[16:]),
		Segments: le.Uint32(b[20:]),
		DataType: le.Uint32(b[56:]),
	}
	copy(h.SHA256[:], b[24:56])
	for i, off := range []int{60, 68, 76, 84, 92, 100} {
		h.Clocks[ClockBoottime+i] = le.Uint64(b[off:])
	}
	h.StandalonePluginName = cstring(b[108:236])
	h.PluginVersion = cstring(b[236:244])
	h.DurationNs = le.Uint64(b[244:])
	return h
}

// AppendHeader encodes h as a 1024-byte header (used by fixture writers).
func AppendHeader(dst []byte, h Header) []byte {
	b := make([]byte, HeaderSize)
	le := binary.LittleEndian
	le.PutUint64(b[0:], h.Magic)
	le.PutUint64(b[8:], h.Length)
	le.PutUint32(b[16:], h.Version)
	le.PutUint32(b[20:], h.Segments)
	copy(b[24:56], h.SHA256[:])
	le.PutUint32(b[56:], h.DataType)
	for i, off := range []int{60, 68, 76, 84, 92, 100} {
		le.PutUint64(b[off:], h.Clocks[ClockBoottime+i])
	}
	copy(b[108:235], h.StandalonePluginName)
	copy(b[236:243], h.PluginVersion)
	le.PutUint64(b[244:], h.DurationNs)
	return append(dst, b...)
}

// Clock converts timestamps to the primary clock (BOOTTIME) with one clock
// snapshot: t_boot = t + (snapshot[boottime] − snapshot[clock]). Without a usable
// snapshot the conversion is the identity, as in the reference.
type Clock struct {
	snap  [NumClocks]uint64
	valid bool
}

// NewClock returns the conversion defined by a header's clock snapshot; it is
// valid when boottime and at least one other clock are non-zero.
func NewClock(clocks [NumClocks]uint64) Clock {
	n := 0
	for _, v := range clocks[1:] {
		if v != 0 {
			n++
		}
	}
	return Clock{snap: clocks, valid: clocks[ClockBoottime] != 0 && n >= 2}
}

// Valid reports whether the clock converts (false: identity).
func (c Clock) Valid() bool { return c.valid }

// Snapshot returns the clock values of the snapshot, indexed by clock id.
func (c Clock) Snapshot() [NumClocks]uint64 { return c.snap }

// ToBoot converts t (ns) on clock id to BOOTTIME ns.
func (c Clock) ToBoot(clock int, t uint64) uint64 {
	if !c.valid || clock <= 0 || clock >= NumClocks || c.snap[clock] == 0 {
		return t
	}
	return t + (c.snap[ClockBoottime] - c.snap[clock])
}

// ClockFromLinux maps a ProfilerPluginData clock_id (Linux clockid numbering) to a
// clock id of this package; ok is false for clocks without a snapshot value.
func ClockFromLinux(id int32) (clock int, ok bool) {
	switch id {
	case 0:
		return ClockRealtime, true
	case 1:
		return ClockMonotonic, true
	case 4:
		return ClockMonotonicRaw, true
	case 5:
		return ClockRealtimeCoarse, true
	case 6:
		return ClockMonotonicCoarse, true
	case 7:
		return ClockBoottime, true
	}
	return ClockUnknown, false
}
