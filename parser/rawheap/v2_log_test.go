package rawheap

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
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

// TestV2ReferenceLog: a V2 dump decoded with its references logged in a
// scratch file (the second pass without the address index) gives the same
// graph and problems as one decoded with the index kept, and a scratch file
// that cannot be written falls back to the index.
func TestV2ReferenceLog(t *testing.T) {
	v2 := readGz(t, "../../testdata/rawheap/v2.rawheap.gz")
	f, err := Open(bytes.NewReader(v2), int64(len(v2)))
	if err != nil {
		t.Fatal(err)
	}
	// The same dump cut in its token stream: objects without their tokens.
	cut := append([]byte(nil), v2...)
	tokens := int64(f.Sections[4]) + int64(f.Sections[5]) - 200
	for i := tokens; i < tokens+100; i++ {
		cut[i] = 0x55 // references to addresses that are not objects
	}
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"v2", v2},
		{"v2-2026", readGz(t, "../../testdata/rawheap/v2-2026.rawheap.gz")},
		{"dangling references", cut},
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
		if len(log.b) == 0 || len(log.b)%4 != 0 {
			t.Errorf("%s: %d bytes logged", c.name, len(log.b))
		}
		if c.name == "dangling references" && !bytes.Contains([]byte(wantProbs), []byte("references to addresses that are not in the object table")) {
			t.Errorf("%s: problems %q", c.name, wantProbs)
		}
		if got, _, _ := decode(func() (ScratchFile, error) { return nil, errors.New("no room") }); got != want {
			t.Errorf("%s: without a scratch file: graph %x, want %x", c.name, got, want)
		}
	}
}
