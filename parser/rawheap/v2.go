package rawheap

import (
	"bufio"
	"encoding/binary"
	"io"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
)

// V2 ("2.0.0", docs/format/rawheap.md#v2): a table of {u32 address, u32
// size, u64 id, u32 native size, u32 JSType} and a stream of tokens, one per
// 8-byte slot of each object after its hclass.
//
// The graph is read in two passes over the object section, each reading the
// table and the token stream side by side: the first hands over the nodes
// (an object's edge count is known once its tokens are read), the second
// the edges. The first pass finds each reference's node in the address
// map (addrMap, 11-21 bytes an object) and, given a scratch file (File.Scratch), logs it
// there (refLog), so that the index is let go before the edges come; the
// names of the hash nodes are kept.

const v2ItemSize = 24

type v2Entry struct {
	addr, size uint32
	id         uint64
	native     uint32
	jsType     uint8
}

// v2Table reads the object table and the token stream.
type v2Table struct {
	n          int64 // entries
	item       int64
	tableStart int64
	memStart   int64
	memEnd     int64
}

func (d *dyn) v2Layout() (v2Table, error) {
	f := d.f
	off, size := int64(f.Sections[4]), int64(f.Sections[5])
	r := f.seq(off, f.DumpSize, 16)
	n, _ := r.u32()
	item, ok := r.u32()
	if !ok || item < v2ItemSize {
		return v2Table{}, errAt(off, "object table header: %d entries of %d bytes (want at least %d)", n, item, v2ItemSize)
	}
	t := v2Table{n: int64(n), item: int64(item), tableStart: off + 8, memEnd: off + size}
	if max := (size - 8) / t.item; t.n > max {
		d.problem(ProblemBadRecord, off, "object table of %d entries does not fit its section of %d bytes; the %d that fit are read", t.n, size, max)
		t.n = max
	}
	t.memStart = t.tableStart + t.n*t.item
	return t, nil
}

func (t v2Table) entries(f *File) *seq { return f.seq(t.tableStart, t.memStart, 256<<10) }

func (d *dyn) readV2Entry(r *seq, item int64) (v2Entry, bool) {
	var b [v2ItemSize]byte
	if !r.read(b[:]) {
		return v2Entry{}, false
	}
	if item > v2ItemSize {
		r.skip(item - v2ItemSize)
	}
	return v2Entry{addr: le32(b[:]), size: le32(b[4:]), id: le64(b[8:]), native: le32(b[16:]), jsType: uint8(le32(b[20:]))}, true
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// addrIndex finds the table index of an address: sorted address<<32|index,
// the first entry of each address kept (the translator's map keeps the
// first), with the start of each run of addresses that share a bucket, so
// that a search looks at a few cache lines rather than the whole array. A
// bucket is an aligned range of 1<<shift addresses (shift ≤ 32, so that
// the addresses of a bucket differ only in the low 32 bits the keys hold),
// the first at lo<<shift.
type addrIndex struct {
	keys  []uint64
	start []uint32 // len: buckets + 1
	lo    uint64   // the first bucket's address >> shift
	shift uint
}

// maxAddrBuckets bounds the buckets of newAddrIndexTop (4 MiB of starts).
const maxAddrBuckets = 1 << 20

// newAddrIndexTop indexes keys of 48-bit addresses, (address&0xFFFFFFFF)<<32
// | index, sorted by address, given the top 16 bits of each address in top.
// Its buckets cover the addresses from the first to the last, as narrow as
// about one bucket a key allows (at most maxAddrBuckets, or those of 4 GiB
// each, 1<<16 at most, where the addresses spread wider): a heap's objects
// lie within a few GiB, where buckets of the top 16 bits put them all in
// one or two and each search was a binary search of the whole table (on a
// 5.6 M-object dump, 2.1 s of a 20 s run).
func newAddrIndexTop(keys []uint64, top []uint32) addrIndex {
	x := addrIndex{keys: keys}
	if len(keys) == 0 {
		x.start = make([]uint32, 2)
		return x
	}
	addr := func(i int) uint64 { return uint64(top[i])<<32 | keys[i]>>32 }
	first, last := addr(0), addr(len(keys)-1)
	limit := uint64(min(max(len(keys), 1024), maxAddrBuckets))
	for x.shift < 32 && last>>x.shift-first>>x.shift >= limit {
		x.shift++
	}
	x.lo = first >> x.shift
	n := last>>x.shift - x.lo + 1
	x.start = make([]uint32, n+1)
	b := uint64(0)
	for i := range keys {
		for k := addr(i)>>x.shift - x.lo; b <= k; b++ {
			x.start[b] = uint32(i)
		}
	}
	for ; b <= n; b++ {
		x.start[b] = uint32(len(keys))
	}
	return x
}

// findTop finds a 48-bit address in an index made by newAddrIndexTop.
func (x addrIndex) findTop(a uint64) (int64, bool) {
	b := a>>x.shift - x.lo // past the buckets (wrapping below lo) if outside
	if b >= uint64(len(x.start)-1) {
		return 0, false
	}
	k := a << 32
	lo, hi := int(x.start[b]), int(x.start[b+1])
	end := hi
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.keys[m]&^0xFFFFFFFF < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < end && x.keys[lo]>>32 == a&0xFFFFFFFF {
		return int64(uint32(x.keys[lo])), true
	}
	return 0, false
}

// addrMap maps the 32-bit addresses of a V2 dump to numbers (table
// indexes, string ids): open addressing with linear probing over slots of
// address<<32 | number+1 (0: empty), at most three quarters full (11-21
// bytes an address). A V2 dump's synthetic addresses put the offset in the
// region in the high half and the region in the low one, so that an index
// of sorted addresses in buckets of the high bits held tens of addresses a
// bucket, and its binary searches took 28 % of a conversion (2.8 s of
// 10.3 s on a 2.18 M-object dump); a lookup here reads one slot, rarely the
// next few, whatever the addresses. The slot is the top bits of the address
// times a random odd number drawn per map (multiply-shift, a universal
// hash): with a fixed one, a file could give addresses that all fall in a
// few slots, and each lookup would walk them all (32 768 such addresses
// took 1.9 s where V2's took 1 ms; a million, tens of minutes).
type addrMap struct {
	slots []uint64
	mul   uint64 // odd
	shift uint   // 64 - log2(len(slots))
}

// newAddrMap returns a map with room for n addresses (n < 1<<32 - 1).
func newAddrMap(n int64) addrMap {
	size := int64(8)
	for size*3 < n*4 {
		size <<= 1
	}
	return addrMap{slots: make([]uint64, size), mul: rand.Uint64() | 1, shift: uint(64 - bits.TrailingZeros64(uint64(size)))}
}

// slot is where the probes for addr start.
func (m addrMap) slot(addr uint32) int { return int(uint64(addr) * m.mul >> m.shift) }

// put maps addr to v; an address mapped before keeps its number unless
// replace is set (the translator's maps keep the first index of an
// address, and the last name given to it).
func (m addrMap) put(addr, v uint32, replace bool) {
	mask := len(m.slots) - 1
	for s := m.slot(addr); ; s = (s + 1) & mask {
		x := m.slots[s]
		if x == 0 || replace && uint32(x>>32) == addr {
			m.slots[s] = uint64(addr)<<32 | uint64(v+1)
			return
		}
		if uint32(x>>32) == addr {
			return
		}
	}
}

// find returns the number mapped to addr.
func (m addrMap) find(addr uint32) (int64, bool) {
	mask := len(m.slots) - 1
	for s := m.slot(addr); ; s = (s + 1) & mask {
		x := m.slots[s]
		if x == 0 {
			return 0, false
		}
		if uint32(x>>32) == addr {
			return int64(uint32(x)) - 1, true
		}
	}
}

func (d *dyn) v2() error {
	f, m := d.f, d.m
	if err := d.readRoots(4); err != nil {
		return err
	}
	rn := d.internRoots()
	t, err := d.v2Layout()
	if err != nil {
		return err
	}
	// The string section: names by address (the last one given wins).
	var namedList []uint64 // address<<32 | string id, in the section's order
	framework := map[uint32]bool{}
	d.readStrings(4, func(addr uint64, id uint32, s string) {
		namedList = append(namedList, uint64(uint32(addr))<<32|uint64(id))
		if hasGlobal(s) {
			framework[id] = true
		}
	})
	names := newAddrMap(int64(len(namedList)))
	for _, x := range namedList {
		names.put(uint32(x>>32), uint32(x), true)
	}
	namedList = nil

	// Scan the table: the address index, and the default names in node order.
	idx := newAddrMap(t.n)
	r := t.entries(f)
	metaDefault := !d.roots.metadataExists
	var metaName uint32
	if metaDefault {
		metaName = d.str.id(m.nodeName(0))
	}
	defaults := map[uint8]uint32{}
	var read int64
	for ; read < t.n; read++ {
		e, ok := d.readV2Entry(r, t.item)
		if !ok {
			d.problem(ProblemTruncated, r.off, "object table truncated after %d of %d entries", read, t.n)
			break
		}
		idx.put(e.addr, uint32(read), false)
	}
	t.n = read
	d.sum.Objects = read
	isFirst := func(e v2Entry, i int64) bool { j, _ := idx.find(e.addr); return j == i }
	nameOf := func(e v2Entry, i int64) (uint32, bool) {
		if id, ok := names.find(e.addr); ok && isFirst(e, i) {
			return uint32(id), true
		}
		return 0, false
	}
	r = t.entries(f)
	for i := int64(0); i < t.n; i++ {
		e, _ := d.readV2Entry(r, t.item)
		if _, ok := nameOf(e, i); ok || m.isString(e.jsType) {
			continue
		}
		if _, ok := defaults[e.jsType]; !ok {
			defaults[e.jsType] = d.str.id(m.nodeName(e.jsType))
		}
	}
	jsObject := d.str.id("JSObject")

	gho := int64(0)
	if d.roots.refTracking {
		gho = 1
	}
	base := 6 + gho
	virtBase := base + t.n
	primBase := virtBase + int64(len(d.roots.refs))
	hashBase := primBase
	if d.roots.metadataExists {
		hashBase += 3
	}
	// A direct-mapped cache in front of the index: hidden classes, empty
	// arrays and prototypes are referred to by most objects.
	var cache [1 << 12]uint64 // address<<32 | node index+1
	find := func(addr uint64) (int64, bool) {
		slot := &cache[uint32(addr)*0x9E3779B1>>20]
		if *slot>>32 == addr && *slot != 0 {
			return int64(uint32(*slot)) - 1, true
		}
		i, ok := idx.find(uint32(addr))
		if ok {
			*slot = addr<<32 | uint64(base+i+1)
		}
		return base + i, ok
	}

	// Pass 1: the nodes.
	d.g.Reserve(hashBase+t.n/32, 0) // and room for hash nodes (address space only, if unused)
	rs := &d.roots
	d.rootNodes(rn, func(a uint64) bool { _, ok := find(a); return ok }, m.nodeType(0), metaDefault, metaName)
	ob := &v2Objects{d: d, t: t, find: find, hashBase: hashBase, jsObject: jsObject, log: d.newRefLog()}
	ob.run(func(i int64, e v2Entry, ec uint32, masked bool, hash uint32) {
		typ := uint8(typeDefault)
		name, isNamed := nameOf(e, i)
		if isNamed && framework[name] {
			typ = typeFramework
		} else {
			typ = m.nodeType(e.jsType)
		}
		if !isNamed {
			if m.isString(e.jsType) {
				name = 1
			} else {
				name = defaults[e.jsType]
			}
		}
		id := e.id
		if masked {
			id &= 0xFFFFFFFF
		}
		d.node(typ, name, id, e.size, ec, e.native)
	}, nil)
	hashNames := ob.hashNames
	for k, name := range rn.refs {
		var ec uint32
		if _, ok := find(rs.refs[k].obj); ok {
			ec = 1
		}
		d.node(typeObject, name, 0, 0, ec, 0)
	}
	if rs.metadataExists {
		for i := 0; i < 3; i++ {
			d.node(typeNumber, rn.props[2*i], 0, 1, 0, 0)
		}
	}
	for _, name := range hashNames {
		d.node(typeNumber, name, 0, 0, 0, 0)
	}

	names = addrMap{} // the first pass's (nameOf)
	// With the first pass's references logged, the address index is let
	// go before the edges come; the few addresses the second pass looks up
	// itself, the root lists', become node indexes + 1 (0: none) first.
	if ob.log.flush() {
		for _, list := range [][]uint64{rs.roots, rs.local, rs.global, rs.vm, rs.frame} {
			for k, a := range list {
				list[k] = 0
				if to, ok := find(a); ok {
					list[k] = uint64(to) + 1
				}
			}
		}
		for k, ref := range rs.refs {
			rs.refs[k].obj = 0
			if to, ok := find(ref.obj); ok {
				rs.refs[k].obj = uint64(to) + 1
			}
		}
		find = func(x uint64) (int64, bool) { return int64(x) - 1, x != 0 }
		idx, ob.find = addrMap{}, nil
	} else {
		ob.log = nil
	}

	// Pass 2: the edges, in the translator's order.
	d.g.Reserve(d.nodes, d.edgeSum)
	d.str.frozen = true
	d.rootEdges(rn, metaDefault, find)
	// The root lists are done with (the global refs are not).
	rs.roots, rs.local, rs.global, rs.vm, rs.frame = nil, nil, nil, nil, nil
	for i := range rs.refs {
		d.edge(edgeElement, uint32(i), virtBase+int64(i))
	}
	if rs.metadataExists {
		for i := 0; i < 3; i++ {
			d.edge(edgeProperty, rn.props[2*i+1], primBase+int64(i))
		}
	}
	ob.run(nil, func(typ uint8, name uint32, to int64) { d.edge(typ, name, to) })
	for _, ref := range rs.refs {
		if to, ok := find(ref.obj); ok {
			d.edge(edgeProperty, jsObject, to)
		}
	}
	return nil
}

// v2Objects walks the table and the token stream together, as the
// translator's Translate does, once to count and once to emit.
type v2Objects struct {
	d        *dyn
	t        v2Table
	find     func(uint64) (int64, bool)
	hashBase int64
	jsObject uint32
	refs     []int64
	hashStr  uint32
	hashed   bool
	tk       *seq
	ec       uint32                     // edges of the current object
	lastAddr uint32                     // the address of the last reference token
	edge     func(uint8, uint32, int64) // the second pass's receiver
	// hashNames are the names of the hash nodes, made in the first pass.
	hashNames []uint32
	// log, when set, holds the node each reference token of the first pass
	// found, which the second pass reads instead of looking it up.
	log *refLog
}

func (o *v2Objects) run(node func(i int64, e v2Entry, ec uint32, masked bool, hash uint32),
	edge func(typ uint8, name uint32, to int64)) {
	d, m, t := o.d, o.d.m, o.t
	r := t.entries(d.f)
	tk := d.f.seq(t.memStart, t.memEnd, 256<<10)
	o.tk = tk
	failed := false
	dangling, firstDangling := int64(0), int64(-1)
	var hashes int64
	token := func() (int64, bool) {
		if tk.off >= t.memEnd {
			return -1, false
		}
		start := tk.off
		c, ok := tk.byte()
		if !ok {
			return -1, false
		}
		if c&0x02 != 0 {
			return -1, true
		}
		if c&0x04 != 0 {
			tk.skip(4)
			return -1, true
		}
		var b [3]byte
		if !tk.read(b[:]) {
			return -1, false
		}
		addr := uint32(c) | uint32(b[0])<<8 | uint32(b[1])<<16 | uint32(b[2])<<24
		o.lastAddr = addr
		var to int64
		switch {
		case edge != nil && o.log != nil:
			to, ok = o.log.next()
		default:
			to, ok = o.find(uint64(addr))
			if o.log != nil {
				o.log.put(to, ok)
			}
		}
		if !ok {
			if edge == nil {
				dangling++
				if firstDangling < 0 {
					firstDangling = start
				}
			}
			return -1, true
		}
		return to, true
	}
	for i := int64(0); i < t.n; i++ {
		e, _ := d.readV2Entry(r, t.item)
		var hash uint32
		masked := false
		o.ec, o.edge = 0, edge
		if !failed {
			at := tk.off
			hc, _ := token()
			if hc < 0 {
				failed = true
				if node != nil {
					d.problem(ProblemBadRecord, at, "object %d (id %d) has no hclass in the token stream; the edges of it and of the %d objects after it are lost",
						i, e.id, t.n-i-1)
				}
			} else {
				// The translator compares ids: the same node has the same
				// address.
				if o.lastAddr != e.addr {
					o.emit(edgeProperty, d.str.id("hclass"), hc)
				}
				if !o.hashed {
					o.hashStr, o.hashed = d.str.id("ArkInternalHash"), true
				}
				masked = true
				if hash = uint32(e.id >> 32); hash != 0 {
					if node != nil {
						o.hashNames = append(o.hashNames, d.str.id("Int:"+strconv.FormatUint(uint64(hash), 10)))
					}
					o.emit(edgeProperty, o.hashStr, o.hashBase+hashes)
					hashes++
				}
				if !m.isString(e.jsType) {
					o.edges(e, token)
				}
			}
		}
		if node != nil {
			node(i, e, o.ec, masked, hash)
		}
	}
	if node != nil && dangling > 0 {
		d.problem(ProblemDangling, firstDangling, "%d references to addresses that are not in the object table (the first here) were dropped", dangling)
	}
	if edge != nil && o.log != nil && o.log.err != nil {
		d.problem(ProblemTruncated, t.memStart, "reading back the scratch file of the object references: %v; the edges after the first unread one are lost", o.log.err)
	}
}

// refLog is the first pass's log of the nodes its reference tokens found,
// in a scratch file: 4 bytes each (node index + 1, 0 for none), written in
// token order and read back in the same order by the second pass, which
// walks the same tokens. 4 bytes a reference on disk instead of the address
// index's 8 bytes an object in memory while the graph's edges are made.
type refLog struct {
	f   ScratchFile
	buf []byte
	off int64 // bytes written
	r   *bufio.Reader
	err error
	rec [9]byte // the record read back (a local array escapes to io.ReadFull)
}

// newRefLog opens the log on the file's scratch file; nil without one.
func (d *dyn) newRefLog() *refLog {
	if d.f.Scratch == nil {
		return nil
	}
	sf, err := d.f.Scratch()
	if err != nil || sf == nil {
		return nil
	}
	return &refLog{f: sf, buf: make([]byte, 0, 1<<20)}
}

func (l *refLog) put(to int64, ok bool) {
	v := uint32(0)
	if ok {
		v = uint32(to) + 1
	}
	l.buf = binary.LittleEndian.AppendUint32(l.buf, v)
	if len(l.buf) == cap(l.buf) {
		l.write()
	}
}

func (l *refLog) write() {
	if l.err == nil && len(l.buf) > 0 {
		_, l.err = l.f.WriteAt(l.buf, l.off)
		l.off += int64(len(l.buf))
	}
	l.buf = l.buf[:0]
}

// flush ends the first pass's log and readies it for the second; false
// when it could not be written (the second pass then looks the addresses up).
func (l *refLog) flush() bool {
	if l == nil {
		return false
	}
	l.write()
	if l.err != nil {
		return false
	}
	l.buf = nil
	l.r = bufio.NewReaderSize(io.NewSectionReader(l.f, 0, l.off), 1<<20)
	return true
}

// hashEdge marks a logged edge whose target is a hash node's ordinal (V1).
const hashEdge = 0x80

// putEdge logs an edge: type, name or index, target node (9 bytes).
func (l *refLog) putEdge(typ uint8, name uint32, to int64) {
	l.buf = append(l.buf, typ)
	l.buf = binary.LittleEndian.AppendUint32(l.buf, name)
	l.buf = binary.LittleEndian.AppendUint32(l.buf, uint32(to))
	if len(l.buf) > cap(l.buf)-9 {
		l.write()
	}
}

// nextEdge reads the next logged edge; false at the end of the log (err
// io.EOF) or on an error.
func (l *refLog) nextEdge() (typ uint8, name uint32, to int64, ok bool) {
	b := l.rec[:9]
	if l.err != nil {
		return 0, 0, 0, false
	}
	if _, err := io.ReadFull(l.r, b); err != nil {
		l.err = err
		return 0, 0, 0, false
	}
	return b[0], binary.LittleEndian.Uint32(b[1:]), int64(binary.LittleEndian.Uint32(b[5:])), true
}

// next reads the next reference's node.
func (l *refLog) next() (int64, bool) {
	b := l.rec[:4]
	if l.err != nil {
		return 0, false
	}
	if _, err := io.ReadFull(l.r, b); err != nil {
		l.err = err
		return 0, false
	}
	v := binary.LittleEndian.Uint32(b)
	return int64(v) - 1, v != 0
}

// emit counts an edge of the current object and, in the second pass,
// hands it over.
func (o *v2Objects) emit(typ uint8, name uint32, to int64) {
	o.ec++
	if o.edge != nil {
		o.edge(typ, name, to)
	}
}

func (o *v2Objects) edges(e v2Entry, token func() (int64, bool)) {
	d, m := o.d, o.d.m
	var n int
	if e.size > 8 {
		n = int((e.size - 8 + 7) / 8)
	}
	// Each token takes a byte at least: a size the stream cannot hold asks
	// for no more tokens than the stream has left.
	n = int(min(int64(n), o.t.memEnd-o.tk.off))
	if m.isArray(e.jsType) {
		k := uint32(0)
		for range n {
			if to, _ := token(); to >= 0 {
				o.emit(edgeElement, k, to)
				k++
			}
		}
		return
	}
	refs := o.refs[:0]
	for range n {
		to, _ := token()
		refs = append(refs, to)
	}
	o.refs = refs
	tm := m.meta(e.jsType)
	if tm == nil {
		return
	}
	// The edge fields are sorted by offset: those past the object's slots
	// are not looked at.
	for _, f := range tm.edgeFields {
		k := int(f.Offset/8) - 1
		if k >= len(refs) {
			break
		}
		if k < 0 || refs[k] < 0 {
			continue
		}
		o.emit(edgeProperty, d.str.id(f.Name), refs[k])
	}
	if m.isJSObject(e.jsType) {
		for k := int(tm.EndOffset/8) - 1; k >= 0 && k < len(refs); k++ {
			if refs[k] >= 0 {
				o.emit(edgeProperty, d.str.id("InlineProperty"), refs[k])
			}
		}
	}
}

// countNamed counts the objects the string section names (addresses of w
// bytes), without reading the names.
func (d *dyn) countNamed(w int64) int64 {
	f := d.f
	if f.Sections[3] == 0 {
		return 0
	}
	r := f.seq(int64(f.Sections[2]), f.DumpSize, 64<<10)
	n, _ := r.u32()
	if _, ok := r.u32(); !ok {
		return 0
	}
	var total int64
	for range n {
		l, _ := r.u32()
		c, ok := r.u32()
		if !ok || int64(c)*w > f.DumpSize-r.off || int64(l) > f.DumpSize-r.off || !r.skip(int64(c)*w+int64(l)+1) {
			break
		}
		total += int64(c)
	}
	return total
}

// readStrings reads the string section: for each string, the addresses of
// the objects it names (of w bytes), then its bytes. Each name is interned
// in order, and fn is called for each object it names.
func (d *dyn) readStrings(w int64, fn func(addr uint64, id uint32, s string)) {
	f := d.f
	off := int64(f.Sections[2])
	if f.Sections[3] == 0 {
		return // outside the dump (Open said so)
	}
	r := f.seq(off, f.DumpSize, 256<<10)
	n, _ := r.u32()
	if _, ok := r.u32(); !ok {
		d.problem(ProblemTruncated, off, "string section header truncated; objects keep their default names")
		return
	}
	var addrs []uint64
	var buf []byte
	for i := uint32(0); i < n; i++ {
		at := r.off
		l, _ := r.u32()
		c, ok := r.u32()
		if !ok || int64(c)*w > f.DumpSize-r.off || int64(l) > f.DumpSize-r.off {
			d.problem(ProblemTruncated, at, "string section truncated after %d of %d strings; the other objects keep their default names", i, n)
			return
		}
		addrs = addrs[:0]
		for range c {
			var a uint64
			if w == 8 {
				a, ok = r.u64()
			} else {
				var v uint32
				v, ok = r.u32()
				a = uint64(v)
			}
			addrs = append(addrs, a)
		}
		buf = slices.Grow(buf[:0], int(l)+1)[:l+1]
		if !r.read(buf) {
			d.problem(ProblemTruncated, at, "string section truncated after %d of %d strings; the other objects keep their default names", i, n)
			return
		}
		s := cstr(buf)
		id := d.str.id(s)
		for _, a := range addrs {
			fn(a, id, s)
		}
	}
}
