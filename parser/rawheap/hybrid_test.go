package rawheap

import (
	"bytes"
	"fmt"
	"testing"
)

// TestHybridJoinEqualsTranslator joins the static half of the pair fixture
// into the graph of its dynamic half (the translator's graph of the dynamic
// dump alone) and compares with the translator's output for the pair.
func TestHybridJoinEqualsTranslator(t *testing.T) {
	dyn := graphFromTranslator(readTranslator(t, "../../testdata/rawheap/hybrid.dyn.translated.heapsnapshot.gz"))
	var probs []Problem
	prob := func(p Problem) { probs = append(probs, p) }
	d, err := readStatic(bytes.NewReader(readGz(t, "../../testdata/rawheap/hybrid.sta.rawheap.gz")), prob)
	if err != nil {
		t.Fatal(err)
	}
	if d.language != staticLangHybrid || len(d.xrefs) != 24 {
		t.Fatalf("language %d, %d cross-VM references", d.language, len(d.xrefs))
	}
	sg, byID := buildStatic(d, false, prob)
	nDyn := len(dyn.nodes)
	mergeHybrid(dyn, sg, d, byID, prob)
	for _, p := range probs {
		t.Errorf("problem: %s", p.Msg)
	}
	want := readTranslator(t, "../../testdata/rawheap/hybrid.translated.heapsnapshot.gz")
	n, diffs := compareGraph(dyn, want)
	for _, d := range diffs {
		t.Error(d)
	}
	xrefs := 0
	for _, e := range dyn.edges {
		if e.typ == edgeXRef {
			xrefs++
		}
	}
	// 24 records, a third of them both ways.
	if xrefs != 32 {
		t.Errorf("%d xref edges, want 32", xrefs)
	}
	t.Logf("%d dynamic + %d static nodes, %d edges (%d xref): %d values compared, %d differences",
		nDyn, len(dyn.nodes)-nDyn, len(dyn.edges), xrefs, n, len(diffs))
}

// TestHybridUnresolved checks a pair whose cross-VM references name objects
// that are not in it: they are skipped and reported, the join kept.
func TestHybridUnresolved(t *testing.T) {
	dyn := graphFromTranslator(readTranslator(t, "../../testdata/rawheap/hybrid.dyn.translated.heapsnapshot.gz"))
	d, err := readStatic(bytes.NewReader(readGz(t, "../../testdata/rawheap/hybrid.sta.rawheap.gz")), func(Problem) {})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.xrefs {
		d.xrefs[i].dyn = 0x7ffffff1 // no such dynamic object
	}
	var probs []Problem
	sg, byID := buildStatic(d, false, func(Problem) {})
	nodes := len(dyn.nodes) + len(sg.nodes) + 1
	mergeHybrid(dyn, sg, d, byID, func(p Problem) { probs = append(probs, p) })
	if len(probs) != 2 || probs[0].Kind != ProblemXRef || probs[1].Msg != "24 of 24 cross-VM references name objects that are not in the pair; rawheap_translator refuses such a pair" {
		t.Errorf("problems %v", probs)
	}
	if len(dyn.nodes) != nodes {
		t.Errorf("%d nodes, want %d", len(dyn.nodes), nodes)
	}
	for _, e := range dyn.edges {
		if e.typ == edgeXRef {
			t.Fatal("an xref edge for an unresolved reference")
		}
	}
}

// TestDecodeHybridEqualsTranslator decodes the pair fixture end to end (the
// dynamic half with the dynamic decoder) and compares what the Graph is
// handed with the translator's output for the pair.
func TestDecodeHybridEqualsTranslator(t *testing.T) {
	dynBytes := readGz(t, "../../testdata/rawheap/hybrid.dyn.rawheap.gz")
	f, err := Open(bytes.NewReader(dynBytes), int64(len(dynBytes)))
	if err != nil {
		t.Fatal(err)
	}
	col := &collector{}
	var warns []string
	info, sum, err := DecodeHybrid(f, bytes.NewReader(readGz(t, "../../testdata/rawheap/hybrid.sta.rawheap.gz")), col,
		func(p Problem) {
			if p.Kind != ProblemDynamic {
				t.Errorf("problem of the static half: %s", p.Msg)
			}
			warns = append(warns, fmt.Sprintf("offset %d: %s", p.Offset, p.Msg))
		})
	if err != nil {
		t.Fatal(err)
	}
	// The dynamic half, made from a cut heap, refers to objects that are
	// not in it; the translator drops those references too.
	if int64(len(warns)) != sum.Problems {
		t.Errorf("%d warnings, %d problems counted", len(warns), sum.Problems)
	}
	for _, w := range warns {
		t.Log("warning:", w)
	}
	if !info.Hybrid || info.Timestamp != 1795000000000 {
		t.Errorf("header %+v", info)
	}
	n, diffs := compareGraph(&col.g, readTranslator(t, "../../testdata/rawheap/hybrid.translated.heapsnapshot.gz"))
	for _, d := range diffs {
		t.Error(d)
	}
	if sum.Nodes != int64(len(col.g.nodes)) || sum.Edges != int64(len(col.g.edges)) {
		t.Errorf("summary %+v", sum)
	}
	t.Logf("%d nodes, %d edges, %d strings: %d values compared, %d differences", sum.Nodes, sum.Edges, sum.Strings, n, len(diffs))
}
