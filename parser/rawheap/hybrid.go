package rawheap

import (
	"fmt"
	"strconv"
)

// mergeHybrid joins the graph of a pair's static dump into the graph of its
// dynamic dump as rawheap_translator's SnapshotMerger does
// (docs/format/rawheap.md#hybrid-pairs): the static nodes follow the dynamic
// ones, their strings are added to the dynamic table by content, a
// StaticRoot node under the dynamic SyntheticRoot (node 0) holds the static
// roots, and each XREF record becomes an "xref" edge between the two sides
// (two for a bidirectional one). Each node's edges stay together: the new
// edges follow the node's own.
//
// dyn is changed in place. The static graph must be built without its own
// roots (buildStatic(d, false, …)); staByID maps its object ids to its node
// indexes. XREF records whose objects are not in the pair are reported; when
// none of them resolves the translator refuses the pair, and the join is kept
// with a problem.
func mergeHybrid(dyn, sta *transGraph, d *staticDump, staByID *idIndex, prob func(Problem)) {
	nDyn := uint32(len(dyn.nodes))
	// The edges the join adds, per source node.
	extra := make(map[uint32][]transEdge)
	dynByID := make(map[uint64]uint32, len(dyn.nodes))
	for i, n := range dyn.nodes {
		if n.id != 0 {
			dynByID[n.id] = uint32(i)
		}
	}
	remap := make(map[uint32]uint32)
	remapStr := func(id uint32) uint32 {
		if id < firstStrID {
			return dyn.strs.id("")
		}
		if r, ok := remap[id]; ok {
			return r
		}
		s, _ := sta.strs.get(id)
		r := dyn.strs.id(s)
		remap[id] = r
		return r
	}
	// The static nodes and their edges, renamed in the dynamic table, node
	// by node as the merger does (which gives the new strings their order).
	sta.flatEdges()
	pos := 0
	for _, n := range sta.nodes {
		n.name = remapStr(n.name)
		dyn.nodes = append(dyn.nodes, n)
		for range n.edgeCount {
			if pos == len(sta.edges) {
				break
			}
			e := &sta.edges[pos]
			pos++
			if e.typ != edgeElement {
				e.nameOrIndex = remapStr(e.nameOrIndex)
			}
			e.to += nDyn
		}
	}

	staticRoot := uint32(len(dyn.nodes))
	dyn.nodes = append(dyn.nodes, transNode{id: 0, typ: typeRoot, size: 1,
		name: dyn.strs.id("StaticRoot[" + strconv.Itoa(len(d.roots)) + "]")})
	subroot := dyn.strs.id("-subroot-")
	extra[0] = append(extra[0], transEdge{from: 0, to: staticRoot, nameOrIndex: subroot, typ: edgeShortcut})
	for i, id := range d.roots {
		if n, ok := staByID.lookup(id); ok {
			extra[staticRoot] = append(extra[staticRoot], transEdge{from: staticRoot, to: nDyn + n, nameOrIndex: uint32(i), typ: edgeElement})
		}
	}

	dynToSta, staToDyn, bidir := dyn.strs.id("xref_dyn_sta"), dyn.strs.id("xref_sta_dyn"), dyn.strs.id("xref_bidir")
	resolved, unresolved := 0, 0
	var firstAt int64
	for _, x := range d.xrefs {
		dn, dok := dynByID[uint64(x.dyn)]
		sn, sok := staByID.lookup(x.sta)
		if !dok || !sok {
			if unresolved == 0 {
				firstAt = x.off
				if prob != nil {
					prob(Problem{Kind: ProblemXRef, Offset: x.off, Msg: fmt.Sprintf("cross-VM reference from dynamic object %d to static object %d: an object is not in the pair (skipped)", x.dyn, x.sta)})
				}
			}
			unresolved++
			continue
		}
		sn += nDyn
		resolved++
		switch x.dir {
		case xrefDynSta:
			extra[dn] = append(extra[dn], transEdge{from: dn, to: sn, nameOrIndex: dynToSta, typ: edgeXRef})
		case xrefStaDyn:
			extra[sn] = append(extra[sn], transEdge{from: sn, to: dn, nameOrIndex: staToDyn, typ: edgeXRef})
		case xrefBidir:
			extra[dn] = append(extra[dn], transEdge{from: dn, to: sn, nameOrIndex: bidir, typ: edgeXRef})
			extra[sn] = append(extra[sn], transEdge{from: sn, to: dn, nameOrIndex: bidir, typ: edgeXRef})
		}
	}
	if unresolved > 0 && prob != nil {
		msg := fmt.Sprintf("%d of %d cross-VM references name objects that are not in the pair", unresolved, len(d.xrefs))
		if resolved == 0 {
			msg += "; rawheap_translator refuses such a pair"
		}
		prob(Problem{Kind: ProblemXRef, Offset: firstAt, Msg: msg})
	}

	// Flatten: every node's edges in node order, its own (dynamic, then
	// static) and then those the join adds.
	edges := make([]transEdge, 0, len(dyn.edges)+len(sta.edges)+len(d.roots)+2*len(d.xrefs)+1)
	dp, sp := 0, 0
	for i := range dyn.nodes {
		n := &dyn.nodes[i]
		own := 0
		switch {
		case uint32(i) < nDyn:
			end := min(dp+int(n.edgeCount), len(dyn.edges))
			edges = append(edges, dyn.edges[dp:end]...)
			own, dp = end-dp, end
		case uint32(i) < staticRoot:
			end := min(sp+int(n.edgeCount), len(sta.edges))
			edges = append(edges, sta.edges[sp:end]...)
			own, sp = end-sp, end
		}
		x := extra[uint32(i)]
		edges = append(edges, x...)
		n.edgeCount = uint32(own + len(x))
	}
	dyn.edges = edges
	sta.edges = nil
}
