package rawheap

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// translatorSnapshot is the part of rawheap_translator's .heapsnapshot the
// tests compare.
type translatorSnapshot struct {
	Snapshot struct {
		NodeCount int `json:"node_count"`
		EdgeCount int `json:"edge_count"`
	} `json:"snapshot"`
	Nodes   []uint64 `json:"nodes"`
	Edges   []uint64 `json:"edges"`
	Strings []string `json:"strings"`
}

func readGz(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func readTranslator(t testing.TB, path string) *translatorSnapshot {
	t.Helper()
	var s translatorSnapshot
	if err := json.Unmarshal(readGz(t, path), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &s
}

// compareGraph reports the first differences between g and the translator's
// output, and the number of values compared.
func compareGraph(g *transGraph, want *translatorSnapshot) (compared int, diffs []string) {
	diff := func(format string, args ...any) {
		if len(diffs) < 10 {
			diffs = append(diffs, fmt.Sprintf(format, args...))
		}
	}
	g.flatEdges()
	if len(g.nodes)*8 != len(want.Nodes) || len(g.edges)*3 != len(want.Edges) {
		diff("%d nodes and %d edges, translator %d and %d", len(g.nodes), len(g.edges), len(want.Nodes)/8, len(want.Edges)/3)
		return 0, diffs
	}
	for i, n := range g.nodes {
		got := []uint64{uint64(n.typ), uint64(n.name), n.id, uint64(n.size), uint64(n.edgeCount), 0, 0, uint64(g.natives[uint32(i)])}
		for f, v := range got {
			compared++
			if w := want.Nodes[8*i+f]; w != v {
				diff("node %d field %d: %d, translator %d", i, f, v, w)
			}
		}
	}
	for i, e := range g.edges {
		got := []uint64{uint64(e.typ), uint64(e.nameOrIndex), uint64(e.to) * 8}
		for f, v := range got {
			compared++
			if w := want.Edges[3*i+f]; w != v {
				diff("edge %d field %d: %d, translator %d", i, f, v, w)
			}
		}
	}
	strs := g.Strings()
	if len(strs) != len(want.Strings) {
		diff("%d strings, translator %d", len(strs), len(want.Strings))
	}
	for i := range min(len(strs), len(want.Strings)) {
		compared++
		if string(bytes.ToValidUTF8([]byte(strs[i]), []byte("\uFFFD"))) != want.Strings[i] {
			diff("string %d: %q, translator %q", i, strs[i], want.Strings[i])
		}
	}
	return compared, diffs
}

// TestStaticGraphEqualsTranslator decodes each static fixture and compares
// its nodes, edges and strings with rawheap_translator's output for it.
func TestStaticGraphEqualsTranslator(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/rawheap/static-*.rawheap.gz")
	if len(files) == 0 {
		t.Fatal("no static fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Through the decoder's interface, as ingest reads it.
			col := &collector{}
			var warns []string
			info, sum, err := DecodeStatic(bytes.NewReader(readGz(t, f)), col, func(p Problem) {
				warns = append(warns, fmt.Sprintf("offset %d: %s", p.Offset, p.Msg))
			})
			if err != nil || len(warns) != 0 || sum.Problems != 0 || info.Hybrid || info.Timestamp/1e6 != 1795000 {
				t.Errorf("error %v, warnings %q, %+v", err, warns, info)
			}
			g := &col.g
			want := readTranslator(t, f[:len(f)-len(".rawheap.gz")]+".translated.heapsnapshot.gz")
			n, diffs := compareGraph(g, want)
			for _, d := range diffs {
				t.Error(d)
			}
			t.Logf("%d nodes, %d edges, %d strings: %d values compared, %d differences", len(g.nodes), len(g.edges), len(g.strs.list)+3, n, len(diffs))
		})
	}
}

// graphFromTranslator is the graph of a translator's output, as a decoder of
// its input must make it.
func graphFromTranslator(s *translatorSnapshot) *transGraph {
	g := &transGraph{}
	for i := 0; i+8 <= len(s.Nodes); i += 8 {
		n := s.Nodes[i:]
		g.setNative(uint32(len(g.nodes)), uint32(n[7]))
		g.nodes = append(g.nodes, transNode{typ: uint8(n[0]), name: uint32(n[1]), id: n[2], size: uint32(n[3]),
			edgeCount: uint32(n[4])})
	}
	for i := 0; i+3 <= len(s.Edges); i += 3 {
		e := s.Edges[i:]
		g.edges = append(g.edges, transEdge{typ: uint8(e[0]), nameOrIndex: uint32(e[1]), to: uint32(e[2] / 8)})
	}
	for _, str := range s.Strings[firstStrID:] {
		g.strs.id(str)
	}
	return g
}

// TestGroupEdges checks both ways of grouping: lists already in source order
// are kept; otherwise the edges are sorted stably into one list.
func TestGroupEdges(t *testing.T) {
	e := func(from, name uint32) transEdge { return transEdge{from: from, nameOrIndex: name} }
	for _, c := range []struct {
		name               string
		head, edges, later []transEdge
		want               string // source.name in the emitted order
		kept               bool
	}{
		{"in order", []transEdge{e(1, 1), e(0, 2)}, []transEdge{e(2, 3), e(2, 4), e(3, 5)}, []transEdge{e(4, 6)},
			"0.2 1.1 2.3 2.4 3.5 4.6", true},
		{"an object's edges made twice", []transEdge{e(0, 1)}, []transEdge{e(2, 2), e(3, 3), e(2, 4)}, []transEdge{e(4, 5)},
			"0.1 2.2 2.4 3.3 4.5", false},
	} {
		g := &transGraph{nodes: make([]transNode, 5), head: c.head, edges: c.edges, later: c.later}
		g.groupEdges()
		if kept := g.later != nil; kept != c.kept {
			t.Errorf("%s: lists kept %v", c.name, kept)
		}
		col := &collector{strings: firstStrID}
		g.emit(col, &Summary{})
		var got []string
		i := 0
		for n, node := range col.g.nodes {
			for range node.edgeCount {
				got = append(got, fmt.Sprintf("%d.%d", n, col.g.edges[i].nameOrIndex))
				i++
			}
		}
		if s := strings.Join(got, " "); s != c.want || i != len(col.g.edges) {
			t.Errorf("%s: %s, want %s", c.name, s, c.want)
		}
	}
}
