// Package rawheaptest writes ArkTS .rawheap files the way the runtime's
// writer does (docs/format/rawheap.md), from a V8 heap snapshot captured
// with node: each V8 object becomes an object of the ArkTS type closest to
// it, laid out at the offsets the runtime's metadata gives, with the hidden
// classes, layouts, property arrays and key strings an ArkTS heap has. The
// metadata travels inside each file, as the format requires.
//
// It is test data: it must not be used to read files.
package rawheaptest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sort"
	"strconv"

	"tracestreamer/parser/rawheap"
)

// Object is one object of the heap, as the V1 writer sees it.
type Object struct {
	Addr   uint64
	JSType uint8
	ID     uint64
	// Size is the object's size; a string's table entry gives its length
	// instead (Len).
	Size  uint32
	Len   uint32
	Words []uint64 // the object's words after its hclass (none for strings)
	// HClass is the address of its hidden class.
	HClass uint64
	Name   string // the name the string section gives it, "" for none
	Native uint32 // binding size of a native pointer
}

// Heap is a heap ready to be written.
type Heap struct {
	Objects []*Object
	// Roots is the root set; the groups are the handle roots.
	Roots                       []uint64
	Local, Global, VM, Frame    []uint64
	meta                        *rawheap.Metadata
	metaJSON                    []byte
	byAddr                      map[uint64]*Object
	next                        uint64
	strs                        map[string]*Object
	hclasses                    map[string]*Object
	metaHClass                  *Object
	emptyArray                  *Object
	arrayT, dictT, stringT, hcT uint8
}

// Tagged values (docs/format/rawheap.md#v1).
const (
	tagInt       = uint64(0xFFFF) << 48
	doubleOffset = uint64(1) << 48
	valueHole    = 0x05
	valueNull    = 0x03
	valueUndef   = 0x02
	weakTag      = 0x01
)

func (h *Heap) typ(name string) uint8 {
	t := h.meta.TypeOf(name)
	if t == 0 {
		panic("metadata lacks " + name)
	}
	return t
}

func (h *Heap) tm(t uint8) *rawheap.TypeMeta { return h.meta.Types[t] }

func (h *Heap) field(t uint8, name string) int {
	for _, f := range h.tm(t).Fields {
		if f.Name == name {
			return int(f.Offset)
		}
	}
	panic(fmt.Sprintf("type %s has no field %s", h.tm(t).Name, name))
}

// alloc places a new object of size bytes.
func (h *Heap) alloc(t uint8, size uint32, id uint64) *Object {
	size = (size + 7) &^ 7
	o := &Object{Addr: h.next, JSType: t, ID: id, Size: size}
	if size > 8 {
		o.Words = make([]uint64, size/8-1)
	}
	h.next += uint64(max(size, 8))
	h.Objects = append(h.Objects, o)
	h.byAddr[o.Addr] = o
	return o
}

// set writes a word at a byte offset of the object.
func (o *Object) set(off int, v uint64) { o.Words[off/8-1] = v }
func (o *Object) set32(off int, v uint32) {
	w := &o.Words[off/8-1]
	if off%8 == 0 {
		*w = *w&^0xFFFFFFFF | uint64(v)
	} else {
		*w = *w&0xFFFFFFFF | uint64(v)<<32
	}
}

// stableID gives an object the generator makes an id that depends only on
// what it is, so that it keeps its id across the dumps of one process.
func stableID(key string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(key))
	return (f.Sum64()&0x3FFFFFFF)*2 + 1<<31
}

func (h *Heap) array(elems []uint64, id uint64, t uint8) *Object {
	o := h.alloc(t, uint32(16+8*len(elems)), id)
	o.HClass = h.hclassOf(t, "", 0).Addr
	o.set32(8, uint32(len(elems)))
	for i, e := range elems {
		o.Words[1+i] = e
	}
	return o
}

// keyString returns the string object of a property key.
func (h *Heap) keyString(s string) *Object {
	if o, ok := h.strs[s]; ok {
		return o
	}
	o := h.alloc(h.stringT, 8, stableID("key:"+s))
	o.Len = uint32(len(s))
	o.HClass = h.hclassOf(h.stringT, "", 0).Addr
	o.Name = s
	h.strs[s] = o
	return o
}

// hclassOf returns the hidden class of objects of type t whose named
// properties are keys (joined by NUL), inl of them in the object.
func (h *Heap) hclassOf(t uint8, keys string, inl int) *Object {
	k := strconv.Itoa(int(t)) + "/" + strconv.Itoa(inl) + "/" + keys
	if o, ok := h.hclasses[k]; ok {
		return o
	}
	o := h.alloc(h.hcT, h.tm(h.hcT).EndOffset, stableID("hclass:"+k))
	h.hclasses[k] = o
	o.HClass = h.metaHClass.Addr
	o.set32(h.field(h.hcT, "BitField"), uint32(t))
	for _, f := range []string{"Proto", "Transitions", "Parent", "ProtoChangeMarker", "ProtoChangeDetails", "EnumCache", "DependentInfos"} {
		o.set(h.field(h.hcT, f), valueUndef)
	}
	o.set(h.field(h.hcT, "Proto"), valueNull)
	o.set(h.field(h.hcT, "BitField2"), 0)
	var names []string
	if keys != "" {
		names = splitKeys(keys)
	}
	start := int(h.tm(t).EndOffset / 8)
	o.set32(h.field(h.hcT, "BitField1"), uint32(len(names))&0x3FF|uint32(start)<<10|uint32(start+inl)<<15)
	if len(names) > 0 {
		elems := make([]uint64, 0, 2*len(names))
		for i, n := range names {
			attr := tagInt | uint64(i)<<5
			if i < inl {
				attr |= 1 << 4
			}
			elems = append(elems, h.keyString(n).Addr, attr)
		}
		o.set(h.field(h.hcT, "Layout"), h.array(elems, stableID("layout:"+k), h.arrayT).Addr)
	} else {
		o.set(h.field(h.hcT, "Layout"), h.emptyArray.Addr)
	}
	return o
}

func splitKeys(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// v8 is the part of a V8 heap snapshot the generator reads.
type v8 struct {
	Snapshot struct {
		Meta struct {
			NodeFields []string `json:"node_fields"`
			NodeTypes  []any    `json:"node_types"`
			EdgeFields []string `json:"edge_fields"`
			EdgeTypes  []any    `json:"edge_types"`
		} `json:"meta"`
	} `json:"snapshot"`
	Nodes   []int64  `json:"nodes"`
	Edges   []int64  `json:"edges"`
	Strings []string `json:"strings"`
}

// Subset keeps a part of a V8 heap: Max objects (0: all), the first ones
// a breadth-first walk from the root reaches, after those named in Focus and
// the objects on the walk's path to them.
type Subset struct {
	Max   int
	Focus []string
}

// FromV8 builds an ArkTS heap from a V8 heap snapshot, with the runtime's
// metadata.json.
func FromV8(r io.Reader, metaJSON []byte, sub Subset) (*Heap, error) {
	var s v8
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("heap snapshot: %w", err)
	}
	m, err := rawheap.ParseMetadata(metaJSON)
	if err != nil {
		return nil, err
	}
	h := &Heap{meta: m, metaJSON: metaJSON, byAddr: map[uint64]*Object{}, next: 0x1000_0000,
		strs: map[string]*Object{}, hclasses: map[string]*Object{}}
	h.arrayT, h.dictT, h.stringT, h.hcT = h.typ("TAGGED_ARRAY"), h.typ("TAGGED_DICTIONARY"), h.typ("LINE_STRING"), h.typ("HCLASS")
	// The hidden class of hidden classes is its own.
	h.metaHClass = h.alloc(h.hcT, h.tm(h.hcT).EndOffset, stableID("hclass:meta"))
	h.metaHClass.HClass = h.metaHClass.Addr
	h.metaHClass.set32(h.field(h.hcT, "BitField"), uint32(h.hcT))
	h.hclasses["meta"] = h.metaHClass
	// The empty array's hclass needs the empty array: make it by hand.
	h.emptyArray = h.alloc(h.arrayT, 16, stableID("empty array"))
	h.emptyArray.HClass = h.hclassOf(h.arrayT, "", 0).Addr
	h.metaHClass.set(h.field(h.hcT, "Layout"), h.emptyArray.Addr)
	h.build(&s, sub)
	return h, nil
}

func pos(list []string, name string) int {
	for i, n := range list {
		if n == name {
			return i
		}
	}
	return -1
}

func (h *Heap) build(s *v8, sub Subset) {
	meta := s.Snapshot.Meta
	nf := len(meta.NodeFields)
	fType, fName, fID, fSelf, fEC := pos(meta.NodeFields, "type"), pos(meta.NodeFields, "name"), pos(meta.NodeFields, "id"),
		pos(meta.NodeFields, "self_size"), pos(meta.NodeFields, "edge_count")
	ef := len(meta.EdgeFields)
	eType, eName, eTo := pos(meta.EdgeFields, "type"), pos(meta.EdgeFields, "name_or_index"), pos(meta.EdgeFields, "to_node")
	var ntypes, etypes []string
	if l, ok := meta.NodeTypes[0].([]any); ok {
		for _, v := range l {
			ntypes = append(ntypes, v.(string))
		}
	}
	if l, ok := meta.EdgeTypes[0].([]any); ok {
		for _, v := range l {
			etypes = append(etypes, v.(string))
		}
	}
	n := len(s.Nodes) / nf
	typeOf := func(i int) string { return ntypes[s.Nodes[i*nf+fType]] }
	nameOf := func(i int) string { return s.Strings[s.Nodes[i*nf+fName]] }
	type edge struct {
		typ, name string
		index     int64
		to        int
	}
	first := make([]int, n+1)
	for i := 0; i < n; i++ {
		first[i+1] = first[i] + int(s.Nodes[i*nf+fEC])
	}
	var edgesOf func(i int) []edge
	edgesOf = func(i int) []edge {
		var out []edge
		for e := first[i]; e < first[i+1] && (e+1)*ef <= len(s.Edges); e++ {
			t := etypes[s.Edges[e*ef+eType]]
			ed := edge{typ: t, to: int(s.Edges[e*ef+eTo]) / nf}
			if t == "element" || t == "hidden" {
				ed.index = s.Edges[e*ef+eName]
			} else {
				ed.name = s.Strings[s.Edges[e*ef+eName]]
			}
			out = append(out, ed)
		}
		return out
	}
	keep := make([]bool, n)
	if sub.Max <= 0 || sub.Max >= n {
		for i := range keep {
			keep[i] = true
		}
	} else {
		parent := make([]int, n)
		for i := range parent {
			parent[i] = -2
		}
		parent[0] = -1
		order := []int{0}
		for k := 0; k < len(order); k++ {
			for _, e := range edgesOf(order[k]) {
				if e.typ != "weak" && e.to < n && parent[e.to] == -2 {
					parent[e.to] = order[k]
					order = append(order, e.to)
				}
			}
		}
		kept := 0
		for _, i := range order {
			if pos(sub.Focus, nameOf(i)) < 0 {
				continue
			}
			for j := i; j >= 0 && !keep[j] && kept < sub.Max; j = parent[j] {
				keep[j] = true
				kept++
			}
		}
		for _, i := range order {
			if kept >= sub.Max {
				break
			}
			if !keep[i] {
				keep[i] = true
				kept++
			}
		}
	}
	// Pick each V8 object's ArkTS type and allocate it, in node order.
	jsObject, jsFunction, jsArray := h.typ("JS_OBJECT"), h.typ("JS_FUNCTION"), h.typ("JS_ARRAY")
	kind := map[string]uint8{"object": jsObject, "closure": jsFunction, "regexp": h.typ("JS_REG_EXP"),
		"native": h.typ("JS_NATIVE_POINTER"), "symbol": h.typ("SYMBOL"), "bigint": h.typ("BIGINT"),
		"string": h.stringT, "concatenated string": h.stringT, "sliced string": h.stringT}
	objs := make([]*Object, n)
	// Layouts first: an object's named properties decide its hclass and size.
	for i := 0; i < n; i++ {
		vt := typeOf(i)
		if vt == "synthetic" || vt == "number" || !keep[i] {
			continue
		}
		t, ok := kind[vt]
		if !ok {
			t = h.arrayT
		}
		if t == jsObject && nameOf(i) == "Array" {
			t = jsArray
		}
		id := uint64(s.Nodes[i*nf+fID])
		switch {
		case t == h.stringT:
			o := h.alloc(t, 8, id)
			o.Len = uint32(s.Nodes[i*nf+fSelf])
			o.HClass = h.hclassOf(t, "", 0).Addr
			objs[i] = o
		case t == h.arrayT:
			objs[i] = h.alloc(t, uint32(16+8*len(edgesOf(i))), id)
		case h.meta.Types[t].Name == "JS_NATIVE_POINTER":
			o := h.alloc(t, h.tm(t).EndOffset, id)
			o.Native = uint32(s.Nodes[i*nf+fSelf])
			o.set(h.field(t, "ExternalPointer"), 0x7f00_0000_0000+id*16)
			o.set32(h.field(t, "BindingSize"), o.Native)
			o.HClass = h.hclassOf(t, "", 0).Addr
			objs[i] = o
		default:
			objs[i] = &Object{JSType: t, ID: id} // placed below, once its properties are known
		}
	}
	value := func(to int, weak bool) uint64 {
		if to < 0 || to >= n {
			return 0
		}
		if o := objs[to]; o != nil && o.Addr != 0 {
			if weak {
				return o.Addr | weakTag
			}
			return o.Addr
		}
		if typeOf(to) == "number" {
			f, err := strconv.ParseFloat(nameOf(to), 64)
			switch {
			case err != nil:
				return valueUndef
			case f == math.Trunc(f) && math.Abs(f) < 1<<31:
				return tagInt | uint64(uint32(int32(f)))
			default:
				return math.Float64bits(f) + doubleOffset
			}
		}
		return 0
	}
	// Objects with named properties: hclass, inline slots, properties array
	// or dictionary, elements.
	type placed struct {
		i     int
		o     *Object
		props []edge
		elems []uint64
		other []edge
	}
	var later []placed
	for i := 0; i < n; i++ {
		o := objs[i]
		if o == nil || o.Addr != 0 {
			continue
		}
		p := placed{i: i, o: o}
		seen := map[string]bool{}
		for _, e := range edgesOf(i) {
			switch {
			case e.typ == "property" && !seen[e.name]:
				seen[e.name] = true
				p.props = append(p.props, e)
			case e.typ == "element":
				p.elems = append(p.elems, 0)
				p.other = append(p.other, edge{typ: "element", to: e.to})
			default:
				p.other = append(p.other, e)
			}
		}
		t := o.JSType
		if !(t >= h.meta.ObjectFirst && t <= h.meta.ObjectLast) {
			p.other = append(p.props, p.other...)
			p.props = nil
		}
		inl := min(len(p.props), 4)
		dict := len(p.props) > 24
		var keys string
		if !dict {
			for k, e := range p.props {
				if k > 0 {
					keys += "\x00"
				}
				keys += e.name
			}
		} else {
			inl = 0
		}
		no := h.alloc(t, h.tm(t).EndOffset+uint32(8*inl), o.ID)
		no.HClass = h.hclassOf(t, keys, inl).Addr
		objs[i] = no
		p.o = no
		later = append(later, p)
	}
	// Fill the objects now that every address is known.
	for i := 0; i < n; i++ {
		o := objs[i]
		if o == nil || o.JSType != h.arrayT {
			continue
		}
		o.HClass = h.hclassOf(h.arrayT, "", 0).Addr
		es := edgesOf(i)
		o.set32(8, uint32(len(es)))
		for k, e := range es {
			o.Words[1+k] = value(e.to, e.typ == "weak")
		}
	}
	for _, p := range later {
		o, t := p.o, p.o.JSType
		tm := h.tm(t)
		o.Name = nameOf(p.i)
		isJS := t >= h.meta.ObjectFirst && t <= h.meta.ObjectLast
		if !isJS {
			o.Name = ""
			k := 0
			for _, f := range tm.Fields {
				if f.Size == 8 && k < len(p.other) {
					o.set(int(f.Offset), value(p.other[k].to, p.other[k].typ == "weak"))
					k++
				}
			}
			continue
		}
		if len(p.props) > 24 {
			// Dictionary mode: [entries, deleted, capacity, next] then
			// {key, value, details} entries, one left empty.
			capacity := len(p.props) + 1
			data := []uint64{tagInt | uint64(len(p.props)), tagInt, tagInt | uint64(capacity), valueUndef}
			for _, e := range p.props {
				data = append(data, h.keyString(e.name).Addr, value(e.to, false), tagInt)
			}
			data = append(data, valueUndef, valueUndef, valueUndef)
			o.set(h.field(t, "Properties"), h.array(data, stableID(fmt.Sprintf("dict:%d", o.ID)), h.dictT).Addr)
		} else {
			inl := min(len(p.props), 4)
			for k := 0; k < inl; k++ {
				o.set(int(tm.EndOffset)+8*k, value(p.props[k].to, false))
			}
			if rest := p.props[inl:]; len(rest) > 0 {
				vals := make([]uint64, len(rest))
				for k, e := range rest {
					vals[k] = value(e.to, false)
				}
				o.set(h.field(t, "Properties"), h.array(vals, stableID(fmt.Sprintf("props:%d", o.ID)), h.arrayT).Addr)
			} else {
				o.set(h.field(t, "Properties"), h.emptyArray.Addr)
			}
		}
		var elems []uint64
		var other []edge
		for _, e := range p.other {
			if e.typ == "element" {
				elems = append(elems, value(e.to, false))
			} else {
				other = append(other, e)
			}
		}
		if len(elems) > 0 {
			o.set(h.field(t, "Elements"), h.array(elems, stableID(fmt.Sprintf("elements:%d", o.ID)), h.arrayT).Addr)
		} else {
			o.set(h.field(t, "Elements"), h.emptyArray.Addr)
		}
		// The other references go to the type's own 8-byte fields.
		k := 0
		props, elemsOff := h.field(t, "Properties"), h.field(t, "Elements")
		for _, f := range tm.Fields {
			if f.Size != 8 || int(f.Offset) == props || int(f.Offset) == elemsOff || f.Name == "HashField" {
				continue
			}
			if k < len(other) {
				o.set(int(f.Offset), value(other[k].to, other[k].typ == "weak"))
				k++
			} else {
				o.set(int(f.Offset), valueUndef)
			}
		}
	}
	// Roots: what the synthetic nodes point to.
	seen := map[uint64]bool{}
	for i := 0; i < n; i++ {
		if typeOf(i) != "synthetic" || !keep[i] {
			continue
		}
		group := &h.VM
		switch nameOf(i) {
		case "(Handle scope)":
			group = &h.Local
		case "(Global handles)", "(Traced handles)":
			group = &h.Global
		case "(Stack roots)":
			group = &h.Frame
		}
		for _, e := range edgesOf(i) {
			o := objs[e.to]
			if o == nil {
				continue
			}
			if !seen[o.Addr] {
				seen[o.Addr] = true
				h.Roots = append(h.Roots, o.Addr)
			}
			if i > 0 {
				*group = append(*group, o.Addr)
			}
		}
	}
	for _, g := range []*[]uint64{&h.Local, &h.Global, &h.VM, &h.Frame} {
		sort.Slice(*g, func(a, b int) bool { return (*g)[a] < (*g)[b] }) // the writer's sets are ordered
		*g = dedup(*g)
	}
}

func dedup(s []uint64) []uint64 {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
