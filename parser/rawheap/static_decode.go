package rawheap

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
)

// StaticInfo is what a static dump's header says.
type StaticInfo struct {
	// Timestamp is the header's time: ms since the Unix epoch.
	Timestamp uint64
	// Hybrid is set for the static half of a hybrid pair (language 2).
	Hybrid bool
}

// IsHybridStatic reports whether head, a file's first bytes (at least 21),
// is the header of a static dump written as the static half of a hybrid
// pair.
func IsHybridStatic(head []byte) bool {
	return Sniff(head) == Static && len(head) > 20 && head[20] == staticLangHybrid
}

// DecodeStatic reads a static ("3.0.0", ArkTS 1.2) dump and hands the
// translator's graph of it to g (docs/format/rawheap.md#static-dumps-300).
// The records are read as a stream; the graph is made once all are read,
// because the runtime writes the classes after their objects. Problems that
// leave the rest usable go to prob, with their byte offset; an error means
// the file gave nothing usable (and nothing was handed to g). The graph is
// handed out in passes over the object records, which are kept as the file
// has them (streamStatic): here in memory; DecodeStaticScratch keeps them in
// a scratch file.
func DecodeStatic(r io.Reader, g Graph, prob func(Problem)) (StaticInfo, Summary, error) {
	return DecodeStaticScratch(r, g, prob, nil)
}

// DecodeStaticScratch is DecodeStatic keeping the dump's object records,
// read back in each pass over them, in the scratch file scratch gives (the
// caller closes and removes it after the call); without one, when it cannot
// be made or once a write to it fails, they are kept in memory. A scratch
// file that cannot be read back is an error (g may then hold part of the
// graph).
func DecodeStaticScratch(r io.Reader, g Graph, prob func(Problem), scratch func() (ScratchFile, error)) (StaticInfo, Summary, error) {
	var sum Summary
	prob = counted(prob, &sum)
	var sf ScratchFile
	if scratch != nil {
		if f, err := scratch(); err == nil {
			sf = f
		}
	}
	d, err := readStaticTo(r, prob, newRecordSpill(sf))
	if err != nil {
		return StaticInfo{}, sum, err
	}
	info := StaticInfo{Timestamp: d.timestamp, Hybrid: d.language == staticLangHybrid}
	if d.empty() {
		return info, sum, errors.New("static dump: no complete record")
	}
	sum.Objects = int64(d.objects)
	big := d.objects >= 1<<20
	streamed, err := streamStatic(d, g, &sum, prob)
	switch {
	case err != nil:
		return info, sum, err
	case streamed:
		if big {
			// The passes' arrays and tables are garbage: returned now,
			// so that what the receiver makes next (the analysis) is not
			// mapped beside them while they are still resident.
			d = nil
			debug.FreeOSMemory()
		}
		return info, sum, nil
	}
	tg, _ := buildStatic(d, true, prob)
	if err := d.spill.err; err != nil {
		return info, sum, fmt.Errorf("static dump: %w", err)
	}
	d = nil // the records are not needed any more
	if len(tg.nodes) >= 1<<20 {
		debug.FreeOSMemory()
	}
	tg.emit(g, &sum)
	return info, sum, nil
}

// streamStatic hands g the graph of a static dump read alone without holding
// it whole (docs/format/rawheap.md#what-a-static-dump-becomes):
//
//  1. make the nodes and count every node's edges, keeping the nodes (24
//     bytes a record's object, 9 in flat arrays a node made while making
//     edges) and the edges of the roots and classes;
//  2. hand out the strings, then the nodes;
//  3. the edges of the roots and classes, by source; making the edges
//     again, those of the records' objects; once more, those of the nodes
//     made while making edges: grouped by source, as groupEdges groups them.
//
// It hands g nothing and returns false when the edges do not come in
// source order (an id given to two objects): the caller makes the graph
// whole. The error is set when the records could not be read back.
func streamStatic(d *staticDump, g Graph, sum *Summary, prob func(Problem)) (bool, error) {
	var held []Problem // reported once the passes are known to work
	strs := &strArena{}
	b := &staticBuilder{d: d, mode: modeCount, strs: strs, byID: newIDIndex(d),
		prob: func(p Problem) { held = append(held, p) }}
	b.strCache = make([]uint32, 0, 1024)
	b.edgeNames = map[string]uint32{}
	// Sized from the records' counts (upper bounds, but by a root or a
	// reference the dump does not hold), so that they are not copied as
	// they grow.
	estNodes, estHead, _, _ := b.estimate()
	phase1 := 2 + len(d.classes) + d.objects + len(d.roots)
	b.store = make([]transNode, 0, phase1)
	b.ec = make([]uint32, 0, estNodes)
	b.head = make([]transEdge, 0, estHead)
	n := max(0, estNodes-phase1)
	b.later = laterNodes{id: make([]uint32, 0, n), name: make([]uint32, 0, n), typ: make([]uint8, 0, n)}
	b.byID.synth = make([]uint32, 0, n)
	b.out, b.sum = g, sum
	b.nodes(true)
	b.edges()
	b.keepCur()
	b.dangling()
	if d.spill.err != nil {
		return false, fmt.Errorf("static dump: %w", d.spill.err)
	}
	if b.disorder {
		return false, nil
	}
	for _, p := range held {
		prob(p)
	}
	if !b.synthRefs {
		b.byID.synth = nil
	}
	strs.each(func(s string) {
		g.String(s)
		sum.Strings++
	})
	strs, b.strs = nil, nil // the edges' names are in edgeNames
	nodes, edges := int64(len(b.ec)), int64(0)
	for _, n := range b.ec {
		edges += int64(n)
	}
	if nodes >= 1<<20 {
		// What the first pass let go of (the string table, the copies its
		// arrays left as they grew) is returned before the receiver maps
		// its node arrays beside it.
		debug.FreeOSMemory()
	}
	g.Reserve(nodes, 0)
	for i := range b.store {
		b.emitNode(uint32(i), &b.store[i])
	}
	for j := range b.later.id {
		n := b.later.node(j)
		b.emitNode(uint32(len(b.store)+j), &n)
	}
	b.later = laterNodes{}
	b.slim()
	b.ec = nil
	g.Reserve(nodes, edges)
	for _, e := range sortEdges(b.head, int(b.headNodes)) {
		b.emitEdge(e)
	}
	b.head = nil
	b.pass(modeMidEdges)
	b.pass(modeLaterEdges)
	if d.spill.err != nil {
		return true, fmt.Errorf("static dump: %w", d.spill.err)
	}
	if b.lost {
		return true, errors.New("static dump: the passes over its records did not agree (an edge name the first did not make)")
	}
	return true, nil
}

// pass makes the edges again, in mode.
func (b *staticBuilder) pass(mode buildMode) {
	b.mode, b.synth, b.prob = mode, 0, nil
	keep := 0
	if mode == modeLaterEdges && b.resume.ok {
		keep = b.resume.made
	}
	for _, id := range b.made[keep:] {
		b.byID.unset(id)
	}
	b.made = b.made[:keep]
	b.byID.synth = b.byID.synth[:b.synth0]
	b.edges()
	b.pending = false
}

func (b *staticBuilder) emitNode(i uint32, n *transNode) {
	b.out.Node(int64(n.typ), int64(n.name), int64(n.id), int64(n.size), int64(b.ec[i]), 0)
	b.sum.Nodes++
}

func (b *staticBuilder) emitEdge(e transEdge) {
	b.out.Edge(int64(e.typ), int64(e.nameOrIndex), int64(e.to))
	b.sum.Edges++
}

// DecodeHybrid reads a hybrid pair: dyn, the dynamic (V1 or V2) dump opened
// with Open, and sta, the static dump of the same process, and hands g the
// graph rawheap_translator makes of the two given together
// (docs/format/rawheap.md#hybrid-pairs): the dynamic graph, the static
// objects after it, a StaticRoot group under the dynamic SyntheticRoot and
// the cross-VM references as "xref" edges. The dynamic graph is held in
// memory for the join. When one half gives nothing usable the other is
// decoded alone, with a problem reported; the error is set when neither
// does. The dynamic decoder's warnings are problems of kind ProblemDynamic.
func DecodeHybrid(dyn *File, sta io.Reader, g Graph, prob func(Problem)) (StaticInfo, Summary, error) {
	var sum Summary
	prob = counted(prob, &sum)
	warn := func(off int64, format string, args ...any) {
		prob(Problem{Kind: ProblemDynamic, Offset: off, Msg: fmt.Sprintf(format, args...)})
	}
	d, serr := readStatic(sta, prob)
	if serr == nil && d.empty() {
		serr = errors.New("static dump: no complete record")
	}
	var info StaticInfo
	if d != nil {
		info = StaticInfo{Timestamp: d.timestamp, Hybrid: d.language == staticLangHybrid}
	}
	col := &collector{}
	dsum, derr := Decode(dyn, col, warn)
	switch {
	case derr != nil && serr != nil:
		return info, sum, fmt.Errorf("dynamic half: %v; static half: %v", derr, serr)
	case derr != nil:
		prob(Problem{Kind: ProblemDynamic, Msg: fmt.Sprintf("the pair's dynamic dump gives nothing usable (%v): its static dump is read alone", derr)})
		tg, _ := buildStatic(d, true, prob)
		tg.emit(g, &sum)
	case serr != nil:
		prob(Problem{Kind: ProblemBadRecord, Msg: fmt.Sprintf("the pair's static dump gives nothing usable (%v): its dynamic dump is read alone", serr)})
		col.g.emit(g, &sum)
	default:
		sg, byID := buildStatic(d, false, prob)
		mergeHybrid(&col.g, sg, d, byID, prob)
		col.g.emit(g, &sum)
		sum.Objects = dsum.Objects + int64(d.objects)
		return info, sum, nil
	}
	if derr == nil {
		sum.Objects = dsum.Objects
	} else {
		sum.Objects = int64(d.objects)
	}
	return info, sum, nil
}

// counted passes problems on to prob (when set), counting them.
func counted(prob func(Problem), sum *Summary) func(Problem) {
	return func(p Problem) {
		sum.Problems++
		if prob != nil {
			prob(p)
		}
	}
}

// empty reports a dump of which no record was read whole.
func (d *staticDump) empty() bool {
	return d.records == 0 && len(d.strs) == 0 && len(d.classes) == 0 && d.objects == 0 && len(d.roots) == 0
}

// emit hands the graph to g: the strings, the nodes, then the edges. The
// graph is emptied as it goes, so that its memory is freed while the receiver
// fills its own.
func (tg *transGraph) emit(g Graph, sum *Summary) {
	strs := tg.strs.strings()
	tg.strs = strTable{}
	for i, s := range strs {
		g.String(s)
		strs[i] = ""
		sum.Strings++
	}
	// The counts are known: the receiver sizes its arrays once, rather than
	// grow them (and leave the old copies to the collector) as they fill.
	edges := int64(len(tg.head) + len(tg.edges) + len(tg.later))
	g.Reserve(int64(len(tg.nodes)), 0)
	for i, n := range tg.nodes {
		g.Node(int64(n.typ), int64(n.name), int64(n.id), int64(n.size), int64(n.edgeCount), int64(tg.natives[uint32(i)]))
		sum.Nodes++
	}
	tg.nodes = nil
	g.Reserve(sum.Nodes, edges)
	for _, list := range []*[]transEdge{&tg.head, &tg.edges, &tg.later} {
		for _, e := range *list {
			g.Edge(int64(e.typ), int64(e.nameOrIndex), int64(e.to))
			sum.Edges++
		}
		*list = nil
	}
}

// collector keeps a graph handed to it, for the join of a hybrid pair.
type collector struct {
	g       transGraph
	strings int
}

func (c *collector) Node(typ, name, id, self, edgeCount, native int64) {
	c.g.setNative(uint32(len(c.g.nodes)), uint32(native))
	c.g.nodes = append(c.g.nodes, transNode{typ: uint8(typ), name: uint32(name), id: uint64(id), size: uint32(self),
		edgeCount: uint32(edgeCount)})
}

// Reserve sizes the graph's arrays for what is coming.
func (c *collector) Reserve(nodes, edges int64) {
	c.g.nodes = slices.Grow(c.g.nodes, int(max(0, min(nodes, 1<<24))))
	c.g.edges = slices.Grow(c.g.edges, int(max(0, min(edges, 1<<26))))
}

func (c *collector) Edge(typ, nameOrIndex, to int64) {
	c.g.edges = append(c.g.edges, transEdge{typ: uint8(typ), nameOrIndex: uint32(nameOrIndex), to: uint32(to)})
}

// String takes the next string; the three fixed ones are not the table's.
func (c *collector) String(s string) {
	c.strings++
	if c.strings <= firstStrID {
		return
	}
	if _, ok := c.g.strs.ids[s]; ok {
		// Two table strings that read alike once cut at a NUL: keep the
		// numbering.
		c.g.strs.list = append(c.g.strs.list, s)
		return
	}
	c.g.strs.id(s)
}
