package rawheap

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// nodeEdges renders the edges of the node of type object named name as
// "type name -> target type, target name", and the targets' node indexes
// and ids; it fails unless exactly one such node exists.
func nodeEdges(t *testing.T, g *transGraph, name string) (edges []string, targets []string) {
	t.Helper()
	strs := g.Strings()
	str := func(id uint32) string {
		if int(id) < len(strs) {
			return strs[id]
		}
		return fmt.Sprintf("<string %d>", id)
	}
	first, found := 0, -1
	for i, n := range g.nodes {
		if NodeTypes[n.typ] == "object" && str(n.name) == name {
			if found >= 0 {
				t.Fatalf("two nodes named %s: %d and %d", name, found, i)
			}
			found = i
			edges = nil
			for _, e := range g.edges[first : first+int(n.edgeCount)] {
				to := g.nodes[e.to]
				label := str(e.nameOrIndex)
				if e.typ == edgeElement {
					label = fmt.Sprint(e.nameOrIndex)
				}
				edges = append(edges, fmt.Sprintf("%s %s -> %s %s", EdgeTypes[e.typ], label, NodeTypes[to.typ], str(to.name)))
				targets = append(targets, fmt.Sprintf("node %d id %d", e.to, to.id))
			}
		}
		first += int(n.edgeCount)
	}
	if found < 0 {
		t.Fatalf("no object named %s", name)
	}
	if first != len(g.edges) {
		t.Fatalf("edge counts add up to %d, %d edges", first, len(g.edges))
	}
	return edges, targets
}

// TestV1NapiEdges decodes the V1 fixture with wrapped NAPI objects
// (JS_WRAPPED_NAPI_OBJECT; mkrawheap -napi, scripts/rawheap/fixtures.sh)
// and checks each one's edges, ours and those of rawheap_translator's
// output for it: a NativeAddressN edge, named by the NativePointers slot,
// to a number node named by the native pointer's external data, after the
// fields' and the properties' edges; none for a hole, a pointer without
// external data, or an undefined NativePointers.
func TestV1NapiEdges(t *testing.T) {
	b := readGz(t, "../../testdata/rawheap/v1-napi.rawheap.gz")
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != DynamicV1 {
		t.Fatalf("kind %v", f.Kind)
	}
	col := &collector{}
	if _, err := DecodeProblems(f, col, func(p Problem) { t.Errorf("problem at %d: %s", p.Offset, p.Msg) }); err != nil {
		t.Fatal(err)
	}
	ours := &col.g
	ours.flatEdges()
	theirs := graphFromTranslator(readTranslator(t, "../../testdata/rawheap/v1-napi.translated.heapsnapshot.gz"))

	const (
		hclass = "property hclass -> native HiddenClass(NonMovable)"
		props  = "property Properties -> array ArkInternalArray"
		elems  = "property Elements -> array ArkInternalArray"
		ptrs   = "property NativePointers -> array ArkInternalArray"
	)
	for _, c := range []struct {
		name  string
		edges []string
	}{
		{"NapiOnePointer", []string{hclass, props, elems, ptrs,
			"property NativeAddress0 -> number 0x7e0000001000"}},
		// Slots: external data, a hole, a pointer without external data,
		// external data: the edges keep the slots' numbers.
		{"NapiFourSlots", []string{hclass, props, elems, ptrs,
			"property handle -> number Int",
			"property NativeAddress0 -> number 0x7e0000002000",
			"property NativeAddress3 -> number 0x7e0000003000"}},
		{"NapiNoPointers", []string{hclass, props, elems,
			"property NativePointers -> number Undefined"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, gotTo := nodeEdges(t, ours, c.name)
			want, wantTo := nodeEdges(t, theirs, c.name)
			if !slices.Equal(want, c.edges) {
				t.Errorf("the translator's edges\n%q\nthe test expects\n%q", want, c.edges)
			}
			if !slices.Equal(got, want) {
				t.Errorf("edges\n%q\nthe translator's\n%q", got, want)
			}
			if !slices.Equal(gotTo, wantTo) {
				t.Errorf("targets %q, the translator's %q", gotTo, wantTo)
			}
		})
	}
	// And the whole graph.
	n, diffs := compareGraph(ours, readTranslator(t, "../../testdata/rawheap/v1-napi.translated.heapsnapshot.gz"))
	for _, d := range diffs {
		t.Error(d)
	}
	t.Logf("%d nodes, %d edges: %d values compared, %d differences", len(ours.nodes), len(ours.edges), n, len(diffs))
}
