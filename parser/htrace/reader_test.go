package htrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"tracestreamer/proto/hiprofpb"
	"tracestreamer/stat"
)

// build writes records with a Writer and returns the file's bytes.
func build(t testing.TB, clocks [NumClocks]uint64, recs ...*hiprofpb.ProfilerPluginData) []byte {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "x.htrace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, clocks)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type got struct {
	names []string
	times []uint64
	log   *stat.Log
	warn  string
	err   error
}

func readAll(in io.Reader) got {
	var warn bytes.Buffer
	g := got{log: stat.NewLog(&warn)}
	r := NewReader(in, "in.htrace", g.log)
	for {
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				g.err = err
			}
			break
		}
		g.names = append(g.names, string(rec.Name))
		ts, _ := rec.Time()
		g.times = append(g.times, ts)
	}
	g.warn = warn.String()
	return g
}

func rec(name string, sec, nsec uint64) *hiprofpb.ProfilerPluginData {
	return &hiprofpb.ProfilerPluginData{Name: name, Data: []byte("payload of " + name), TvSec: sec, TvNsec: nsec}
}

func TestRoundTrip(t *testing.T) {
	var clocks [NumClocks]uint64
	clocks[ClockBoottime], clocks[ClockRealtime], clocks[ClockMonotonic] = 981192459193, 1502028131300006447, 981000000000
	b := build(t, clocks, rec("arkts-plugin_config", 0, 0), rec("arkts-plugin", 5, 7), rec("cpu-plugin", 6, 0))
	h := parseHeader(b[:HeaderSize])
	if h.Magic != Magic || h.Length != uint64(len(b)) || h.Segments != 6 || h.Version != 0x10000 {
		t.Errorf("header = %+v (file %d bytes)", h, len(b))
	}
	for name, in := range map[string]io.Reader{
		"whole":    bytes.NewReader(b),
		"onebyte":  iotest.OneByteReader(bytes.NewReader(b)),
		"halfread": iotest.HalfReader(bytes.NewReader(b)),
	} {
		g := readAll(in)
		if g.err != nil || strings.Join(g.names, ",") != "arkts-plugin_config,arkts-plugin,cpu-plugin" {
			t.Errorf("%s: names %v, err %v", name, g.names, g.err)
		}
		// A record without tv_nsec on the wire (nsec 0 is not encoded) gets
		// tv_sec·1e9, not a stale time.
		if g.times[1] != 5_000_000_007 || g.times[2] != 6_000_000_000 {
			t.Errorf("%s: times %v", name, g.times)
		}
		if g.warn != "" {
			t.Errorf("%s: warnings %q", name, g.warn)
		}
	}
	r := NewReader(bytes.NewReader(b), "x", stat.NewLog(nil))
	r.Next()
	c := r.Clock()
	if !c.Valid() || c.ToBoot(ClockRealtime, 1502028131300006447+10) != 981192459193+10 ||
		c.ToBoot(ClockMonotonic, 981000000000) != 981192459193 {
		t.Errorf("clock conversion wrong: %+v", c)
	}
	if NewClock([NumClocks]uint64{}).ToBoot(ClockRealtime, 42) != 42 {
		t.Error("no snapshot must be the identity")
	}
}

func TestFieldOrderAndRepeats(t *testing.T) {
	// Fields out of numeric order, zero values written explicitly, tv_sec twice
	// (the last wins), an unknown field.
	var p []byte
	p = protowire.AppendTag(p, 7, protowire.BytesType)
	p = protowire.AppendString(p, "1.02")
	p = protowire.AppendTag(p, 5, protowire.VarintType)
	p = protowire.AppendVarint(p, 1)
	p = protowire.AppendTag(p, 1, protowire.BytesType)
	p = protowire.AppendString(p, "arkts-plugin")
	p = protowire.AppendTag(p, 2, protowire.VarintType)
	p = protowire.AppendVarint(p, 0)
	p = protowire.AppendTag(p, 99, protowire.Fixed32Type)
	p = protowire.AppendFixed32(p, 1)
	p = protowire.AppendTag(p, 5, protowire.VarintType)
	p = protowire.AppendVarint(p, 3)
	p = protowire.AppendTag(p, 4, protowire.VarintType)
	p = protowire.AppendVarint(p, 7)
	var r Record
	decodeRecord(&r, p)
	if r.Malformed != nil || string(r.Name) != "arkts-plugin" || r.TvSec != 3 || r.HasTvNsec || !r.HasClockID || r.ClockID != 7 ||
		string(r.Version) != "1.02" {
		t.Errorf("record = %+v", r)
	}
	// Garbage after the name: the name is kept, the record is marked malformed.
	var q Record
	decodeRecord(&q, append(protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "x"), 0xff, 0xff))
	if string(q.Name) != "x" || q.Malformed == nil {
		t.Errorf("malformed record = %+v", q)
	}
}

// TestDamagedInput covers the container faults of docs/format/htrace.md#damaged-input.
func TestDamagedInput(t *testing.T) {
	good := build(t, [NumClocks]uint64{}, rec("a", 1, 0), rec("b", 2, 0), rec("c", 3, 0))
	recLen := func(i int) int { // length of record i's payload
		off := HeaderSize
		for k := 0; k < i; k++ {
			off += 4 + int(binary.LittleEndian.Uint32(good[off:]))
		}
		return int(binary.LittleEndian.Uint32(good[off:]))
	}
	secondRec := HeaderSize + 4 + recLen(0)
	withLength := func(b []byte, n uint64) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint64(c[8:], n)
		return c
	}
	corruptLen := bytes.Clone(good)
	binary.LittleEndian.PutUint32(corruptLen[secondRec:], 1<<30)
	perf := AppendHeader(nil, Header{Magic: Magic, Length: HeaderSize + 5, DataType: DataHiperf})
	perf = append(perf, "PERF!"...)
	tests := []struct {
		name      string
		in        []byte
		names     string
		warn, err string
	}{
		{"good", good, "a,b,c", "", ""},
		{"truncated record", good[:len(good)-3], "a,b", "file ends inside record 2", ""},
		{"truncated length", good[:secondRec+2], "a", "file ends inside the length of record 1", ""},
		{"length beyond file", withLength(good, uint64(len(good))+100), "a,b,c", "file ends 100 bytes before the end of the section", ""},
		{"record longer than its section", corruptLen, "a", "record 1: length 1073741824 exceeds", ""},
		{"second section of perf data skipped", append(bytes.Clone(good), perf...), "a,b,c", "", ""},
		{"trailing garbage", append(bytes.Clone(good), "garbage"...), "a,b,c", "7 trailing bytes", ""},
		{"placeholder header", withLength(good, HeaderSize), "a,b,c", "header has length 1024", ""},
		{"bad magic", append([]byte("NOTPROF!"), good[8:]...), "", "", "not an htrace file"},
		{"short header", good[:500], "", "", "header is 500 bytes, want 1024"},
		{"empty", nil, "", "", "not an htrace file: only 0 bytes"},
		{"header length below 1024", withLength(good, 12), "", "", "header length 12 is smaller"},
		{"mark position line", append([]byte("MarkPositionJSON->{\"a\":1}\n"), good...), "a,b,c", "", ""},
		// Lengths an int64 offset cannot hold: the section runs to the end of the file.
		{"header length 2^63", withLength(good, 1<<63), "a,b,c", "before the end of the section declared by its header", ""},
		{"header length 2^64-1", withLength(good, math.MaxUint64), "a,b,c", "before the end of the section declared by its header", ""},
		{"header length 2^63-1", withLength(good, math.MaxInt64), "a,b,c", "before the end of the section declared by its header", ""},
		{"perf section of length 2^63 last", append(bytes.Clone(good), withLength(perf, 1<<63)...), "a,b,c",
			"section of data type 1 ends after 5 of", ""},
	}
	for _, tt := range tests {
		g := readAll(bytes.NewReader(tt.in))
		if strings.Join(g.names, ",") != tt.names {
			t.Errorf("%s: records %v, want %s", tt.name, g.names, tt.names)
		}
		if (tt.err == "") != (g.err == nil) || (g.err != nil && !strings.Contains(g.err.Error(), tt.err)) {
			t.Errorf("%s: error %v, want %q", tt.name, g.err, tt.err)
		}
		if tt.warn == "" && g.warn != "" || !strings.Contains(g.warn, tt.warn) {
			t.Errorf("%s: warnings %q, want %q", tt.name, g.warn, tt.warn)
		}
		if tt.warn != "" && !strings.Contains(g.warn, "in.htrace: offset ") {
			t.Errorf("%s: warning does not name the file and offset: %q", tt.name, g.warn)
		}
	}
}

// TestManySections: a file of many sections of another data type is read in
// constant stack space (the section reader once called itself per skipped
// section, and millions of sections overflowed the goroutine stack).
func TestManySections(t *testing.T) {
	perf := AppendHeader(nil, Header{Magic: Magic, Length: HeaderSize + 1, DataType: DataHiperf})
	perf = append(perf, '!')
	good := build(t, [NumClocks]uint64{}, rec("a", 1, 0))
	const n = 20_000
	in := append(append(bytes.Clone(good), bytes.Repeat(perf, n)...), good...)
	// 256 KiB of stack: far less than n nested calls need.
	defer debug.SetMaxStack(debug.SetMaxStack(256 << 10))
	g := readAll(bytes.NewReader(in))
	if strings.Join(g.names, ",") != "a,a" || g.log.Count(stat.Other, stat.NotSupported) != n {
		t.Errorf("records %v, skipped sections %d", g.names, g.log.Count(stat.Other, stat.NotSupported))
	}
}

// TestResync: after a corrupt length in the middle of a section, reading goes
// on at the next record that starts with a known plugin name.
func TestResync(t *testing.T) {
	recs := []*hiprofpb.ProfilerPluginData{rec("arkts-plugin_config", 0, 0), rec("arkts-plugin", 1, 0),
		rec("arkts-plugin", 2, 0), rec("cpu-plugin", 3, 0)}
	good := build(t, [NumClocks]uint64{}, recs...)
	second := HeaderSize + 4 + int(binary.LittleEndian.Uint32(good[HeaderSize:]))
	for _, corrupt := range []uint32{1 << 31, 3} { // too long for the section; too short (misaligned)
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[second:], corrupt)
		g := readAll(bytes.NewReader(b))
		times := g.times[len(g.times)-2:]
		if g.names[0] != "arkts-plugin_config" || g.names[len(g.names)-2] != "arkts-plugin" || g.names[len(g.names)-1] != "cpu-plugin" ||
			times[0] != 2e9 || times[1] != 3e9 {
			t.Errorf("length %d: records %q times %v", corrupt, g.names, g.times)
		}
		if !strings.Contains(g.warn, "bytes skipped to the next record") {
			t.Errorf("length %d: warnings %q", corrupt, g.warn)
		}
		if g.log.Count(stat.HTraceRecord, stat.InvalidData) == 0 {
			t.Errorf("length %d: not counted", corrupt)
		}
	}
}

func TestWriterMatchesProto(t *testing.T) {
	r := &hiprofpb.ProfilerPluginData{Name: "arkts-plugin", Data: []byte{1, 2, 3}, TvSec: 9, TvNsec: 8, ClockId: 7, Version: "1.01"}
	b := build(t, [NumClocks]uint64{}, r)
	payload := b[HeaderSize+4:]
	var back hiprofpb.ProfilerPluginData
	if err := proto.Unmarshal(payload, &back); err != nil || !proto.Equal(&back, r) {
		t.Errorf("round trip through proto: %v %v", &back, err)
	}
	var dec Record
	decodeRecord(&dec, payload)
	if string(dec.Name) != r.Name || !bytes.Equal(dec.Data, r.Data) || dec.TvSec != 9 || dec.TvNsec != 8 || dec.ClockID != 7 {
		t.Errorf("decodeRecord = %+v", dec)
	}
}
