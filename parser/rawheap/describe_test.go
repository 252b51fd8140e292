package rawheap

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

type nopGraph struct{}

func (nopGraph) Reserve(int64, int64)                          {}
func (nopGraph) Node(int64, int64, int64, int64, int64, int64) {}
func (nopGraph) Edge(int64, int64, int64)                      {}
func (nopGraph) String(string)                                 {}

// forwardOnly fails a read that goes back before the previous one's end
// (past the first bytes), as a decompressed stream would.
type forwardOnly struct {
	b   []byte
	end int64
	t   *testing.T
}

func (f *forwardOnly) ReadAt(p []byte, off int64) (int, error) {
	if off >= 64 && off < f.end {
		f.t.Errorf("read at %d after a read up to %d", off, f.end)
	}
	f.end = max(f.end, off+int64(len(p)))
	return bytes.NewReader(f.b).ReadAt(p, off)
}

// TestDescribeDynamic compares a dump's description with the decoder's
// full pass (objects and the strings it names) and with counts read here
// from the section index by hand.
func TestDescribeDynamic(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		name        string
		kind        Kind
		version, vm string
		timestamp   bool
	}{
		{"v1", DynamicV1, "1.0.0", "", true},
		{"v2", DynamicV2, "2.0.0", "", true},
		{"v1-2024", DynamicV1NoVersion, "1.0.0", "", false},
		{"v2-2026", DynamicV2, "2.0.0", "dynamic", true},
		{"v1-2026-leak-final", DynamicV1, "1.0.0", "dynamic", true},
		{"hybrid.dyn", DynamicV2, "2.0.0", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := readGz(t, "../../testdata/rawheap/"+tc.name+".rawheap.gz")
			d, err := Describe(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", *d)
			// By hand: the trailer, the index before the metadata, each
			// section's first u32.
			dump := int64(le.Uint32(b[len(b)-8:]))
			n := int64(le.Uint32(b[dump-8:]))
			idx := b[dump-8-4*n : dump-8]
			sec := func(i int) int64 { return int64(le.Uint32(b[le.Uint32(idx[8*i:]):])) }
			var objects int64
			for i := 2; i < int(n/2); i++ {
				objects += sec(i)
			}
			f, err := Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			sum, err := Decode(f, nopGraph{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind != tc.kind || d.Version != tc.version || d.VMType != tc.vm || !d.Trailer || d.Problem != "" {
				t.Errorf("kind %v version %q vm %q trailer %v problem %q", d.Kind, d.Version, d.VMType, d.Trailer, d.Problem)
			}
			if d.Objects != objects || d.Objects != sum.Objects || d.ObjectSections != int(n/2-2) {
				t.Errorf("objects %d in %d sections; by hand %d in %d, decoder %d", d.Objects, d.ObjectSections, objects, n/2-2, sum.Objects)
			}
			if d.Roots != sec(0) || d.Strings != sec(1) || d.Roots <= 0 || d.Strings <= 0 {
				t.Errorf("roots %d strings %d; by hand %d %d", d.Roots, d.Strings, sec(0), sec(1))
			}
			if ts := le.Uint64(b[8:]); tc.timestamp && (d.Timestamp != ts || ts == 0) || !tc.timestamp && d.Timestamp != 0 {
				t.Errorf("timestamp %d, header %d", d.Timestamp, ts)
			}
			if d.DumpSize != dump || d.MetadataSize != int64(le.Uint32(b[len(b)-4:])) || d.MetadataTypes == 0 {
				t.Errorf("dump %d metadata %d types %d", d.DumpSize, d.MetadataSize, d.MetadataTypes)
			}
		})
	}
}

// TestDescribeStatic compares a static dump's description with the
// decoder's records, reading the file forward only, as from a stream.
func TestDescribeStatic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hybrid bool
	}{{"static-node", false}, {"static-leak-final", false}, {"hybrid.sta", true}} {
		t.Run(tc.name, func(t *testing.T) {
			b := readGz(t, "../../testdata/rawheap/"+tc.name+".rawheap.gz")
			d, err := Describe(&forwardOnly{b: b, t: t}, -1)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", *d)
			sd, err := readStatic(bytes.NewReader(b), func(p Problem) { t.Errorf("decoder: %v", p.Msg) })
			if err != nil {
				t.Fatal(err)
			}
			classes := 0
			for _, c := range sd.classes {
				if c.off != 0 {
					classes++
				}
			}
			if d.Kind != Static || d.Version != "3.0.0" || d.Hybrid != tc.hybrid || d.Timestamp != sd.timestamp || d.Problem != "" {
				t.Errorf("kind %v version %q hybrid %v timestamp %d (decoder %d) problem %q", d.Kind, d.Version, d.Hybrid, d.Timestamp, sd.timestamp, d.Problem)
			}
			if want := int64(len(sd.instances) + len(sd.arrays) + len(sd.stringObjs)); d.Objects != want {
				t.Errorf("objects %d, decoder %d", d.Objects, want)
			}
			if d.Roots != int64(len(sd.roots)) || d.Strings != int64(len(sd.strs)) || d.XRefs != int64(len(sd.xrefs)) ||
				d.Records != int64(sd.records) || d.Classes != int64(classes) {
				t.Errorf("roots %d strings %d xrefs %d records %d classes %d; decoder %d %d %d %d %d", d.Roots, d.Strings,
					d.XRefs, d.Records, d.Classes, len(sd.roots), len(sd.strs), len(sd.xrefs), sd.records, classes)
			}
			if tc.hybrid != (d.XRefs > 0) {
				t.Errorf("%d xrefs", d.XRefs)
			}
		})
	}
}

// TestDescribeDamaged: a dump without its trailer is described by its
// header, saying why not further; a static dump cut in a record counts the
// records before it.
func TestDescribeDamaged(t *testing.T) {
	b := readGz(t, "../../testdata/rawheap/v2-2026.rawheap.gz")
	// Truncated, and the raw dump alone (its metadata never appended).
	for _, cut := range [][]byte{b[:len(b)/2], b[:binary.LittleEndian.Uint32(b[len(b)-8:])]} {
		d, err := Describe(bytes.NewReader(cut), int64(len(cut)))
		if err != nil {
			t.Fatal(err)
		}
		if d.Trailer || d.Objects != -1 || d.Kind != DynamicV2 || d.VMType != "dynamic" ||
			d.Timestamp != binary.LittleEndian.Uint64(b[8:]) || !strings.Contains(d.Problem, "no valid metadata trailer") {
			t.Errorf("%d bytes: %+v", len(cut), *d)
		}
	}
	s := readGz(t, "../../testdata/rawheap/static-node.rawheap.gz")
	whole, err := Describe(bytes.NewReader(s), int64(len(s)))
	if err != nil {
		t.Fatal(err)
	}
	cut := s[:len(s)-10]
	d, err := Describe(bytes.NewReader(cut), int64(len(cut)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Records != whole.Records-1 || !strings.Contains(d.Problem, "cut by the end of the file") {
		t.Errorf("records %d of %d, problem %q", d.Records, whole.Records, d.Problem)
	}
	if _, err := Describe(bytes.NewReader([]byte("9.0.0\x00\x00\x00 more bytes here")), 24); err == nil ||
		!strings.Contains(err.Error(), `unknown rawheap version "9.0.0"`) {
		t.Errorf("unknown version: %v", err)
	}
}
