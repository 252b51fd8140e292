package rawheap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// failingReads is a scratch file whose reads fail after the first n.
type failingReads struct {
	memScratch
	n int
}

func (f *failingReads) ReadAt(p []byte, off int64) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errors.New("read error")
	}
	return f.memScratch.ReadAt(p, off)
}

// fullAfter is a scratch file whose writes fail after the first n.
type fullAfter struct {
	memScratch
	n int
}

func (f *fullAfter) WriteAt(p []byte, off int64) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errors.New("disk full")
	}
	return f.memScratch.WriteAt(p, off)
}

// TestStaticPasses: a static dump handed out in passes over its spilled
// records (streamStatic), with the records in memory or in a scratch file,
// gives the graph, problems and summary that the whole graph gives
// (buildStatic, then emit), on every static fixture and on damaged dumps;
// one whose edges are out of source order (an id given to two objects) is
// made whole instead, with the same result.
func TestStaticPasses(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/rawheap/static-*.rawheap.gz")
	files = append(files, "../../testdata/rawheap/hybrid.sta.rawheap.gz")
	type input struct {
		name     string
		b        []byte
		streamed bool
	}
	var inputs []input
	for _, f := range files {
		inputs = append(inputs, input{filepath.Base(f), readGz(t, f), true})
	}
	good := readGz(t, "../../testdata/rawheap/static-node.rawheap.gz")
	recs := staticRecords(t, good)
	var insts []staticRecord
	for _, r := range recs {
		if r.tag == tagInstanceDump {
			insts = append(insts, r)
		}
	}
	if len(insts) < 2 {
		t.Fatalf("%d instance records; the repeated id case needs 2", len(insts))
	}
	first, last := insts[0], insts[len(insts)-1]
	repeated := bytes.Clone(good)
	copy(repeated[last.off+staticRecordHdrSize:], good[first.off+staticRecordHdrSize:first.off+staticRecordHdrSize+4])
	dangling := bytes.Clone(good)
	binary.LittleEndian.PutUint32(dangling[last.off+staticRecordHdrSize+4:], 0x3fffffff) // an unknown class
	// References to the ids the builder invents for the nodes it makes
	// (0x40000000 on): a root, made before them, and an object's class,
	// looked up after them.
	synthRoot := bytes.Clone(good)
	root := recs[firstRecord(t, recs, tagRoot)]
	binary.LittleEndian.PutUint32(synthRoot[root.off+staticRecordHdrSize+1:], syntheticIDBase+1)
	synthClass := bytes.Clone(good)
	binary.LittleEndian.PutUint32(synthClass[last.off+staticRecordHdrSize+4:], syntheticIDBase+2)
	// An array whose element type has no width, of a length far beyond its
	// record: it makes no boxes, and nothing is sized by its length.
	longArray := bytes.Clone(good)
	arr := recs[firstRecord(t, recs, tagArrayDump)]
	binary.LittleEndian.PutUint32(longArray[arr.off+staticRecordHdrSize+16:], 1<<30)
	longArray[arr.off+staticRecordHdrSize+20] = ftUnknown
	d, err := readStatic(bytes.NewReader(longArray), nil)
	if err != nil {
		t.Fatal(err)
	}
	if nodes, head, edges, later := (&staticBuilder{d: d}).estimate(); nodes+head+edges+later > len(longArray) {
		t.Errorf("array of 2^30 elements without a width: estimated %d nodes, %d+%d+%d edges for a %d-byte dump",
			nodes, head, edges, later, len(longArray))
	}
	inputs = append(inputs,
		input{"array of 2^30 elements without a width", longArray, true},
		input{"root with an invented id", synthRoot, true},
		input{"class with an invented id", synthClass, true},
		input{"repeated id", repeated, false},
		input{"dangling class", dangling, true},
		input{"cut in an instance record", good[:last.off+staticRecordHdrSize+int(last.length)/2], true},
		input{"cut in its last record", good[:len(good)-3], true})

	type result struct {
		hash  uint64
		probs []string
		sum   Summary
		err   error
	}
	record := func(probs *[]string) func(Problem) {
		return func(p Problem) { *probs = append(*probs, fmt.Sprintf("%d@%d: %s", p.Kind, p.Offset, p.Msg)) }
	}
	whole := func(b []byte) result {
		var r result
		h := fnv.New64a()
		prob := counted(record(&r.probs), &r.sum)
		d, err := readStatic(bytes.NewReader(b), prob)
		if err != nil {
			t.Fatal(err)
		}
		r.sum.Objects = int64(d.objects)
		g, _ := buildStatic(d, true, prob)
		g.emit(&recGraph{h: h}, &r.sum)
		r.hash = h.Sum64()
		return r
	}
	passes := func(b []byte, scratch func() (ScratchFile, error)) result {
		var r result
		h := fnv.New64a()
		_, r.sum, r.err = DecodeStaticScratch(bytes.NewReader(b), &recGraph{h: h}, record(&r.probs), scratch)
		r.hash = h.Sum64()
		return r
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			want := whole(in.b)
			for _, c := range []struct {
				name    string
				scratch func() (ScratchFile, error)
			}{{"in memory", nil}, {"scratch file", func() (ScratchFile, error) { return &memScratch{}, nil }},
				{"no scratch file", func() (ScratchFile, error) { return nil, errors.New("no room") }},
				{"scratch file full at once", func() (ScratchFile, error) { return &fullAfter{n: 0}, nil }},
				{"scratch file full later", func() (ScratchFile, error) { return &fullAfter{n: 1}, nil }}} {
				got := passes(in.b, c.scratch)
				if got.err != nil || got.hash != want.hash || got.sum != want.sum || !slices.Equal(got.probs, want.probs) {
					t.Errorf("%s: error %v, graph %x, %+v, problems %q; want graph %x, %+v, problems %q",
						c.name, got.err, got.hash, got.sum, got.probs, want.hash, want.sum, want.probs)
				}
			}
			d, err := readStaticTo(bytes.NewReader(in.b), nil, newRecordSpill(&memScratch{}))
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := streamStatic(d, &recGraph{h: io.Discard}, &Summary{}, func(Problem) {})
			if streamed != in.streamed || err != nil {
				t.Errorf("streamed %v, error %v; want streamed %v", streamed, err, in.streamed)
			}
			t.Logf("%d nodes, %d edges, %d strings, %d problems", want.sum.Nodes, want.sum.Edges, want.sum.Strings, len(want.probs))
		})
	}

	// A scratch file that cannot be read back is an error: after its first
	// record, or in a pass.
	firstBody := 0
	for _, r := range recs {
		if r.tag == tagInstanceDump || r.tag == tagArrayDump || r.tag == tagStringDump {
			firstBody = int(r.length)
			break
		}
	}
	for _, c := range []struct {
		name string
		f    ScratchFile
		want string
	}{{"write and read back fail", &failingReads{memScratch: memScratch{failAt: firstBody + 1}}, "keeping its object records in a scratch file: disk full (and reading it back: read error)"},
		{"read fails", &failingReads{n: 3}, "reading back the object records at offset"}} {
		got := passes(good, func() (ScratchFile, error) { return c.f, nil })
		if got.err == nil || !strings.Contains(got.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, got.err, c.want)
		}
	}
}
