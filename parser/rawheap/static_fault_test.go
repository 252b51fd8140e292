package rawheap

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// staticRecord is where a record of a static dump is.
type staticRecord struct {
	off           int
	tag           byte
	length, count uint32
}

func staticRecords(t testing.TB, b []byte) []staticRecord {
	t.Helper()
	var out []staticRecord
	for p := staticHeaderSize; p < len(b); {
		r := staticRecord{off: p, tag: b[p], length: binary.LittleEndian.Uint32(b[p+9:]), count: binary.LittleEndian.Uint32(b[p+13:])}
		out = append(out, r)
		p += staticRecordHdrSize + int(r.length)
	}
	return out
}

// firstRecord returns the index of the first record of tag.
func firstRecord(t testing.TB, recs []staticRecord, tag byte) int {
	for i, r := range recs {
		if r.tag == tag {
			return i
		}
	}
	t.Fatalf("no record of tag %#x", tag)
	return 0
}

// TestStaticFaults damages the static fixture in the ways a dump can be
// damaged and checks what is reported (kind, offset) and what is kept.
func TestStaticFaults(t *testing.T) {
	const fixture = "../../testdata/rawheap/static-node.rawheap.gz"
	good := readGz(t, fixture)
	recs := staticRecords(t, good)
	inst := recs[firstRecord(t, recs, tagInstanceDump)]
	instIdx := firstRecord(t, recs, tagInstanceDump)
	rootIdx := firstRecord(t, recs, tagRoot)
	last := recs[len(recs)-1]
	want := readTranslator(t, "../../testdata/rawheap/static-node.translated.heapsnapshot.gz")
	full, _ := readStatic(bytes.NewReader(good), func(Problem) {})

	type check func(t *testing.T, d *staticDump, g *transGraph)
	cases := []struct {
		name   string
		damage func() []byte
		kind   ProblemKind
		off    int64
		msg    string
		check  check
	}{
		{
			name:   "body cut short",
			damage: func() []byte { return bytes.Clone(good[:inst.off+staticRecordHdrSize+int(inst.length)/2]) },
			kind:   ProblemTruncated, off: int64(inst.off), msg: "ends after",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				// The records before it, and the complete objects of its first half.
				if d.records != instIdx || len(d.instances) == 0 || len(d.instances) >= int(inst.count) {
					t.Errorf("%d records, %d objects of the cut record's %d", d.records, len(d.instances), inst.count)
				}
				if len(d.classes) != 0 || len(d.roots) != len(full.roots) {
					t.Errorf("%d classes, %d roots", len(d.classes), len(d.roots))
				}
			},
		},
		{
			name:   "record header cut short",
			damage: func() []byte { return bytes.Clone(good[:inst.off+10]) },
			kind:   ProblemTruncated, off: int64(inst.off), msg: "record header of 17 bytes ends after 10",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				if d.records != instIdx || len(d.instances) != 0 || len(d.roots) != len(full.roots) {
					t.Errorf("%d records, %d objects, %d roots", d.records, len(d.instances), len(d.roots))
				}
			},
		},
		{
			name: "unknown tag",
			damage: func() []byte {
				rec := append([]byte{0x42}, make([]byte, 16)...)
				binary.LittleEndian.PutUint32(rec[9:], 5)
				binary.LittleEndian.PutUint32(rec[13:], 1)
				rec = append(rec, 1, 2, 3, 4, 5)
				return append(append(bytes.Clone(good[:inst.off]), rec...), good[inst.off:]...)
			},
			kind: ProblemUnknownTag, off: int64(inst.off), msg: "unknown tag 0x42",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				// Skipped, as the translator skips it: the same graph.
				if _, diffs := compareGraph(g, want); len(diffs) != 0 {
					t.Errorf("graph differs from the translator's: %v", diffs)
				}
			},
		},
		{
			name: "length past the end",
			damage: func() []byte {
				b := bytes.Clone(good)
				binary.LittleEndian.PutUint32(b[last.off+9:], 1000)
				return b
			},
			kind: ProblemTruncated, off: int64(last.off), msg: "body of 1000 bytes ends after 56",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				// Only the summary, which the graph does not use, is lost.
				if _, diffs := compareGraph(g, want); len(diffs) != 0 {
					t.Errorf("graph differs from the translator's: %v", diffs)
				}
			},
		},
		{
			name: "length over the limit",
			damage: func() []byte {
				b := bytes.Clone(good)
				binary.LittleEndian.PutUint32(b[inst.off+9:], 0x20000000)
				return b
			},
			kind: ProblemBadRecord, off: int64(inst.off), msg: "over the limit",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				if d.records != instIdx || len(d.instances) != 0 {
					t.Errorf("%d records, %d objects", d.records, len(d.instances))
				}
			},
		},
		{
			name: "more items than bytes",
			damage: func() []byte {
				b := bytes.Clone(good)
				r := recs[rootIdx]
				binary.LittleEndian.PutUint32(b[r.off+13:], r.length+1)
				return b
			},
			kind: ProblemBadRecord, off: int64(recs[rootIdx].off), msg: "record skipped",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				// The roots are lost, every other record kept.
				if len(d.roots) != 0 || len(d.instances) != len(full.instances) || len(d.classes) != len(full.classes) {
					t.Errorf("%d roots, %d objects, %d classes", len(d.roots), len(d.instances), len(d.classes))
				}
				if s := g.Strings(); s[g.nodes[0].name] != "SyntheticRoot" || s[g.nodes[1].name] != "StaticRoot[0]" || g.nodes[1].edgeCount != 0 {
					t.Errorf("root nodes %q %q", s[g.nodes[0].name], s[g.nodes[1].name])
				}
			},
		},
		{
			name: "unknown field type",
			damage: func() []byte {
				b := bytes.Clone(good)
				b[inst.off+staticRecordHdrSize+instancePrefixLen] = 0x0D // the first object's first value
				return b
			},
			kind: ProblemBadRecord, off: int64(inst.off + staticRecordHdrSize), msg: "field value of unknown type 0xd",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				// The damaged record's objects are lost, the later records kept.
				if len(d.instances) != len(full.instances)-int(inst.count) || len(d.classes) != len(full.classes) {
					t.Errorf("%d objects of %d, %d classes", len(d.instances), len(full.instances), len(d.classes))
				}
			},
		},
		{
			name: "dangling reference",
			damage: func() []byte {
				b := bytes.Clone(good)
				binary.LittleEndian.PutUint32(b[inst.off+staticRecordHdrSize+4:], 0x7ffffff0) // the first object's class
				return b
			},
			kind: ProblemDangling, off: int64(inst.off + staticRecordHdrSize), msg: "object 2147483632, which the dump does not hold",
			check: func(t *testing.T, d *staticDump, g *transGraph) {
				// Kept as an empty node, as the translator keeps it; the
				// object, without its class, is named "Object".
				i := len(g.nodes)
				for j, n := range g.nodes {
					if n.id == 0x7ffffff0 {
						i = j
					}
				}
				if i == len(g.nodes) || g.nodes[i].typ != typeDefault || g.nodes[i].name != 1 {
					t.Fatalf("no empty node for the missing class")
				}
				if len(d.instances) != len(full.instances) {
					t.Errorf("%d objects", len(d.instances))
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var probs []Problem
			prob := func(p Problem) { probs = append(probs, p) }
			d, err := readStatic(bytes.NewReader(c.damage()), prob)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := buildStatic(d, true, prob)
			if len(probs) == 0 {
				t.Fatal("no problem reported")
			}
			p := probs[0]
			if p.Kind != c.kind || p.Offset != c.off || !strings.Contains(p.Msg, c.msg) {
				t.Errorf("problem %d at %d: %q; want %d at %d, %q", p.Kind, p.Offset, p.Msg, c.kind, c.off, c.msg)
			}
			c.check(t, d, g)
		})
	}
}

// TestStaticHeaderErrors checks the files that are not static dumps at all.
func TestStaticHeaderErrors(t *testing.T) {
	good := readGz(t, "../../testdata/rawheap/static-node.rawheap.gz")
	for _, c := range []struct {
		name   string
		damage func(b []byte) []byte
		want   string
	}{
		{"short", func(b []byte) []byte { return b[:20] }, "header of 33 bytes ends at offset 20"},
		{"version 4", func(b []byte) []byte { b[0] = '4'; return b }, `version "4.0.0" at offset 0`},
		{"id size", func(b []byte) []byte { b[8] = 8; return b }, "identifier size 8 at offset 8"},
		{"language", func(b []byte) []byte { b[20] = 3; return b }, "language 3 at offset 20"},
		{"flags", func(b []byte) []byte { b[29] = 1; return b }, "feature flags 0x1 at offset 29"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readStatic(bytes.NewReader(c.damage(bytes.Clone(good))), func(Problem) {})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// checkedGraph checks what a decoder hands a Graph: strings before the
// nodes and edges that use them, edge counts that add up, targets and names
// in range.
type checkedGraph struct {
	t                     *testing.T
	strings, nodes, edges int64
	edgeSum, maxName      int64
}

func (g *checkedGraph) String(string)              { g.strings++ }
func (g *checkedGraph) Reserve(nodes, edges int64) {}

func (g *checkedGraph) Node(typ, name, id, self, edgeCount, native int64) {
	if g.edges > 0 || name >= g.strings || typ < 0 || int(typ) >= len(NodeTypes) {
		g.t.Fatalf("node %d: type %d, name %d of %d strings, after %d edges", g.nodes, typ, name, g.strings, g.edges)
	}
	g.nodes++
	g.edgeSum += edgeCount
}

func (g *checkedGraph) Edge(typ, nameOrIndex, to int64) {
	if to < 0 || to >= g.nodes || typ < 0 || int(typ) >= len(EdgeTypes) || typ != int64(edgeElement) && nameOrIndex >= g.strings {
		g.t.Fatalf("edge %d: type %d, name %d, to %d of %d nodes", g.edges, typ, nameOrIndex, to, g.nodes)
	}
	g.edges++
}

func (g *checkedGraph) done() {
	if g.edgeSum != g.edges {
		g.t.Fatalf("edge counts add up to %d, %d edges", g.edgeSum, g.edges)
	}
}

// FuzzStatic feeds the static decoder, alone and as the static half of a
// pair, damaged dumps: it must neither panic nor hand a Graph anything
// inconsistent, nor take time or memory out of proportion to the input.
func FuzzStatic(f *testing.F) {
	good := readGz(f, "../../testdata/rawheap/static-node.rawheap.gz")
	recs := staticRecords(f, good)
	// The first records of each tag, each cut to its first 2 KiB, end to end.
	var small []byte
	small = append(small, good[:staticHeaderSize]...)
	seen := map[byte]bool{}
	for _, r := range recs {
		if seen[r.tag] {
			continue
		}
		seen[r.tag] = true
		small = append(small, good[r.off:r.off+staticRecordHdrSize+min(int(r.length), 2048)]...)
	}
	f.Add(small)
	f.Add(good[:100])
	f.Add(good[:33])
	sta := readGz(f, "../../testdata/rawheap/hybrid.sta.rawheap.gz")
	f.Add(sta[:min(len(sta), 4096)])
	// The pair's dynamic half, decoded once (DecodeHybrid's join, without
	// decoding it again for each input).
	dynBytes := readGz(f, "../../testdata/rawheap/hybrid.dyn.rawheap.gz")
	df, err := Open(bytes.NewReader(dynBytes), int64(len(dynBytes)))
	if err != nil {
		f.Fatal(err)
	}
	dyn := &collector{}
	if _, err := Decode(df, dyn, nil); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		testutil.CountExec("FuzzStatic")
		g := &checkedGraph{t: t}
		if _, _, err := DecodeStatic(bytes.NewReader(b), g, nil); err == nil {
			g.done()
		}
		d, err := readStatic(bytes.NewReader(b), nil)
		if err != nil {
			return
		}
		joined := transGraph{nodes: slices.Clone(dyn.g.nodes), edges: slices.Clone(dyn.g.edges)}
		for _, s := range dyn.g.strs.list {
			joined.strs.id(s)
		}
		sg, byID := buildStatic(d, false, nil)
		mergeHybrid(&joined, sg, d, byID, nil)
		g = &checkedGraph{t: t}
		joined.emit(g, &Summary{})
		g.done()
	})
}
