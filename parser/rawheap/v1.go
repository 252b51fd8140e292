package rawheap

import (
	"io"
	"slices"
	"strconv"
)

// V1 ("1.0.0" and the 2024 form, docs/format/rawheap.md#v1): a table of
// {u64 address, u64 id, u32 size, u32 offset} per object section, then the
// objects' raw memory. Types, fields and property names come from the
// metadata and the objects' hidden classes, layouts and dictionaries, read
// where the translator reads them.
//
// Nodes are numbered as the translator creates them: the inferred roots, the
// objects the root section names, the global-ref nodes, the objects the
// string section names, then the objects of the tables. The first pass
// walks them in that order and hands over the nodes, the second the edges;
// before them the decoder keeps, per node, its id, size, name, types, hidden
// class and where its memory is (about 30 bytes); in the passes only where
// its memory is, its JSType and flags (6 bytes; the hidden class is read
// again, the names and sizes from the graph where it has them), the address
// index, and the nodes made for primitive values. Given a scratch file
// (File.Scratch), the first pass logs the object nodes' edges there as it
// counts them (9 bytes an edge), and the second hands them over from the log
// with none of that state: only the root lists, made node indexes, are kept.

// tagged values of the dynamic runtime (docs/format/rawheap.md#v1)
const (
	tagMark        = uint64(0xFFFF) << 48
	tagHeapObjMask = tagMark | 0x02 | 0x04
	valueHole      = 0x05
	valueNull      = 0x03
	valueUndefined = 0x02
	valueException = 0x0A
)

func isHeapObject(v uint64) bool { return v&tagHeapObjMask == 0 }

// noData marks a node without memory (offsets are those of the section
// index: 32 bits).
const noData = 0xFFFFFFFF

// Flags of a node, set by the first pass for the second, which runs
// without the ids and node types.
const (
	fDone       = 1 << iota // went through CreateHashEdge: its id is masked
	fHclassEdge             // has an hclass edge
	fHash                   // has a hash edge
	fSkip                   // a handle node: no edges
	// fOverlap: the object's size runs into the memory of the object after
	// it in its table (as a string's length does: its memory is its hclass).
	fOverlap
	// fDict1 and fDict2: the object is a properties dictionary whose entries
	// an object took in the first pass, the second.
	fDict1
	fDict2
)

// at returns the file offset of node i's memory, -1 without.
func (n *v1Nodes) at(i int64) int64 {
	if n.off[i] == noData {
		return -1
	}
	return int64(n.off[i])
}

// v1Nodes holds the per-node state of a V1 dump.
type v1Nodes struct {
	id     []uint64
	size   []uint32
	off    []uint32 // file offset of the memory, noData without
	str    []uint32
	typ    []uint8
	jsType []uint8
	hclass []int32 // node index of the hidden class, -1 none; nil once the passes start (hclassOf)
	flags  []uint8 // what the first pass found (fDone, …)
}

type v1 struct {
	*dyn
	n v1Nodes
	// index finds the nodes made from addresses: those below 2^48 (every
	// heap object's, isHeapObject) as address<<32 | node index in buckets of
	// their top 16 bits (8 bytes a node); the others (a damaged table's)
	// sorted in big.
	index    addrIndex
	big      []pair // address, node index
	naddr    int64  // nodes made from addresses
	fixed    int64  // inferred roots before the first address node
	virt     int64  // index of the first global-ref node
	count    int64  // nodes before the translation adds any
	prims    map[uint64]int64
	primName []uint32
	primBase int64
	hashBase int64
	hashes   int64
	hashName []uint32
	hashStr  uint32
	hashed   bool
	hclassS  uint32
	hclassed bool
	global   map[uint32]bool // names containing "_GLOBAL"
	objStr   uint32
	inline   uint32
	main     window // the objects in node order
	aux      window // objects they refer to
	tiny     window // hidden classes' type fields
	hclasses map[int64]hclassInfo
	// memStarts and memEnds bound the object sections' memory, in order.
	memStarts, memEnds []int64
	layouts            map[int64][]layoutEntry
	dangling           int64
	firstDng           int64
	// shared counts the objects whose properties dictionary an object before
	// them took (the first's memory at firstShared).
	shared, firstShared int64
	emit                func(typ uint8, name uint32, to int64)
	// elog, when set, is the first pass's log of the object nodes' edges,
	// which the second pass hands over instead of reading the objects again.
	elog *refLog
	// hcCache holds the last hidden class found at each slot (address,
	// node index + 1): most objects share a few of them.
	hcCache [1 << 12][2]uint64
}

func (d *dyn) v1() error {
	v := &v1{dyn: d, global: map[uint32]bool{}, prims: map[uint64]int64{}, firstDng: -1}
	v.main = window{f: d.f, size: 1 << 20}
	v.aux = window{f: d.f, size: 16 << 10}
	v.tiny = window{f: d.f, size: 512}
	v.hclasses, v.layouts = map[int64]hclassInfo{}, map[int64][]layoutEntry{}
	return v.run()
}

type pair struct {
	addr uint64
	seq  uint32
}

func (v *v1) run() error {
	d, f, m := v.dyn, v.f, v.m
	if err := d.readRoots(8); err != nil {
		return err
	}
	rs := &d.roots
	rn := d.internRoots()
	v.fixed = 5
	if rs.metadataExists {
		v.fixed++
	}
	if rs.refTracking {
		v.fixed++
	}
	// Candidates for address nodes, in creation order, in an array sized
	// to hold them all (counted first), so that it is not copied as it grows.
	want := int64(len(rs.roots) + len(rs.local) + len(rs.global) + len(rs.vm) + len(rs.frame))
	want += d.countNamed(8)
	for i := 4; i+1 < len(f.Sections); i += 2 {
		if off, size := int64(f.Sections[i]), int64(f.Sections[i+1]); size >= 8 {
			r := f.seq(off, f.DumpSize, 16)
			if n, ok := r.u32(); ok {
				want += min(int64(n), size/24)
			}
		}
	}
	cand := make([]pair, 0, want)
	seq := uint32(0)
	add := func(a uint64) { cand = append(cand, pair{a, seq}); seq++ }
	for _, a := range rs.roots {
		if isHeapObject(a) {
			add(a)
		}
	}
	for _, g := range [][]uint64{rs.local, rs.global, rs.vm, rs.frame} {
		for _, a := range g {
			if isHeapObject(a) {
				add(a)
			}
		}
	}
	rootSeq := seq
	type named struct {
		addr uint64
		id   uint32
	}
	var names []named
	d.readStrings(8, func(a uint64, id uint32, s string) {
		if hasGlobal(s) {
			v.global[id] = true
		}
		names = append(names, named{a, id})
		add(a)
	})
	// The object tables.
	type section struct{ tableStart, memStart, memEnd, n, item int64 }
	var secs []section
	for i := 4; i+1 < len(f.Sections); i += 2 {
		off, size := int64(f.Sections[i]), int64(f.Sections[i+1])
		if size == 0 {
			continue // outside the dump (Open said so)
		}
		r := f.seq(off, f.DumpSize, 16)
		n, _ := r.u32()
		item, ok := r.u32()
		if !ok || item < 24 {
			d.problem(ProblemBadRecord, off, "object section %d: table header of %d entries of %d bytes; section skipped", i/2-2, n, item)
			continue
		}
		s := section{tableStart: off + 8, n: int64(n), item: int64(item), memEnd: off + size}
		if max := (size - 8) / s.item; s.n > max {
			d.problem(ProblemBadRecord, off, "object table of %d entries does not fit its section of %d bytes; the %d that fit are read", s.n, size, max)
			s.n = max
		}
		s.memStart = s.tableStart + s.n*s.item
		r = f.seq(s.tableStart, s.memStart, 256<<10)
		var b [24]byte
		for k := int64(0); k < s.n; k++ {
			if !r.read(b[:]) || s.item > 24 && !r.skip(s.item-24) {
				d.problem(ProblemTruncated, r.off, "object table truncated after %d of %d entries", k, s.n)
				s.n = k
				break
			}
			add(le64(b[:]))
		}
		secs = append(secs, s)
		d.sum.Objects += s.n
	}
	// Number the address nodes: the first occurrence of each address, in
	// creation order; the global-ref nodes come between the root section's
	// objects and the string section's.
	cand = sortByAddr(cand) // cand is in seq order: by address, then seq
	cand = slices.CompactFunc(cand, func(a, b pair) bool { return a.addr == b.addr })
	firsts := newSeqRanks(seq, cand)
	nvirt := int64(len(rs.refs))
	keys := make([]uint64, 0, len(cand))
	var hi []uint32 // the top 16 bits of each key's address
	for _, c := range cand {
		ix := v.fixed + int64(firsts.rank(c.seq))
		if c.seq >= rootSeq {
			ix += nvirt
		}
		if c.addr>>48 != 0 {
			v.big = append(v.big, pair{c.addr, uint32(ix)})
			continue
		}
		keys = append(keys, c.addr<<32|uint64(ix))
		hi = append(hi, uint32(c.addr>>32))
	}
	v.virt = v.fixed + int64(firsts.rank(rootSeq))
	cand, firsts = nil, seqRanks{}
	v.naddr = int64(len(keys) + len(v.big))
	v.index = newAddrIndexTop(keys, hi)
	keys, hi = nil, nil
	v.count = v.fixed + v.naddr + nvirt
	N := v.count
	v.n = v1Nodes{id: make([]uint64, N), size: make([]uint32, N), off: make([]uint32, N),
		str: make([]uint32, N), typ: make([]uint8, N), jsType: make([]uint8, N), hclass: make([]int32, N), flags: make([]uint8, N)}
	n := &v.n
	for i := range N {
		n.off[i], n.hclass[i], n.str[i], n.typ[i] = noData, -1, 1, typeDefault
	}
	for _, x := range names {
		if i, ok := v.find(x.addr); ok {
			n.str[i], n.typ[i] = x.id, typeString
		}
	}
	names = nil
	// Fill the nodes from the tables, and read each object's hidden class
	// and, for hidden classes, their type field.
	typeField := make(map[int32]uint8)
	tf := int64(m.objectType.Offset)
	for _, s := range secs {
		v.memStarts = append(v.memStarts, s.memStart)
		v.memEnds = append(v.memEnds, s.memEnd)
	}
	for _, s := range secs {
		r := f.seq(s.tableStart, s.memStart, 256<<10)
		var b [24]byte
		tableSize := uint32(s.n * s.item)
		memSize := s.memEnd - s.memStart
		// Each object's memory follows the one before it in the table: an
		// object whose offset lies before the last one's is refused, and one
		// whose size runs into the next one's memory marked (fOverlap), so
		// that the objects' walks read each byte of the memory once.
		prev, prevOff := int64(-1), uint32(0)
		for k := int64(0); k < s.n; k++ {
			r.read(b[:])
			if s.item > 24 {
				r.skip(s.item - 24)
			}
			i, _ := v.find(le64(b[:]))
			n.id[i], n.size[i] = le64(b[8:]), le32(b[16:])
			memOff := le32(b[20:]) - tableSize
			if int64(memOff)+8 > memSize {
				d.problem(ProblemOutside, s.tableStart+k*s.item, "object %d (id %d): memory offset %d lies past its section's memory (%d bytes); its data is lost",
					k, n.id[i], le32(b[20:]), memSize)
				n.off[i] = noData
				continue
			}
			if prev >= 0 && memOff < prevOff {
				d.problem(ProblemBadRecord, s.tableStart+k*s.item, "object %d (id %d): memory offset %d lies before the previous object's (%d); its data is lost",
					k, n.id[i], le32(b[20:]), prevOff+tableSize)
				n.off[i] = noData
				continue
			}
			if prev >= 0 && n.size[prev] > memOff-prevOff {
				n.flags[prev] |= fOverlap
			}
			prev, prevOff = i, memOff
			n.off[i] = uint32(s.memStart + int64(memOff))
		}
	}
	// hclass of every object, and the type field of the hidden classes.
	for i := range N {
		if n.off[i] == noData {
			continue
		}
		if h, ok := v.find(v.main.u64(n.at(i), v.memEnd(n.at(i)))); ok {
			n.hclass[i] = int32(h)
		}
	}
	for i := range N {
		if h := n.hclass[i]; h >= 0 && n.off[h] != noData {
			if _, ok := typeField[h]; !ok {
				t := uint8(v.tiny.u32(n.at(int64(h))+tf, v.memEnd(n.at(int64(h)))))
				if int(t) >= len(m.Types) {
					t = 0
				}
				typeField[h] = t
			}
		}
	}
	// FillNodes: types, default names.
	var overlaps, firstOverlap int64
	for i := range N {
		if n.off[i] == noData {
			continue
		}
		var jt uint8
		if h := n.hclass[i]; h >= 0 {
			jt = typeField[h]
		}
		n.jsType[i] = jt
		if n.flags[i]&fOverlap != 0 {
			n.flags[i] &^= fOverlap
			if !m.isString(jt) {
				if overlaps == 0 || int64(n.off[i]) < firstOverlap {
					firstOverlap = int64(n.off[i])
				}
				overlaps++
				n.off[i] = noData
			}
		}
		if jt != 0 {
			n.typ[i] = m.nodeType(jt)
		}
		if n.str[i] < 3 && !m.isString(jt) {
			n.str[i] = d.str.id(m.nodeName(jt))
		}
		if n.str[i] >= 3 && n.typ[i] != typeRoot && v.global[n.str[i]] {
			n.typ[i] = typeFramework
		}
	}
	typeField = nil
	if overlaps > 0 {
		d.problem(ProblemBadRecord, firstOverlap, "%d objects' sizes run into the memory of the object after them (the first's memory here); their data is lost", overlaps)
	}
	v.objStr = d.str.id("JSObject")

	// Pass 1: nodes. The nodes made after the objects' are known but for
	// those of primitive values: the metadata's three and one per hash
	// (counted as translate counts them), and room for primitives, so that
	// the graph's node arrays are not copied when they come (room never
	// used is address space only).
	extra := int64(0)
	if rs.metadataExists {
		extra = 3
	}
	for i := v.fixed; i < N; i++ {
		if (i < v.virt || i >= v.virt+nvirt) && n.off[i] != noData && n.hclass[i] >= 0 && n.typ[i] != typeRoot && n.id[i]>>32 != 0 {
			extra++
		}
	}
	d.g.Reserve(N+extra+N/32, 0)
	v.elog = d.newRefLog()
	// The passes read each object's hidden class again (hclassOf) rather
	// than keep it: 4 bytes a node less.
	n.hclass = nil
	// Every heap object of the root lists is an address node (a candidate
	// above).
	d.rootNodes(rn, func(a uint64) bool { return isHeapObject(a) }, typeDefault, false, 0)
	for i := v.fixed; i < N; i++ {
		if i >= v.virt && i < v.virt+nvirt {
			var ec uint32
			if to, ok := v.find(rs.refs[i-v.virt].obj); ok {
				ec = 1
				if v.elog != nil {
					v.elog.putEdge(edgeProperty, v.objStr, to)
				}
			}
			d.node(typeObject, rn.refs[i-v.virt], 0, 0, ec, 0)
			continue
		}
		ec := v.translate(i, false)
		id := n.id[i]
		if n.flags[i]&fDone != 0 {
			id &= 0xFFFFFFFF
		}
		var native uint32
		if n.off[i] != noData && n.jsType[i] == m.nativePointer && m.nativePointer != 0 {
			native = v.main.u32(n.at(i)+int64(m.nativeBindingSize.Offset), v.memEnd(n.at(i)))
		}
		d.node(n.typ[i], n.str[i], id, n.size[i], ec, native)
	}
	for _, name := range v.primName {
		d.node(typeNumber, name, 0, 0, 0, 0)
	}
	v.primBase = N + int64(len(v.primName))
	v.hashBase = v.primBase
	if rs.metadataExists {
		for i := 0; i < 3; i++ {
			d.node(typeNumber, rn.props[2*i], 0, 1, 0, 0)
		}
		v.hashBase += 3
	}
	for _, name := range v.hashName {
		d.node(typeNumber, name, 0, 0, 0, 0)
	}
	if v.shared > 0 {
		d.problem(ProblemBadRecord, v.firstShared, "%d objects have the properties dictionary of an object before them (the first's memory here); its entries are that object's edges only", v.shared)
	}
	if v.dangling > 0 {
		d.problem(ProblemDangling, v.firstDng, "%d references to addresses that are not in the object tables (the first here) were dropped", v.dangling)
	}

	// Pass 2: edges. The ids and node types are done with (flags say what
	// the second pass needs of them).
	n.id, n.typ = nil, nil
	if v.elog.flush() {
		// The object nodes' edges are in the log: of the per-node state and
		// the address index only the root lists' nodes are needed, made
		// node indexes + 1 (0: none) before they go.
		for _, list := range [][]uint64{rs.roots, rs.local, rs.global, rs.vm, rs.frame} {
			for k, a := range list {
				list[k] = 0
				if !isHeapObject(a) {
					continue
				}
				if to, ok := v.find(a); ok {
					list[k] = uint64(to) + 1
				}
			}
		}
		hashBase, primBase, virt, refs := v.hashBase, v.primBase, v.virt, len(rs.refs)
		elog := v.elog
		*v = v1{dyn: d}
		d.g.Reserve(d.nodes, d.edgeSum)
		d.str.frozen = true
		d.rootEdges(rn, false, func(x uint64) (int64, bool) { return int64(x) - 1, x != 0 })
		rs.roots, rs.local, rs.global, rs.vm, rs.frame = nil, nil, nil, nil, nil
		for k := range refs {
			d.edge(edgeElement, uint32(k), virt+int64(k))
		}
		if rs.metadataExists {
			for k := 0; k < 3; k++ {
				d.edge(edgeProperty, rn.props[2*k+1], primBase+int64(k))
			}
		}
		for {
			typ, name, to, ok := elog.nextEdge()
			if !ok {
				break
			}
			if typ&hashEdge != 0 {
				typ, to = typ&^hashEdge, hashBase+to
			}
			d.edge(typ, name, to)
		}
		if elog.err != nil && elog.err != io.EOF {
			at := int64(0) // the first object section's table
			if len(d.f.Sections) > 4 {
				at = int64(d.f.Sections[4])
			}
			d.problem(ProblemTruncated, at, "reading back the scratch file of the object edges: %v; the edges after the first unread one are lost", elog.err)
		}
		return nil
	}
	// The names and sizes of the object nodes are the graph's, where it
	// keeps them: read there, not kept twice.
	if a, ok := d.g.(NodeArrays); ok {
		if name, self, ok := a.NodeArrays(); ok && int64(len(name)) >= N && int64(len(self)) >= N {
			n.str, n.size = name[:N:N], self[:N:N]
		}
	}
	d.g.Reserve(d.nodes, d.edgeSum)
	d.str.frozen = true
	d.rootEdges(rn, false, func(a uint64) (int64, bool) {
		if !isHeapObject(a) {
			return 0, false
		}
		return v.find(a)
	})
	// The root lists are done with (the global refs are not).
	rs.roots, rs.local, rs.global, rs.vm, rs.frame = nil, nil, nil, nil, nil
	for k := range rs.refs {
		d.edge(edgeElement, uint32(k), v.virt+int64(k))
	}
	if rs.metadataExists {
		for k := 0; k < 3; k++ {
			d.edge(edgeProperty, rn.props[2*k+1], v.primBase+int64(k))
		}
	}
	v.hashes = 0
	v.emit = func(typ uint8, name uint32, to int64) { d.edge(typ, name, to) }
	for i := v.fixed; i < N; i++ {
		if i >= v.virt && i < v.virt+nvirt {
			if to, ok := v.find(rs.refs[i-v.virt].obj); ok {
				d.edge(edgeProperty, v.objStr, to)
			}
			continue
		}
		v.translate(i, true)
	}
	return nil
}

// hclassOf returns the node index of node i's hidden class, -1 if it has
// none (no memory, or an address that is not a node).
func (v *v1) hclassOf(i int64) int64 {
	at := v.n.at(i)
	if at < 0 {
		return -1
	}
	a := v.main.u64(at, v.memEnd(at))
	slot := &v.hcCache[uint32(a>>3)*0x9E3779B1>>20]
	if slot[1] != 0 && slot[0] == a {
		return int64(slot[1]) - 1
	}
	h, ok := v.find(a)
	if !ok {
		return -1
	}
	slot[0], slot[1] = a, uint64(h)+1
	return h
}

// find returns the node index of an address node.
func (v *v1) find(a uint64) (int64, bool) {
	if a>>48 != 0 {
		k, ok := slices.BinarySearchFunc(v.big, a, func(p pair, a uint64) int { return cmpU64(p.addr, a) })
		if !ok {
			return 0, false
		}
		return int64(v.big[k].seq), true
	}
	return v.index.findTop(a)
}

// findOrCreate is the translator's FindOrCreateNode during the translation:
// an address node, or a node made for a primitive value or native pointer.
func (v *v1) findOrCreate(a uint64, name func() uint32) int64 {
	if i, ok := v.find(a); ok {
		return i
	}
	if i, ok := v.prims[a]; ok {
		return i
	}
	if v.str.frozen {
		return -1 // cannot happen: the first pass made it
	}
	i := v.count + int64(len(v.primName))
	v.prims[a] = i
	v.primName = append(v.primName, name())
	return i
}

// translate does the translator's Translate for node i: it returns its
// edge count, and hands its edges to v.emit in the second pass.
func (v *v1) translate(i int64, emit bool) uint32 {
	n, m := &v.n, v.m
	h := v.hclassOf(i)
	if h < 0 {
		return 0
	}
	if !emit && n.typ[i] == typeRoot {
		n.flags[i] |= fSkip
	}
	if n.flags[i]&fSkip != 0 {
		return 0
	}
	var ec uint32
	out := func(typ uint8, name uint32, to int64) {
		ec++
		if emit {
			v.emit(typ, name, to)
		} else if v.elog != nil {
			v.elog.putEdge(typ, name, to)
		}
	}
	if !emit && n.idAt(i) != n.idAt(h) {
		n.flags[i] |= fHclassEdge
	}
	if n.flags[i]&fHclassEdge != 0 {
		if !v.hclassed {
			v.hclassS, v.hclassed = v.str.id("hclass"), true
		}
		out(edgeProperty, v.hclassS, h)
	}
	// CreateHashEdge
	if !v.hashed {
		v.hashStr, v.hashed = v.str.id("ArkInternalHash"), true
	}
	if !emit {
		if hash := uint32(n.id[i] >> 32); hash != 0 {
			n.flags[i] |= fHash
			v.hashName = append(v.hashName, v.str.id("Int:"+strconv.FormatUint(uint64(hash), 10)))
		}
	}
	if n.flags[i]&fHash != 0 {
		if !emit && v.elog != nil {
			// The hash nodes' place is known once the first pass is done:
			// logged as the hash's ordinal, marked.
			ec++
			v.elog.putEdge(edgeProperty|hashEdge, v.hashStr, v.hashes)
		} else {
			out(edgeProperty, v.hashStr, v.hashBase+v.hashes)
		}
		v.hashes++
	}
	n.flags[i] |= fDone
	jt := n.jsType[i]
	if m.isString(jt) {
		return ec
	}
	o := clamp(obj{w: &v.main, i: i, off: n.at(i), end: v.memEnd(n.at(i)), size: n.size[i]})
	switch {
	case jt == m.globalEnv && m.globalEnv != 0:
		idx := uint32(0)
		for off := uint32(8); off+8 <= o.size; off += 8 {
			a := o.u64(off)
			typ := v.edgeType(jt, &a)
			v.edge(i, a, idx, typ, out)
			idx++
		}
	case m.isArray(jt):
		v.arrayEdges(o, jt, out)
	case jt == m.nativePointer && m.nativePointer != 0:
		for _, fd := range m.meta(jt).edgeFields {
			if uint64(fd.Offset)+8 > uint64(o.size) {
				break // the edge fields are sorted by offset
			}
			if fd.Size != 8 {
				continue
			}
			a := o.u64(fd.Offset)
			if fd.Name == "ExternalPointer" {
				if a == 0 {
					continue
				}
				to := v.findOrCreate(a, func() uint32 { return v.str.id("0x" + strconv.FormatUint(a, 16)) })
				out(edgeProperty, v.str.id(fd.Name), to)
				continue
			}
			typ := v.edgeType(jt, &a)
			name := v.str.id(fd.Name)
			v.edge(i, a, name, typ, out)
		}
	default:
		if tm := m.meta(jt); tm != nil {
			for _, fd := range tm.edgeFields {
				if uint64(fd.Offset)+8 > uint64(o.size) {
					break // the edge fields are sorted by offset
				}
				if fd.Size != 8 {
					continue
				}
				a := o.u64(fd.Offset)
				typ := v.edgeType(jt, &a)
				name := v.str.id(fd.Name)
				v.edge(i, a, name, typ, out)
			}
		}
		if m.isJSObject(jt) {
			v.objectEdges(o, h, jt, out)
		}
		if jt == m.wrappedNapiObject && m.wrappedNapiObject != 0 {
			v.napiEdges(o, out)
		}
	}
	return ec
}

func (n *v1Nodes) idAt(i int64) uint64 {
	if n.flags[i]&fDone != 0 {
		return n.id[i] & 0xFFFFFFFF
	}
	return n.id[i]
}

// edgeType is GenerateEdgeTypeAndRemoveWeak.
func (v *v1) edgeType(jt uint8, a *uint64) uint8 {
	typ := uint8(edgeProperty)
	if v.m.isArray(jt) {
		typ = edgeElement
	}
	if !isHeapObject(*a) {
		return typ
	}
	if *a&1 == 1 {
		*a &^= 1
		typ = edgeWeak
	}
	return typ
}

// edge is CreateEdge: to an object, or to the node of a primitive value.
func (v *v1) edge(from int64, a uint64, name uint32, typ uint8, out func(uint8, uint32, int64)) {
	var to int64
	if isHeapObject(a) {
		i, ok := v.find(a)
		if !ok {
			if a != 0 && !v.str.frozen {
				v.dangling++
				if v.firstDng < 0 {
					v.firstDng = v.n.at(from)
				}
			}
			return
		}
		to = i
	} else {
		if a == valueHole || a == 0 {
			return
		}
		to = v.findOrCreate(a, func() uint32 { return v.str.id(primitiveName(a)) })
	}
	if to == from || to < 0 {
		return
	}
	out(typ, name, to)
}

func primitiveName(a uint64) string {
	switch {
	case a&tagMark == tagMark:
		return "Int"
	case a&tagMark != 0:
		return "Double"
	case a == valueNull:
		return "Null"
	case a&tagHeapObjMask == 0x06:
		if a&1 == 0 {
			return "Boolean:false"
		}
		return "Boolean:true"
	case a == valueException:
		return "Exception"
	case a == valueUndefined:
		return "Undefined"
	}
	return "Illegal_Primitive"
}

func (v *v1) arrayEdges(o obj, jt uint8, out func(uint8, uint32, int64)) {
	m := v.m
	n := o.u32(m.arrayLength.Offset)
	step := m.arrayData.Size
	if step != 8 || n == 0 {
		return
	}
	off := m.arrayData.Offset
	for k := uint32(0); k < n && off+step <= o.size; k++ {
		a := o.u64(off)
		off += step
		typ := v.edgeType(jt, &a)
		v.edge(o.i, a, k, typ, out)
	}
}

func (v *v1) objectEdges(o obj, h int64, jt uint8, out func(uint8, uint32, int64)) {
	m, n := v.m, &v.n
	p, ok := v.find(o.u64(m.jsObjectProperties.Offset))
	if !ok {
		return
	}
	props := v.obj(p)
	if n.jsType[p] == m.dictionary && m.dictionary != 0 {
		if props.off < 0 {
			return
		}
		data := m.arrayData.Offset
		size := props.u32(data + 16)
		// A dictionary is one object's: the entries of one that an object
		// before took (each pass has its flag) are not taken again.
		taken := uint8(fDict1)
		if v.str.frozen {
			taken = fDict2
		}
		if size > 0 && n.flags[p]&taken != 0 {
			if !v.str.frozen {
				if v.shared == 0 {
					v.firstShared = o.off
				}
				v.shared++
			}
			return
		}
		n.flags[p] |= taken
		start := data + m.Dict.HeaderSize*8
		esize := m.Dict.EntrySize * 8
		for e := uint32(0); e < size; e++ {
			eo := start + e*esize
			if eo+esize > props.size {
				break
			}
			key := props.u64(eo + m.Dict.KeyIndex*8)
			val := props.u64(eo + m.Dict.ValueIndex*8)
			if key == valueHole || key == valueUndefined {
				continue
			}
			k, ok := v.find(key)
			if !ok {
				continue
			}
			v.edge(o.i, val, n.str[k], edgeProperty, out)
		}
		return
	}
	hi := v.hclassInfo(h)
	if hi.layout < 0 {
		return
	}
	entries := v.layoutEntries(hi.layout)
	tm := m.meta(jt)
	if tm == nil {
		return
	}
	if !v.str.frozen || v.inline == 0 {
		v.inline = v.str.id("InlineProperty")
	}
	bits := hi.bits
	nprops := bits & 0x3FF
	inlined := (bits>>15)&0x7FFF - (bits>>10)&0x1F
	data := m.arrayData.Offset
	for k := uint32(0); k < nprops; k++ {
		e := layoutEntry{key: -1}
		if int(k) < len(entries) {
			e = entries[k]
		} else {
			e = v.layoutEntry(hi.layout, k)
		}
		key, attr := e.key, e.attr
		if key < 0 {
			continue
		}
		var val uint64
		if attr&(1<<4) != 0 {
			val = o.u64(tm.EndOffset + 8*k)
		} else {
			val = props.u64(data + 8*(k-inlined))
		}
		typ := v.edgeType(jt, &val)
		name := n.str[key]
		if name == 1 {
			name = v.inline
		}
		v.edge(o.i, val, name, typ, out)
	}
}

func (v *v1) napiEdges(o obj, out func(uint8, uint32, int64)) {
	m, n := v.m, &v.n
	if !m.hasNapiPointers {
		return
	}
	npOff := m.napiPointers.Offset
	ai, ok := v.find(o.u64(npOff))
	if !ok || n.off[ai] == noData {
		return
	}
	arr := v.obj(ai)
	lenOff, data := m.arrayLength.Offset, m.arrayData.Offset
	if arr.size < lenOff+4 {
		return
	}
	length := arr.u32(lenOff)
	if uint64(arr.size) < uint64(data)+uint64(length)*8 {
		return
	}
	if !m.hasExternalPointer {
		return
	}
	ext := m.externalPointer.Offset
	for k := uint32(0); k < length; k++ {
		p, ok := v.find(arr.u64(data + 8*k))
		if !ok || n.off[p] == noData {
			continue
		}
		ptr := v.obj(p)
		a := ptr.u64(ext)
		if a == 0 {
			continue
		}
		to := v.findOrCreate(a, func() uint32 { return v.str.id("0x" + strconv.FormatUint(a, 16)) })
		out(edgeProperty, v.str.id("NativeAddress"+strconv.FormatUint(uint64(k), 10)), to)
	}
}

type hclassInfo struct {
	bits   uint32
	layout int64 // node index of the layout, -1 if none or without memory
}

type layoutEntry struct {
	key  int64 // node index of the key, -1 if none
	attr uint64
}

// obj returns the reader of node i's memory, for objects another refers to.
func (v *v1) obj(i int64) obj {
	n := &v.n
	return clamp(obj{w: &v.aux, i: i, off: n.at(i), end: v.memEnd(n.at(i)), size: n.size[i]})
}

// clamp limits the size an object's loops walk to the memory its section
// has after it: the same for a sound dump, and no walk of 4 GiB of zeros for
// a size the file cannot hold.
func clamp(o obj) obj {
	if o.off >= 0 {
		o.size = uint32(min(int64(o.size), max(0, o.end-o.off)))
	}
	return o
}

// memEnd is the end of the memory of the object section holding off.
func (v *v1) memEnd(off int64) int64 {
	k, _ := slices.BinarySearch(v.memStarts, off+1)
	if k == 0 {
		return 0
	}
	return v.memEnds[k-1]
}

// hclassInfo reads what objects need of their hidden class, once each.
func (v *v1) hclassInfo(h int64) hclassInfo {
	if hi, ok := v.hclasses[h]; ok {
		return hi
	}
	hc := v.obj(h)
	hi := hclassInfo{layout: -1}
	if hc.off >= 0 {
		hi.bits = hc.u32(v.m.bitField1.Offset)
		if l, ok := v.find(hc.u64(v.m.hclassLayout.Offset)); ok && v.n.off[l] != noData {
			hi.layout = l
		}
	}
	v.hclasses[h] = hi
	return hi
}

// layoutEntries reads a layout's key and attribute pairs, once each; up
// to its length (an object may ask for more: layoutEntry reads those).
func (v *v1) layoutEntries(l int64) []layoutEntry {
	if es, ok := v.layouts[l]; ok {
		return es
	}
	lo := v.obj(l)
	n := min(lo.u32(v.m.arrayLength.Offset)/2, 1<<16)
	es := make([]layoutEntry, n)
	for k := uint32(0); k < n; k++ {
		es[k] = v.layoutEntry(l, k)
	}
	v.layouts[l] = es
	return es
}

func (v *v1) layoutEntry(l int64, k uint32) layoutEntry {
	lo := v.obj(l)
	eo := v.m.arrayData.Offset + 16*k
	e := layoutEntry{key: -1, attr: lo.u64(eo + 8)}
	if key, ok := v.find(lo.u64(eo)); ok {
		e.key = key
	}
	return e
}

// obj reads an object's memory. Like the translator, a read past the
// object's size reads the memory that follows it in its section; past the
// section, zeros.
type obj struct {
	w    *window
	i    int64
	off  int64
	end  int64
	size uint32
}

func (o obj) u64(at uint32) uint64 {
	if o.off < 0 {
		return 0
	}
	return o.w.u64(o.off+int64(at), o.end)
}

func (o obj) u32(at uint32) uint32 {
	if o.off < 0 {
		return 0
	}
	return o.w.u32(o.off+int64(at), o.end)
}

// window reads small values at offsets of the file through a buffer that
// holds a window of it, moved when a read falls outside. A read just past
// the window doubles the next window (up to size): a sequential walk reads
// large blocks, scattered reads small ones.
type window struct {
	f     *File
	size  int64
	start int64
	next  int64 // size of the next window read
	buf   []byte
}

const minWindow = 4 << 10

func (w *window) bytes(off, n, end int64) []byte {
	if off < 0 || off+n > end {
		return nil
	}
	if off < w.start || off+n > w.start+int64(len(w.buf)) {
		if w.buf == nil {
			w.buf = make([]byte, w.size)
		}
		least := min(minWindow, w.size)
		if off >= w.start && off < w.start+int64(len(w.buf))+least {
			w.next = min(2*max(w.next, least), w.size)
		} else {
			w.next = least
		}
		w.start = off
		if int64(cap(w.buf)) < n {
			w.buf = make([]byte, n)
		}
		k, _ := w.f.ra.ReadAt(w.buf[:max(min(w.next, int64(cap(w.buf))), n)], off)
		w.buf = w.buf[:k]
		if int64(k) < n {
			return nil
		}
	}
	return w.buf[off-w.start : off-w.start+n]
}

func (w *window) u64(off, end int64) uint64 {
	if b := w.bytes(off, 8, end); b != nil {
		return le64(b)
	}
	return 0
}

func (w *window) u32(off, end int64) uint32 {
	if b := w.bytes(off, 4, end); b != nil {
		return le32(b)
	}
	return 0
}
