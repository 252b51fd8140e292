package rawheap

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"testing"
)

// recGraph hashes everything a decoder hands it, in order.
type recGraph struct {
	h                     io.Writer
	nodes, edges, strings int
}

func (g *recGraph) Reserve(nodes, edges int64) {}
func (g *recGraph) Node(typ, name, id, self, ec, native int64) {
	fmt.Fprintln(g.h, "n", typ, name, id, self, ec, native)
	g.nodes++
}
func (g *recGraph) Edge(typ, name, to int64) { fmt.Fprintln(g.h, "e", typ, name, to); g.edges++ }
func (g *recGraph) String(s string)          { fmt.Fprintf(g.h, "s %q\n", s); g.strings++ }

// memScratch is a scratch file in memory; failAt, when not 0, makes writes
// past that many bytes fail.
type memScratch struct {
	b      []byte
	failAt int
}

func (m *memScratch) WriteAt(p []byte, off int64) (int, error) {
	if m.failAt > 0 && int(off)+len(p) > m.failAt {
		return 0, errors.New("disk full")
	}
	if n := int(off) + len(p); n > len(m.b) {
		m.b = append(m.b, make([]byte, n-len(m.b))...)
	}
	return copy(m.b[off:], p), nil
}

func (m *memScratch) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestScratchLog: a dump decoded with a scratch file (V2: the references'
// nodes logged, V1: the object nodes' edges; the second pass without the
// address index) gives the same graph and problems as one decoded with the
// index kept, and a scratch file that cannot be written falls back to the
// index.
func TestScratchLog(t *testing.T) {
	// damaged is a dump with the 100 bytes before the end of its last object
	// section overwritten: references to addresses that are not objects.
	damaged := func(name string) []byte {
		b := readGz(t, "../../testdata/rawheap/"+name+".rawheap.gz")
		f, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		k := len(f.Sections) - 2
		end := int64(f.Sections[k]) + int64(f.Sections[k+1]) - 200
		for i := end; i < end+100; i++ {
			b[i] = 0x55
		}
		return b
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"v2", readGz(t, "../../testdata/rawheap/v2.rawheap.gz")},
		{"v2-2026", readGz(t, "../../testdata/rawheap/v2-2026.rawheap.gz")},
		{"v2 damaged", damaged("v2")},
		{"v1", readGz(t, "../../testdata/rawheap/v1.rawheap.gz")},
		{"v1-2024", readGz(t, "../../testdata/rawheap/v1-2024.rawheap.gz")},
		{"v1-2026-leak-final", readGz(t, "../../testdata/rawheap/v1-2026-leak-final.rawheap.gz")},
		{"v1 damaged", damaged("v1-2026-leak-target")},
	} {
		decode := func(scratch func() (ScratchFile, error)) (uint64, string, *recGraph) {
			f, err := Open(bytes.NewReader(c.b), int64(len(c.b)))
			if err != nil {
				t.Fatal(err)
			}
			f.Scratch = scratch
			h := fnv.New64a()
			g := &recGraph{h: h}
			var probs bytes.Buffer
			if _, err := DecodeProblems(f, g, func(p Problem) { fmt.Fprintln(&probs, p.Kind, p.Offset, p.Msg) }); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			return h.Sum64(), probs.String(), g
		}
		want, wantProbs, g := decode(nil)
		if g.edges == 0 {
			t.Fatalf("%s: no edges", c.name)
		}
		log := &memScratch{}
		for _, s := range []struct {
			name string
			sf   *memScratch
		}{{"logged", log}, {"scratch write fails", &memScratch{failAt: 64}}} {
			got, gotProbs, _ := decode(func() (ScratchFile, error) { return s.sf, nil })
			if got != want || gotProbs != wantProbs {
				t.Errorf("%s, %s: graph %x, problems %q; with the index kept %x, %q", c.name, s.name, got, gotProbs, want, wantProbs)
			}
		}
		rec := 4 // V2: a node a reference; V1: an edge, 9 bytes
		if strings.HasPrefix(c.name, "v1") {
			rec = 9
		}
		if len(log.b) == 0 || len(log.b)%rec != 0 {
			t.Errorf("%s: %d bytes logged", c.name, len(log.b))
		}
		if c.name == "v2 damaged" && !bytes.Contains([]byte(wantProbs), []byte("references to addresses that are not in the object table")) {
			t.Errorf("%s: problems %q", c.name, wantProbs)
		}
		if got, _, _ := decode(func() (ScratchFile, error) { return nil, errors.New("no room") }); got != want {
			t.Errorf("%s: without a scratch file: graph %x, want %x", c.name, got, want)
		}
	}
}
