package rawheap

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// staticBuilder makes the translator's graph of a static dump
// (docs/format/rawheap.md#what-a-static-dump-becomes): one node per class,
// object, array and string object, a "buffer" node under each array holding
// its elements, a node per primitive value and per declared method, and, for
// a dump read alone, a SyntheticRoot and a StaticRoot group above the roots.
type staticBuilder struct {
	d       *staticDump
	mode    buildMode
	g       *transGraph // modeGraph: the graph made
	strs    interner
	byID    *idIndex // object id → node index
	synth   uint32   // next synthetic id - 0x40000000
	prob    func(Problem)
	curOff  int64 // offset of the item whose edges are being made
	dangles int
	firstAt int64 // offset of the first reference to a missing object
	// headNodes is the number of root and class nodes, edgeNodes the number
	// of nodes made before the first edge.
	headNodes, edgeNodes uint32
	// strCache is dumpStr's answer per dump string id (the ids are dense
	// from 0), 0 when not yet asked.
	strCache []uint32
	classIDs []uint32
	// edgePhase is set once the nodes of the records are made.
	edgePhase bool
	stream
}

// buildMode says what the builder does with the nodes and edges it makes.
// modeGraph keeps them all (transGraph); the other modes are the passes of
// streamStatic, which hands them to a Graph without holding them.
type buildMode uint8

const (
	modeGraph      buildMode = iota
	modeCount                // pass 1: keep the nodes, count each one's edges, keep the few of the roots and classes
	modeMidEdges             // hand out the edges of the records' objects
	modeLaterEdges           // hand out the edges of the nodes made while making edges
)

// stream is the builder's state when it hands the graph out in passes.
type stream struct {
	// store holds the nodes made before the edges (roots, classes, the
	// records' objects), whose attributes are still set later (a class
	// object's size, an unknown class's instances' name); the nodes made
	// while making edges are each done when the next is made: cur, node
	// last, is the one in the making, then kept in later.
	store []transNode
	later laterNodes
	// typs are the types of the nodes made before the edges once store,
	// their nodes handed out, keeps only the roots' and classes' (slim).
	typs    []uint8
	cur     transNode
	last    uint32
	next    uint32 // index of the next node made while making edges
	pending bool   // cur is not kept yet
	ec      []uint32
	head    []transEdge
	// made lists the ids given nodes while making edges (dangling
	// references), synth0 the invented ids' count before: taken back
	// before each pass, so that every pass makes the same nodes.
	made   []uint32
	synth0 int
	resume resumePoint
	// synthRefs is set when an id of the dump is one of those the builder
	// invents: their nodes are then looked up by id in every pass.
	synthRefs, inSynth bool
	// prevMid and prevLater are the sources of the last edges of the
	// objects and of the nodes made while making edges; disorder is set
	// when one is not in source order (an id given to two objects) or a
	// node made while making edges is changed after the next one: the
	// graph is then made whole (modeGraph).
	prevMid, prevLater uint32
	disorder           bool
	edgeNames          map[string]uint32
	lost               bool // an edge name the first pass did not give out (a fault of the passes)
	spare              transNode
	out                Graph
	sum                *Summary
}

// syntheticIDBase is where the translator numbers the nodes it invents
// (value, method, buffer and wrapper nodes).
const syntheticIDBase = 0x40000000

// buildStatic makes the graph of a static dump; withRoot adds the
// SyntheticRoot and StaticRoot nodes a dump read alone gets. Objects that are
// referred to but not in the dump become empty "native" nodes, as in the
// translator, and are reported once with the offset of the first reference.
func buildStatic(d *staticDump, withRoot bool, prob func(Problem)) (*transGraph, *idIndex) {
	b := &staticBuilder{d: d, g: &transGraph{}, byID: newIDIndex(d), prob: prob}
	b.strs = &b.g.strs
	b.strCache = make([]uint32, 0, 1024)
	b.reserve()
	b.build(withRoot)
	return b.g, b.byID
}

// idIndex maps object ids to node indexes: in a slice for the dump's ids
// when they are dense (the runtime numbers objects 2, 4, 6, …), in a slice
// for the invented ids (0x40000000 up, made in order), and in a map for the
// rest. It keeps index+1, 0 meaning none.
type idIndex struct {
	dense  []uint32
	synth  []uint32
	sparse map[uint32]uint32
}

func newIDIndex(d *staticDump) *idIndex {
	maxID := d.maxID
	n := d.objects + len(d.classes)
	x := &idIndex{sparse: map[uint32]uint32{}}
	if maxID < syntheticIDBase && int(maxID) <= 16*n+1024 {
		x.dense = make([]uint32, maxID+1)
	}
	return x
}

func (x *idIndex) lookup(id uint32) (uint32, bool) {
	var v uint32
	switch {
	case id < uint32(len(x.dense)):
		v = x.dense[id]
	case id >= syntheticIDBase && id-syntheticIDBase < uint32(len(x.synth)):
		v = x.synth[id-syntheticIDBase]
	default:
		v = x.sparse[id]
	}
	return v - 1, v != 0
}

func (x *idIndex) set(id, i uint32) {
	switch {
	case id < uint32(len(x.dense)):
		x.dense[id] = i + 1
	case id >= syntheticIDBase && id-syntheticIDBase == uint32(len(x.synth)):
		x.synth = append(x.synth, i+1)
	default:
		x.sparse[id] = i + 1
	}
}

// unset takes back an id set outside the invented ids' slice.
func (x *idIndex) unset(id uint32) {
	if id < uint32(len(x.dense)) {
		x.dense[id] = 0
		return
	}
	delete(x.sparse, id)
}

// inSynth reports an id kept in the invented ids' slice.
func (x *idIndex) inSynth(id uint32) bool {
	return id >= syntheticIDBase && id-syntheticIDBase < uint32(len(x.synth))
}

// get is lookup for an id known to have a node.
func (x *idIndex) get(id uint32) uint32 {
	i, _ := x.lookup(id)
	return i
}

// reserve sizes the graph's node and edge lists from the records, so that
// they are not copied as they grow (each copy left to the collector while
// the records are held).
func (b *staticBuilder) reserve() {
	nodes, head, edges, later := b.estimate()
	b.g.nodes = make([]transNode, 0, nodes)
	b.g.head = make([]transEdge, 0, head)
	b.g.edges = make([]transEdge, 0, edges)
	b.g.later = make([]transEdge, 0, later)
}

// estimate counts the nodes and the edges of the roots and classes, of the
// records' objects and of the nodes made while making edges: a node per
// record and class, and per buffer, box, method and primitive value the
// records make; an edge per hclass, field value, element and method. It is
// an upper bound by the null references, which make no edge. (An array
// makes two nodes: itself and its buffer.)
func (b *staticBuilder) estimate() (nodes, head, edges, later int) {
	d, sz := b.d, b.d.sizes
	nodes = 2 + len(d.classes) + sz.instances + 2*sz.arrays + sz.stringObjs + sz.valueNodes
	head = 1 + len(d.roots)
	for _, cl := range d.classes {
		nodes += len(cl.methods) + len(cl.staticValues)
		head += 1 + len(cl.staticValues) + len(cl.methods)
	}
	edges = sz.instances + sz.values + sz.stringObjs + sz.arrays
	return nodes, head, edges, sz.laterEdges
}

func (b *staticBuilder) newNode() uint32 {
	n := transNode{typ: typeDefault, name: 1}
	switch {
	case b.mode == modeGraph:
		b.g.nodes = append(b.g.nodes, n)
		return uint32(len(b.g.nodes) - 1)
	case !b.edgePhase:
		b.store = append(b.store, n)
		b.ec = append(b.ec, 0)
		return uint32(len(b.store) - 1)
	}
	if b.mode == modeCount {
		b.keepCur()
		b.ec = append(b.ec, 0)
	}
	b.cur, b.last, b.pending = n, b.next, true
	b.next++
	return b.last
}

// nd is node i, to read or set.
func (b *staticBuilder) nd(i uint32) *transNode {
	switch {
	case b.mode == modeGraph:
		return &b.g.nodes[i]
	case i < uint32(len(b.store)):
		return &b.store[i]
	case i < b.edgeNodes:
		// A later pass: its changes to these nodes are the first pass's.
		b.spare = transNode{typ: b.typs[i]}
		return &b.spare
	case i != b.last:
		b.disorder = true
		return &b.spare
	}
	return &b.cur
}

func (b *staticBuilder) node(id uint32) uint32 {
	if id >= syntheticIDBase && !b.inSynth {
		b.synthRefs = true
	}
	if i, ok := b.byID.lookup(id); ok {
		return i
	}
	i := b.newNode()
	b.nd(i).id = uint64(id)
	b.byID.set(id, i)
	if b.edgePhase && b.mode != modeGraph && !b.byID.inSynth(id) {
		b.made = append(b.made, id)
	}
	return i
}

// target is node for the object an edge points at; one the dump does not
// hold is counted.
func (b *staticBuilder) target(id uint32) uint32 {
	if _, ok := b.byID.lookup(id); !ok {
		if b.dangles == 0 && b.prob != nil {
			b.firstAt = b.curOff
			b.prob(Problem{Kind: ProblemDangling, Offset: b.curOff,
				Msg: fmt.Sprintf("a reference to object %d, which the dump does not hold (kept as an empty node, as rawheap_translator keeps it)", id)})
		}
		b.dangles++
	}
	return b.node(id)
}

// edge adds an edge: those of the roots and classes to g.head, those of the
// other nodes made before the edges (the records' objects) to g.edges, those
// of nodes made since (buffers, boxes) to g.later (groupEdges).
func (b *staticBuilder) edge(from, to, nameOrIndex uint32, typ uint8) {
	e := transEdge{from: from, to: to, nameOrIndex: nameOrIndex, typ: typ}
	if b.mode == modeGraph {
		switch {
		case from < b.headNodes:
			b.g.head = append(b.g.head, e)
		case from >= b.edgeNodes:
			b.g.later = append(b.g.later, e)
		default:
			b.g.edges = append(b.g.edges, e)
		}
		return
	}
	later := from >= b.edgeNodes
	switch {
	case from < b.headNodes:
		if b.mode == modeCount {
			b.ec[from]++
			b.head = append(b.head, e)
		}
	case b.mode == modeCount:
		b.ec[from]++
		prev := &b.prevMid
		if later {
			prev = &b.prevLater
		}
		if from < *prev {
			b.disorder = true
		}
		*prev = from
	case b.mode == modeMidEdges && !later, b.mode == modeLaterEdges && later:
		b.emitEdge(e)
	}
}

// nodeNames reports a pass that uses the names of the nodes it makes (the
// passes that hand out edges do not).
func (b *staticBuilder) nodeNames() bool { return b.mode == modeGraph || b.mode == modeCount }

// nodeName is the string id of a node's name; 0 where nodeNames is not set.
func (b *staticBuilder) nodeName(s string) uint32 {
	if !b.nodeNames() {
		return 0
	}
	return b.strs.id(s)
}

// edgeName is the string id of an edge's name or of a dump string. The
// first pass keeps those it gives out (few: field, method and class names,
// element indexes) in edgeNames, which the passes that hand out edges read
// instead of the whole table.
func (b *staticBuilder) edgeName(s string) uint32 {
	switch {
	case b.mode == modeGraph:
		return b.strs.id(s)
	case !b.nodeNames():
		id, ok := b.edgeNames[s]
		if !ok {
			b.lost = true
		}
		return id
	}
	id := b.strs.id(s)
	if b.mode == modeCount {
		if _, ok := b.edgeNames[s]; !ok {
			b.edgeNames[s] = id
		}
	}
	return id
}

// dumpStr is the table id of the dump's string id; a string id the dump does
// not define reads as "".
func (b *staticBuilder) dumpStr(id uint32) uint32 {
	if id < 1<<20 {
		if int(id) < len(b.strCache) && b.strCache[id] != 0 {
			return b.strCache[id]
		}
		for int(id) >= len(b.strCache) {
			b.strCache = append(b.strCache, 0)
		}
		b.strCache[id] = b.edgeName(b.d.strs[id])
		return b.strCache[id]
	}
	return b.edgeName(b.d.strs[id])
}

func (b *staticBuilder) build(withRoot bool) {
	b.nodes(withRoot)
	b.edges()
	b.dangling()
	b.d = nil // the records are not needed any more (when the caller drops them too)
	b.g.groupEdges()
}

// nodes makes the nodes of the roots, the classes and the records.
func (b *staticBuilder) nodes(withRoot bool) {
	var synthetic, static uint32
	if withRoot {
		synthetic, static = b.newNode(), b.newNode()
	}
	classIDs := make([]uint32, 0, len(b.d.classes))
	for id := range b.d.classes {
		classIDs = append(classIDs, id)
	}
	slices.Sort(classIDs)
	b.classIDs = classIDs
	for _, id := range classIDs {
		n := b.nd(b.node(id))
		n.name = b.dumpStr(b.d.classes[id].name)
		n.typ = typeClass
	}
	b.headNodes = b.count()
	b.d.eachInstance(func(rec *staticInstance, _ []fieldValue) {
		if _, isClass := b.d.classes[rec.id]; isClass {
			// A class object's instance record: its class record made the node.
			b.nd(b.node(rec.id)).size = rec.size
			return
		}
		i := b.node(rec.id)
		b.nd(i).size = rec.size
		b.nd(i).typ = typeObject
		if cl, ok := b.d.classes[rec.class]; ok {
			name := b.dumpStr(cl.name)
			n := b.nd(i)
			n.name = name
			if n.size == 0 {
				n.size = cl.instanceSize
			}
		}
	})
	b.d.eachArray(func(rec *staticArray) {
		i := b.node(rec.id)
		b.nd(i).size = rec.size
		b.nd(i).typ = typeArray
		if cl, ok := b.d.classes[rec.class]; ok {
			b.nd(i).name = b.dumpStr(cl.name)
		}
	})
	b.d.eachString(func(rec *staticString, text []byte) {
		i := b.node(rec.id)
		name := b.strs.id(string(text))
		n := b.nd(i)
		n.size, n.typ, n.name = rec.size, typeString, name
	})
	for _, id := range b.d.roots {
		n := b.nd(b.node(id))
		if n.typ != typeClass && n.typ != typeObject && n.typ != typeArray && n.typ != typeString {
			n.typ = typeRoot
		}
	}
	if withRoot {
		sr := b.nd(synthetic)
		sr.id, sr.typ, sr.name = 1, typeSynthetic, b.strs.id("SyntheticRoot")
		name := b.strs.id("StaticRoot[" + strconv.Itoa(len(b.d.roots)) + "]")
		st := b.nd(static)
		st.id, st.typ, st.name, st.size = 0, typeRoot, name, 1
		b.edge(synthetic, static, b.strs.id("-subroot-"), edgeShortcut)
		for i, id := range b.d.roots {
			b.edge(static, b.byID.get(id), uint32(i), edgeElement)
		}
	}
	b.edgeNodes = b.count()
}

// slim keeps, of the nodes made before the edges, the types that the later
// passes read (an instance record's node may be its class's), and the whole
// of the roots' and classes' nodes (store).
func (b *staticBuilder) slim() {
	b.typs = make([]uint8, len(b.store))
	for i, n := range b.store {
		b.typs[i] = n.typ
	}
	b.store = slices.Clone(b.store[:b.headNodes])
}

// resumePoint is where the first pass stood after the classes' and the
// instances' edges, which make no edges of the nodes made while making
// edges: the last pass starts there, with the ids they gave nodes (made[:made])
// kept. ok is not set when the invented ids are looked up by id (synthRefs).
type resumePoint struct {
	ok          bool
	next, synth uint32
	made        int
}

// laterNodes are the nodes made while making edges, from the first pass:
// ids, names and types (their sizes are 0 but for a few, in sizes).
type laterNodes struct {
	id, name []uint32
	typ      []uint8
	sizes    map[uint32]uint32
}

// keepCur keeps cur, when it is a node not kept yet, in later.
func (b *staticBuilder) keepCur() {
	if !b.pending {
		return
	}
	b.pending = false
	l, n := &b.later, &b.cur
	if n.size != 0 {
		if l.sizes == nil {
			l.sizes = map[uint32]uint32{}
		}
		l.sizes[uint32(len(l.id))] = n.size
	}
	l.id, l.name, l.typ = append(l.id, uint32(n.id)), append(l.name, n.name), append(l.typ, n.typ)
}

// laterNode is node j of later.
func (l *laterNodes) node(j int) transNode {
	return transNode{id: uint64(l.id[j]), name: l.name[j], typ: l.typ[j], size: l.sizes[uint32(j)]}
}

// count is the number of nodes made.
func (b *staticBuilder) count() uint32 {
	if b.mode == modeGraph {
		return uint32(len(b.g.nodes))
	}
	if b.edgePhase {
		return b.next
	}
	return uint32(len(b.store))
}

// edges makes the edges of the classes and the records' objects, and the
// nodes they lead to that no record made.
func (b *staticBuilder) edges() {
	if b.mode != modeGraph {
		if !b.edgePhase {
			b.edgePhase, b.synth0 = true, len(b.byID.synth)
		}
		b.next, b.pending = b.edgeNodes, false
	}
	if r := b.resume; b.mode == modeLaterEdges && r.ok {
		// The classes' and instances' edges are the objects' (made by the
		// pass before): the nodes they make are counted, not made again.
		b.next, b.synth = r.next, r.synth
	} else {
		b.classEdges(b.classIDs)
		b.instanceEdges()
		if b.mode == modeCount {
			b.resume = resumePoint{ok: !b.synthRefs, next: b.next, synth: b.synth, made: len(b.made)}
		}
	}
	b.arrayEdges()
	if b.mode == modeLaterEdges {
		return // the string objects' edges are the objects'
	}
	hclass := uint32(0)
	b.d.eachString(func(rec *staticString, _ []byte) {
		if rec.class != 0 && rec.class != rec.id {
			from := b.byID.get(rec.id)
			if hclass == 0 {
				hclass = b.edgeName("hclass")
			}
			b.edge(from, b.target(rec.class), hclass, edgeProperty)
		}
	})
}

// dangling reports the count of references to objects the dump does not
// hold, when there are several.
func (b *staticBuilder) dangling() {
	if b.dangles > 1 && b.prob != nil {
		b.prob(Problem{Kind: ProblemDangling, Offset: b.firstAt, Msg: fmt.Sprintf("%d references in all to objects the dump does not hold, the first here", b.dangles)})
	}
}

func (b *staticBuilder) classEdges(classIDs []uint32) {
	for _, id := range classIDs {
		from := b.byID.get(id)
		cl := b.d.classes[id]
		b.curOff = cl.off
		if cl.super != 0 && uint64(cl.super) != b.nd(from).id {
			b.edge(from, b.target(cl.super), b.edgeName("superClass"), edgeInternal)
		}
		for i := range min(len(cl.staticFields), len(cl.staticValues)) {
			b.valueEdge(from, cl.staticValues[i], b.dumpStr(cl.staticFields[i]))
		}
		for _, m := range cl.methods {
			name := b.dumpStr(m)
			b.edge(from, b.methodNode(name), name, edgeProperty)
		}
	}
}

// valueEdge makes the edge of a field holding v: to the object it refers to,
// or to a new node for a primitive value; a null reference makes none.
func (b *staticBuilder) valueEdge(from uint32, v fieldValue, name uint32) {
	switch {
	case isRefValue(v.typ) && v.val == 0:
	case v.typ == ftWeakObj:
		b.edge(from, b.target(uint32(v.val)), name, edgeWeak)
	case isRefValue(v.typ):
		b.edge(from, b.target(uint32(v.val)), name, edgeProperty)
	default:
		b.edge(from, b.valueNode(v.typ, v.val), name, edgeProperty)
	}
}

// isRefValue reports a field value that refers to an object.
func isRefValue(t uint8) bool { return t == ftObject || t == ftArray || t == ftWeakObj }

func (b *staticBuilder) instanceEdges() {
	b.d.eachInstance(func(rec *staticInstance, vals []fieldValue) {
		from := b.byID.get(rec.id)
		b.curOff = rec.off
		if rec.class != 0 && rec.class != rec.id {
			b.edge(from, b.target(rec.class), b.edgeName("hclass"), edgeProperty)
		}
		cl, ok := b.d.classes[rec.class]
		if !ok {
			b.nd(from).name = b.nodeName("Object")
			for _, v := range vals {
				if v.val == 0 || !isRefValue(v.typ) {
					continue
				}
				typ := uint8(edgeProperty)
				if v.typ == ftWeakObj {
					typ = edgeWeak
				}
				b.edge(from, b.target(uint32(v.val)), b.edgeName(""), typ)
			}
			return
		}
		isClass := b.nd(from).typ == typeClass
		for i := 0; i < len(cl.instanceFields) && i < len(vals); i++ {
			name := b.dumpStr(cl.instanceFields[i])
			if isClass && b.d.strs[cl.instanceFields[i]] == "superClass" {
				continue // the class record's superclass edge says it already
			}
			b.valueEdge(from, vals[i], name)
		}
	})
}

// boxedNames are the classes the translator boxes a primitive array's
// elements into.
var boxedNames = map[uint8]string{ftBoolean: "std.core.Boolean", ftByte: "std.core.Byte", ftChar: "std.core.Char",
	ftShort: "std.core.Short", ftInt: "std.core.Int", ftLong: "std.core.Long", ftFloat: "std.core.Float",
	ftDouble: "std.core.Double"}

func (b *staticBuilder) arrayEdges() {
	bufferName, valueName := b.edgeName("buffer"), b.edgeName("value")
	b.d.eachArray(func(rec *staticArray) {
		arr := b.byID.get(rec.id)
		b.curOff = rec.off
		buf := b.synthNode()
		arrName := b.nd(arr).name
		bn := b.nd(buf)
		bn.typ, bn.name, bn.size = typeArray, arrName, 0
		b.edge(arr, buf, bufferName, edgeProperty)
		switch {
		case rec.elemType == ftTagged:
			for i, v := range rec.tagged {
				switch {
				case isRefValue(v.typ) && v.val == 0:
				case v.typ == ftWeakObj:
					name := b.edgeName(strconv.Itoa(i))
					b.edge(buf, b.target(uint32(v.val)), name, edgeWeak)
				case isRefValue(v.typ):
					b.edge(buf, b.target(uint32(v.val)), uint32(i), edgeElement)
				default:
					b.edge(buf, b.valueNode(v.typ, v.val), uint32(i), edgeElement)
				}
			}
		case isRefType(rec.elemType):
			for i, id := range rec.elems {
				if id != 0 {
					b.edge(buf, b.target(id), uint32(i), edgeElement)
				}
			}
		default:
			w := fieldSize(rec.elemType)
			if w == 0 || rec.length == 0 || len(rec.prim) < int(rec.length)*w {
				return
			}
			name, ok := boxedNames[rec.elemType]
			if !ok {
				name = "std.core.Object"
			}
			wrapperName := b.nodeName(name)
			// The buffer's edges, then each box's: the order grouping by
			// source gives (the boxes come after the buffer).
			boxes := make([][2]uint32, 0, rec.length)
			for j := range int(rec.length) {
				v := leValue(rec.prim[j*w : (j+1)*w])
				wr := b.synthNode()
				wn := b.nd(wr)
				wn.typ, wn.name, wn.size = typeObject, wrapperName, 0
				val := b.valueNode(rec.elemType, v)
				b.edge(buf, wr, uint32(j), edgeElement)
				boxes = append(boxes, [2]uint32{wr, val})
			}
			for _, bx := range boxes {
				b.edge(bx[0], bx[1], valueName, edgeProperty)
			}
		}
	})
}

// synthNode is a node the translator invents, numbered from 0x40000000.
func (b *staticBuilder) synthNode() uint32 {
	id := syntheticIDBase + b.synth
	b.synth++
	if b.mode != modeGraph && b.mode != modeCount && !b.synthRefs {
		// No id of the dump is an invented one: the invented ids need no
		// index after the first pass.
		i := b.newNode()
		b.nd(i).id = uint64(id)
		return i
	}
	b.inSynth = true
	i := b.node(id)
	b.inSynth = false
	b.nd(i).id = uint64(id)
	return i
}

func (b *staticBuilder) methodNode(name uint32) uint32 {
	i := b.synthNode()
	n := b.nd(i)
	n.typ, n.name, n.size = typeClosure, name, 0
	return i
}

// valueNode is a new node for a primitive value, named by its text.
func (b *staticBuilder) valueNode(typ uint8, v uint64) uint32 {
	i := b.synthNode()
	t := uint8(typeNumber)
	switch typ {
	case ftChar:
		t = typeString
	case ftTagged:
		t = typeSynthetic
	}
	var name uint32
	if b.nodeNames() {
		name = b.strs.id(valueText(typ, v))
	}
	n := b.nd(i)
	n.typ, n.name, n.size = t, name, 0
	return i
}

// valueText is the translator's text for a primitive value: C++'s
// std::to_string for numbers (six decimals for floating point), the character
// for a char (NUL and surrogates as \uXXXX), names for the tagged specials.
func valueText(typ uint8, v uint64) string {
	switch typ {
	case ftBoolean:
		if v != 0 {
			return "true"
		}
		return "false"
	case ftChar:
		c := uint16(v)
		if c == 0 || (c >= 0xD800 && c <= 0xDFFF) {
			return fmt.Sprintf(`\u%04X`, c)
		}
		return string(utf8.AppendRune(nil, rune(c)))
	case ftTagged:
		switch v {
		case 0x00:
			return "hole"
		case 0x02:
			return "null"
		case 0x06:
			return "false"
		case 0x07:
			return "true"
		case 0x0A:
			return "undefined"
		case 0x12:
			return "exception"
		}
		return fmt.Sprintf("0x%016X", v)
	case ftByte:
		return strconv.Itoa(int(int8(v)))
	case ftShort:
		return strconv.Itoa(int(int16(v)))
	case ftInt:
		return strconv.Itoa(int(int32(v)))
	case ftLong:
		return strconv.FormatInt(int64(v), 10)
	case ftFloat:
		return cFloat(float64(math.Float32frombits(uint32(v))))
	case ftDouble:
		return cFloat(math.Float64frombits(v))
	}
	return strconv.FormatUint(v, 10)
}

// cFloat formats f as C's printf("%f") (std::to_string) does.
func cFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}
