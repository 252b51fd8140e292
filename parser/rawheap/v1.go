package rawheap

import (
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
// between them the decoder keeps, per node, its id, size, name, types, hidden
// class and where its memory is (about 30 bytes), and the nodes made for
// primitive values.

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

// v1Nodes holds the per-node state of a V1 dump.
type v1Nodes struct {
	id     []uint64
	size   []uint32
	off    []int64 // file offset of the memory, -1 without
	memEnd []int64 // end of the object section's memory it is in
	str    []uint32
	typ    []uint8
	jsType []uint8
	hclass []int32 // node index of the hidden class, -1 none
	done   []bool  // went through CreateHashEdge: its id is masked
}

type v1 struct {
	*dyn
	n        v1Nodes
	addrs    []uint64 // sorted addresses of the nodes made from addresses
	idx      []uint32 // their node indexes
	fixed    int64    // inferred roots before the first address node
	virt     int64    // index of the first global-ref node
	count    int64    // nodes before the translation adds any
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
	main     window
	aux      window
	dangling int64
	firstDng int64
	emit     func(typ uint8, name uint32, to int64)
}

func (d *dyn) v1() error {
	v := &v1{dyn: d, global: map[uint32]bool{}, prims: map[uint64]int64{}, firstDng: -1}
	v.main = window{f: d.f, size: 1 << 20}
	v.aux = window{f: d.f, size: 64 << 10}
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
	// Candidates for address nodes, in creation order.
	var cand []pair
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
		r := f.seq(off, f.DumpSize, 16)
		n, _ := r.u32()
		item, ok := r.u32()
		if !ok || item < 24 {
			d.warn(off, "object section %d: table header of %d entries of %d bytes; section skipped", i/2-2, n, item)
			continue
		}
		s := section{tableStart: off + 8, n: int64(n), item: int64(item), memEnd: off + size}
		if max := (size - 8) / s.item; s.n > max {
			d.warn(off, "object table of %d entries does not fit its section of %d bytes; the %d that fit are read", s.n, size, max)
			s.n = max
		}
		s.memStart = s.tableStart + s.n*s.item
		r = f.seq(s.tableStart, s.memStart, 256<<10)
		var b [24]byte
		for k := int64(0); k < s.n; k++ {
			if !r.read(b[:]) || s.item > 24 && !r.skip(s.item-24) {
				d.warn(r.off, "object table truncated after %d of %d entries", k, s.n)
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
	slices.SortFunc(cand, func(a, b pair) int {
		if a.addr != b.addr {
			if a.addr < b.addr {
				return -1
			}
			return 1
		}
		return int(a.seq) - int(b.seq)
	})
	cand = slices.CompactFunc(cand, func(a, b pair) bool { return a.addr == b.addr })
	firsts := make([]uint32, len(cand))
	for i, c := range cand {
		firsts[i] = c.seq
	}
	slices.Sort(firsts)
	nvirt := int64(len(rs.refs))
	v.addrs = make([]uint64, len(cand))
	v.idx = make([]uint32, len(cand))
	for i, c := range cand {
		k, _ := slices.BinarySearch(firsts, c.seq)
		ix := v.fixed + int64(k)
		if c.seq >= rootSeq {
			ix += nvirt
		}
		v.addrs[i], v.idx[i] = c.addr, uint32(ix)
	}
	nroot, _ := slices.BinarySearch(firsts, rootSeq)
	v.virt = v.fixed + int64(nroot)
	cand, firsts = nil, nil
	v.count = v.fixed + int64(len(v.addrs)) + nvirt
	N := v.count
	v.n = v1Nodes{id: make([]uint64, N), size: make([]uint32, N), off: make([]int64, N), memEnd: make([]int64, N),
		str: make([]uint32, N), typ: make([]uint8, N), jsType: make([]uint8, N), hclass: make([]int32, N), done: make([]bool, N)}
	n := &v.n
	for i := range N {
		n.off[i], n.hclass[i], n.str[i], n.typ[i] = -1, -1, 1, typeDefault
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
		r := f.seq(s.tableStart, s.memStart, 256<<10)
		var b [24]byte
		tableSize := uint32(s.n * s.item)
		memSize := s.memEnd - s.memStart
		for k := int64(0); k < s.n; k++ {
			r.read(b[:])
			if s.item > 24 {
				r.skip(s.item - 24)
			}
			i, _ := v.find(le64(b[:]))
			n.id[i], n.size[i] = le64(b[8:]), le32(b[16:])
			memOff := le32(b[20:]) - tableSize
			if int64(memOff)+8 > memSize {
				d.warn(s.tableStart+k*s.item, "object %d (id %d): memory offset %d lies past its section's memory (%d bytes); its data is lost",
					k, n.id[i], le32(b[20:]), memSize)
				n.off[i] = -1
				continue
			}
			n.off[i], n.memEnd[i] = s.memStart+int64(memOff), s.memEnd
		}
	}
	// hclass of every object, and the type field of the hidden classes.
	for i := range N {
		if n.off[i] < 0 {
			continue
		}
		if h, ok := v.find(v.main.u64(n.off[i], n.memEnd[i])); ok {
			n.hclass[i] = int32(h)
		}
	}
	for i := range N {
		if h := n.hclass[i]; h >= 0 && n.off[h] >= 0 {
			if _, ok := typeField[h]; !ok {
				t := uint8(v.aux.u32(n.off[h]+tf, n.memEnd[h]))
				if int(t) >= len(m.Types) {
					t = 0
				}
				typeField[h] = t
			}
		}
	}
	// FillNodes: types, default names.
	for i := range N {
		if n.off[i] < 0 {
			continue
		}
		var jt uint8
		if h := n.hclass[i]; h >= 0 {
			jt = typeField[h]
		}
		n.jsType[i] = jt
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
	v.objStr = d.str.id("JSObject")

	// Pass 1: nodes.
	synthEC := uint32(len(rs.roots)) + 4
	if rs.metadataExists {
		synthEC++
	}
	if rs.refTracking {
		synthEC++
	}
	d.node(typeSynthetic, rn.synthetic, 1, 0, synthEC, 0)
	d.node(typeRoot, rn.local, 0, 1, uint32(len(rs.local)), 0)
	d.node(typeRoot, rn.global, 0, 1, uint32(len(rs.global)), 0)
	d.node(typeRoot, rn.vm, 0, 1, uint32(len(rs.vm)), 0)
	d.node(typeRoot, rn.frame, 0, 1, uint32(len(rs.frame)), 0)
	if rs.metadataExists {
		d.node(typeDefault, rn.metadata, 0, 1, 3, 0)
	}
	if rs.refTracking {
		d.node(typeRoot, rn.gho, 0, 1, uint32(len(rs.refs)), 0)
	}
	for i := v.fixed; i < N; i++ {
		if i >= v.virt && i < v.virt+nvirt {
			d.node(typeObject, rn.refs[i-v.virt], 0, 0, 1, 0)
			continue
		}
		ec := v.translate(i, false)
		id := n.id[i]
		if n.done[i] {
			id &= 0xFFFFFFFF
		}
		var native uint32
		if n.off[i] >= 0 && n.jsType[i] == m.nativePointer && m.nativePointer != 0 {
			native = v.aux.u32(n.off[i]+int64(m.nativeBindingSize.Offset), n.memEnd[i])
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
	if v.dangling > 0 {
		d.warn(v.firstDng, "%d references to addresses that are not in the object tables (the first here) were dropped", v.dangling)
	}

	// Pass 2: edges.
	d.str.frozen = true
	for k := int64(1); k <= 4; k++ {
		d.edge(edgeShortcut, rn.subroot, k)
	}
	next := int64(5)
	if rs.metadataExists {
		d.edge(edgeShortcut, rn.subroot, next)
		next++
	}
	if rs.refTracking {
		d.edge(edgeShortcut, rn.subroot, next)
	}
	for _, a := range rs.roots {
		if isHeapObject(a) {
			to, _ := v.find(a)
			d.edge(edgeShortcut, rn.subroot, to)
		}
	}
	for _, g := range [][]uint64{rs.local, rs.global, rs.vm, rs.frame} {
		k := uint32(0)
		for _, a := range g {
			if isHeapObject(a) {
				to, _ := v.find(a)
				d.edge(edgeElement, k, to)
				k++
			}
		}
	}
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

// find returns the node index of an address node.
func (v *v1) find(a uint64) (int64, bool) {
	k, ok := slices.BinarySearch(v.addrs, a)
	if !ok {
		return 0, false
	}
	return int64(v.idx[k]), true
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
	if n.off[i] < 0 || n.hclass[i] < 0 || n.typ[i] == typeRoot {
		return 0
	}
	var ec uint32
	out := func(typ uint8, name uint32, to int64) {
		ec++
		if emit {
			v.emit(typ, name, to)
		}
	}
	h := int64(n.hclass[i])
	if n.idAt(i) != n.idAt(h) {
		if !v.hclassed {
			v.hclassS, v.hclassed = v.str.id("hclass"), true
		}
		out(edgeProperty, v.hclassS, h)
	}
	// CreateHashEdge
	if !v.hashed {
		v.hashStr, v.hashed = v.str.id("ArkInternalHash"), true
	}
	if hash := uint32(n.id[i] >> 32); hash != 0 {
		if !emit {
			v.hashName = append(v.hashName, v.str.id("Int:"+strconv.FormatUint(uint64(hash), 10)))
		}
		out(edgeProperty, v.hashStr, v.hashBase+v.hashes)
		v.hashes++
	}
	n.done[i] = true
	jt := n.jsType[i]
	if m.isString(jt) {
		return ec
	}
	o := obj{v: v, i: i, off: n.off[i], end: n.memEnd[i], size: n.size[i]}
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
		for _, fd := range m.meta(jt).Fields {
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
			for _, fd := range tm.Fields {
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
			v.napiEdges(o, jt, out)
		}
	}
	return ec
}

func (n *v1Nodes) idAt(i int64) uint64 {
	if n.done[i] {
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
					v.firstDng = v.n.off[from]
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
	props := obj{v: v, i: p, off: n.off[p], end: n.memEnd[p], size: n.size[p]}
	if n.jsType[p] == m.dictionary && m.dictionary != 0 {
		if props.off < 0 {
			return
		}
		data := m.arrayData.Offset
		size := props.u32(data + 16)
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
	hc := obj{v: v, i: h, off: n.off[h], end: n.memEnd[h], size: n.size[h]}
	if hc.off < 0 {
		return
	}
	l, ok := v.find(hc.u64(m.hclassLayout.Offset))
	if !ok || n.off[l] < 0 {
		return
	}
	layout := obj{v: v, i: l, off: n.off[l], end: n.memEnd[l], size: n.size[l]}
	tm := m.meta(jt)
	if tm == nil {
		return
	}
	if !v.str.frozen || v.inline == 0 {
		v.inline = v.str.id("InlineProperty")
	}
	bits := hc.u32(m.bitField1.Offset)
	nprops := bits & 0x3FF
	inlined := (bits>>15)&0x7FFF - (bits>>10)&0x1F
	data := m.arrayData.Offset
	for k := uint32(0); k < nprops; k++ {
		eo := data + 16*k
		key, ok := v.find(layout.u64(eo))
		if !ok {
			continue
		}
		attr := layout.u64(eo + 8)
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

func (v *v1) napiEdges(o obj, jt uint8, out func(uint8, uint32, int64)) {
	m, n := v.m, &v.n
	var npOff uint32
	found := false
	for _, fd := range m.meta(jt).Fields {
		if fd.Name == "NativePointers" {
			npOff, found = fd.Offset, true
			break
		}
	}
	if !found {
		return
	}
	ai, ok := v.find(o.u64(npOff))
	if !ok || n.off[ai] < 0 {
		return
	}
	arr := obj{v: v, i: ai, off: n.off[ai], end: n.memEnd[ai], size: n.size[ai]}
	lenOff, data := m.arrayLength.Offset, m.arrayData.Offset
	if arr.size < lenOff+4 {
		return
	}
	length := arr.u32(lenOff)
	if uint64(arr.size) < uint64(data)+uint64(length)*8 {
		return
	}
	var ext uint32
	found = false
	if np := m.meta(m.nativePointer); np != nil && m.nativePointer != 0 {
		for _, fd := range np.Fields {
			if fd.Name == "ExternalPointer" {
				ext, found = fd.Offset, true
				break
			}
		}
	}
	if !found {
		return
	}
	for k := uint32(0); k < length; k++ {
		p, ok := v.find(arr.u64(data + 8*k))
		if !ok || n.off[p] < 0 {
			continue
		}
		ptr := obj{v: v, i: p, off: n.off[p], end: n.memEnd[p], size: n.size[p]}
		a := ptr.u64(ext)
		if a == 0 {
			continue
		}
		to := v.findOrCreate(a, func() uint32 { return v.str.id("0x" + strconv.FormatUint(a, 16)) })
		out(edgeProperty, v.str.id("NativeAddress"+strconv.FormatUint(uint64(k), 10)), to)
	}
}

// obj reads an object's memory. Like the translator, a read past the
// object's size reads the memory that follows it in its section; past the
// section, zeros.
type obj struct {
	v    *v1
	i    int64
	off  int64
	end  int64
	size uint32
}

func (o obj) u64(at uint32) uint64 {
	if o.off < 0 {
		return 0
	}
	return o.v.main.u64(o.off+int64(at), o.end)
}

func (o obj) u32(at uint32) uint32 {
	if o.off < 0 {
		return 0
	}
	return o.v.main.u32(o.off+int64(at), o.end)
}

// window reads small values at offsets of the file through a buffer that
// holds a window of it, moved when a read falls outside.
type window struct {
	f     *File
	size  int64
	start int64
	buf   []byte
}

func (w *window) bytes(off, n, end int64) []byte {
	if off < 0 || off+n > end {
		return nil
	}
	if off < w.start || off+n > w.start+int64(len(w.buf)) {
		if w.buf == nil {
			w.buf = make([]byte, w.size)
		}
		w.start = off
		k, _ := w.f.ra.ReadAt(w.buf[:cap(w.buf)], off)
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
