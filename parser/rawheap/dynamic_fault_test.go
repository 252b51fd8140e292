package rawheap

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// dynDecode opens and decodes a dynamic dump, checking what the Graph gets.
func dynDecode(t *testing.T, b []byte) (*checkedGraph, []Problem, error) {
	t.Helper()
	g := &checkedGraph{t: t}
	var probs []Problem
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return g, nil, err
	}
	_, err = DecodeProblems(f, g, func(p Problem) { probs = append(probs, p) })
	if err == nil {
		g.done()
	}
	return g, probs, err
}

// TestDynamicFaults damages V1 and V2 fixtures in the ways the issue lists
// and checks the error or problem (kind, offset) and what is kept.
func TestDynamicFaults(t *testing.T) {
	v1 := readGz(t, "../../testdata/rawheap/v1.rawheap.gz")
	v2 := readGz(t, "../../testdata/rawheap/v2.rawheap.gz")
	sections := func(b []byte) (*File, int64) {
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return f, f.DumpSize - 8 - 4*int64(len(f.Sections))
	}
	f1, _ := sections(v1)
	f2, idx2 := sections(v2)
	good1, _, _ := dynDecode(t, v1)
	good2, _, _ := dynDecode(t, v2)
	put32 := func(b []byte, off int64, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	le := func(b []byte, off int64) uint32 { return binary.LittleEndian.Uint32(b[off:]) }
	obj2 := int64(f2.Sections[4]) + 8 // V2 table
	obj1 := int64(f1.Sections[4]) + 8 // V1 table

	type kept struct{ nodes, edges, strings string } // "=": as the sound file, "<": fewer, "0": none
	cases := []struct {
		name   string
		file   []byte
		damage func(b []byte) []byte
		err    string // the error, when nothing is usable
		kind   ProblemKind
		off    int64
		msg    string
		kept   kept
		good   *checkedGraph
	}{
		{name: "truncated in the objects", file: v2, damage: func(b []byte) []byte { return b[:f2.DumpSize/2] },
			err: "no valid metadata trailer"},
		{name: "truncated in the trailer", file: v1, damage: func(b []byte) []byte { return b[:len(b)-3] },
			err: "no valid metadata trailer"},
		{name: "no metadata appended (the runtime's raw dump)", file: v2, damage: func(b []byte) []byte { return b[:f2.DumpSize] },
			err: "no valid metadata trailer"},
		{name: "metadata damaged", file: v1, damage: func(b []byte) []byte { b[f1.DumpSize] = 'x'; return b },
			err: "metadata: not a JSON object"},
		{name: "unknown version", file: v2, damage: func(b []byte) []byte { copy(b, "4.0.0"); return b },
			err: `offset 0: unknown rawheap version "4.0.0"`},
		{name: "section index damaged", file: v2, damage: func(b []byte) []byte { put32(b, f2.DumpSize-8, 7); return b },
			err: "no section index at the end of the dump (count 7, unit 4)"},
		{name: "root section outside the file", file: v2, damage: func(b []byte) []byte { put32(b, idx2, 1<<30); return b },
			err: "root section (offset 1073741824"},
		{name: "string section outside the file", file: v2, damage: func(b []byte) []byte { put32(b, idx2+8, 1<<30); return b },
			kind: ProblemOutside, off: idx2 + 8, msg: "objects keep their default names", kept: kept{"=", "=", "<"}, good: good2},
		{name: "object section runs past the dump", file: v2, damage: func(b []byte) []byte { put32(b, idx2+20, le(b, idx2+20)+1<<20); return b },
			kind: ProblemOutside, off: idx2 + 16, msg: "read up to there", kept: kept{"=", "=", "="}, good: good2},
		{name: "object table entries too small", file: v2, damage: func(b []byte) []byte { put32(b, obj2-4, 8); return b },
			err: "object table header: 4527 entries of 8 bytes"},
		{name: "token stream cut: an object without hclass", file: v2,
			damage: func(b []byte) []byte { put32(b, idx2+20, le(b, idx2+20)-uint32(f2.DumpSize-idx2)/2-2000); return b },
			kind:   ProblemBadRecord, msg: "has no hclass in the token stream", kept: kept{"=", "<", "="}, good: good2},
		{name: "dangling address (V2)", file: v2, damage: func(b []byte) []byte { put32(b, obj2+24*10, 0x7FF00008); return b },
			kind: ProblemDangling, msg: "references to addresses that are not in the object table", kept: kept{"=", "<", "="}, good: good2},
		{name: "object offset past the end (V1)", file: v1, damage: func(b []byte) []byte { put32(b, obj1+24*10+20, 0xFFFFFF00); return b },
			kind: ProblemOutside, off: obj1 + 24*10, msg: "lies past its section's memory", kept: kept{"=", "<", "="}, good: good1},
		{name: "dangling address (V1)", file: v1, damage: func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[obj1+24*1:], 0x7FF0_0000_0008) // the empty array
			return b
		}, kind: ProblemDangling, msg: "references to addresses that are not in the object tables", kept: kept{"=", "<", "="}, good: good1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, probs, err := dynDecode(t, c.damage(bytes.Clone(c.file)))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var p *Problem
			for i := range probs {
				if probs[i].Kind == c.kind && strings.Contains(probs[i].Msg, c.msg) {
					p = &probs[i]
					break
				}
			}
			if p == nil || c.off != 0 && p.Offset != c.off {
				t.Fatalf("problems %+v; want kind %d at %d, %q", probs, c.kind, c.off, c.msg)
			}
			for _, k := range []struct {
				what      string
				got, good int64
				want      string
			}{{"nodes", g.nodes, c.good.nodes, c.kept.nodes}, {"edges", g.edges, c.good.edges, c.kept.edges},
				{"strings", g.strings, c.good.strings, c.kept.strings}} {
				if k.want == "=" && k.got != k.good || k.want == "<" && !(k.got < k.good && k.got > 0) {
					t.Errorf("%s: %d kept of %d, want %s", k.what, k.got, k.good, k.want)
				}
			}
			t.Logf("%s at %d: kept %d/%d nodes, %d/%d edges, %d/%d strings", p.Msg, p.Offset,
				g.nodes, c.good.nodes, g.edges, c.good.edges, g.strings, c.good.strings)
		})
	}
}

// TestSniffV8Rawheap: a file that is not an ArkTS dump is named as such.
func TestOpenNotArkTS(t *testing.T) {
	b := append([]byte("\x08\x00\x00\x00V8 heap"), make([]byte, 64)...)
	_, err := Open(bytes.NewReader(b), int64(len(b)))
	if err == nil || !strings.Contains(err.Error(), "V8-format .rawheap from ArkWeb or JSVM") {
		t.Fatalf("error %v", err)
	}
}

// FuzzDynamic feeds the V1 and V2 decoders damaged dumps: they must neither
// panic nor hand a Graph anything inconsistent, nor take time or memory out
// of proportion to the input.
func FuzzDynamic(f *testing.F) {
	for _, name := range []string{"v1", "v2", "v1-2024", "v2-2026"} {
		f.Add(readGz(f, "../../testdata/rawheap/"+name+".rawheap.gz"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		testutil.CountExec("FuzzDynamic")
		dynDecode(t, b)
	})
}
