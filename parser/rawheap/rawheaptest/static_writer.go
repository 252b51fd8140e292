// Package rawheaptest writes ArkTS .rawheap dumps from DevTools/V8 heap
// snapshots the way the ArkTS runtimes write them, for tests, fixtures and
// examples. It must not be imported by the decoders it feeds.
package rawheaptest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// V8Heap is a DevTools/V8 heap snapshot (.heapsnapshot JSON) as the
// generators read it.
type V8Heap struct {
	Snapshot struct {
		Meta struct {
			NodeFields []string          `json:"node_fields"`
			NodeTypes  []json.RawMessage `json:"node_types"`
			EdgeFields []string          `json:"edge_fields"`
			EdgeTypes  []json.RawMessage `json:"edge_types"`
		} `json:"meta"`
	} `json:"snapshot"`
	Nodes   []int64  `json:"nodes"`
	Edges   []int64  `json:"edges"`
	Strings []string `json:"strings"`

	nodeTypes, edgeTypes []string
	nf, ef               int
	firstEdge            []int // per node, index of its first edge (in edges, not values)
}

// ReadV8Heap decodes a heap snapshot's JSON.
func ReadV8Heap(b []byte) (*V8Heap, error) {
	h := &V8Heap{}
	if err := json.Unmarshal(b, h); err != nil {
		return nil, err
	}
	m := h.Snapshot.Meta
	if len(m.NodeTypes) == 0 || len(m.EdgeTypes) == 0 {
		return nil, fmt.Errorf("heap snapshot without node or edge types")
	}
	if err := json.Unmarshal(m.NodeTypes[0], &h.nodeTypes); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(m.EdgeTypes[0], &h.edgeTypes); err != nil {
		return nil, err
	}
	h.nf, h.ef = len(m.NodeFields), len(m.EdgeFields)
	if h.nf < 5 || h.ef != 3 || len(h.Nodes)%h.nf != 0 || len(h.Edges)%3 != 0 {
		return nil, fmt.Errorf("unexpected heap snapshot layout")
	}
	n := len(h.Nodes) / h.nf
	h.firstEdge = make([]int, n+1)
	for i := range n {
		h.firstEdge[i+1] = h.firstEdge[i] + int(h.Nodes[i*h.nf+4])
	}
	if h.firstEdge[n]*3 != len(h.Edges) {
		return nil, fmt.Errorf("edge counts do not add up to the edges")
	}
	return h, nil
}

// NodeCount is the number of nodes.
func (h *V8Heap) NodeCount() int { return len(h.Nodes) / h.nf }

func (h *V8Heap) nodeType(i int) string { return h.nodeTypes[h.Nodes[i*h.nf]] }
func (h *V8Heap) name(i int) string     { return h.Strings[h.Nodes[i*h.nf+1]] }

// ID is node i's V8 id.
func (h *V8Heap) ID(i int) uint64 { return uint64(h.Nodes[i*h.nf+2]) }

// Name is node i's name.
func (h *V8Heap) Name(i int) string { return h.name(i) }

func (h *V8Heap) selfSize(i int) uint32 { return uint32(h.Nodes[i*h.nf+3]) }

type v8Edge struct {
	typ  string
	name string // property name, or the index as text
	idx  int64
	to   int
}

func (h *V8Heap) edges(i int) []v8Edge {
	out := make([]v8Edge, 0, h.firstEdge[i+1]-h.firstEdge[i])
	for e := h.firstEdge[i]; e < h.firstEdge[i+1]; e++ {
		t := h.edgeTypes[h.Edges[3*e]]
		ni := h.Edges[3*e+1]
		ed := v8Edge{typ: t, idx: ni, to: int(h.Edges[3*e+2]) / h.nf}
		if t == "element" || t == "hidden" {
			ed.name = strconv.FormatInt(ni, 10)
		} else if ni >= 0 && ni < int64(len(h.Strings)) {
			ed.name = h.Strings[ni]
		}
		out = append(out, ed)
	}
	return out
}

// StaticOptions says how to write a static dump.
type StaticOptions struct {
	// MaxObjects keeps the first objects found from the roots (0: all).
	MaxObjects int
	// Hybrid writes the language byte of a hybrid pair's static file (2).
	Hybrid bool
	// Timestamp is the header's time (ms since the epoch); RecordTime the
	// first record's (the runtime's steady clock, ms).
	Timestamp, RecordTime uint64
	// XRefs are appended as XREF_EDGE records, after the classes.
	XRefs []XRef
	// Focus names V8 objects (by constructor) that a dump cut short by
	// MaxObjects keeps, with the path from a root to each.
	Focus []string
	// Session numbers the objects (nil: a session of this dump alone).
	Session *Session
	// BufferSize is the writer's record flush threshold (the runtime's 64 KiB when 0).
	BufferSize int
}

// XRef is a cross-VM reference of a hybrid pair.
type XRef struct {
	Dyn, Sta uint32
	Dir      uint8
}

// Field value and record constants of the static format (docs/format/rawheap.md#static-dumps-300).
const (
	fBoolean = 0x01
	fChar    = 0x02
	fFloat   = 0x03
	fDouble  = 0x04
	fByte    = 0x05
	fShort   = 0x06
	fInt     = 0x07
	fLong    = 0x08
	fObject  = 0x09
	fTagged  = 0x0B
	fWeak    = 0x0C

	tStrings  = 0x01
	tLoad     = 0x02
	tClass    = 0x0B
	tRoot     = 0x10
	tInstance = 0x14
	tArray    = 0x15
	tString   = 0x16
	tXRef     = 0x30
	tSummary  = 0xFE
)

// StaticObject is an object of a generated static dump, as the hybrid
// generator needs to know them.
type StaticObject struct {
	ID   uint32
	Node int // V8 node index
}

// staticGen maps a V8 heap onto the static runtime's objects: V8 strings
// become string objects, V8 internal arrays reference (or, for element
// stores, tagged) arrays, V8 code objects byte arrays, everything else an
// instance of a class named after the V8 node, whose fields are the node's
// named edges. Ids are V8's plus one (the runtime's ids are even and stable
// across the dumps of a session, as V8's are).
type staticGen struct {
	h       *V8Heap
	o       StaticOptions
	objects []int          // V8 node indexes, in the order they were found
	kept    map[int]uint32 // V8 node index → static id
	roots   []int
	classes []*genClass
	byName  map[string]*genClass
	strs    []string
	strIDs  map[string]uint32
	out     []byte
	rec     struct {
		tag   uint8
		count uint32
		body  []byte
		time  uint64
	}
}

type genClass struct {
	name, key string
	id        uint32
	super     *genClass
	fields    []genField // instance fields, the class's own then inherited
	fieldIdx  map[string]int
	methods   []string
	instances []int
	isArray   bool
	elemType  uint8
}

type genField struct {
	name string
	typ  uint8
}

// WriteStatic writes a static ("3.0.0") dump of a V8 heap as the static
// runtime's dumper writes one: header, string pool, roots, instance, string
// and array records, then the class records, cross-VM references and the
// heap summary, each batch flushed as a record when its body passes the
// buffer size. It returns the file and the objects written.
func WriteStatic(h *V8Heap, o StaticOptions) ([]byte, []StaticObject) {
	if o.BufferSize == 0 {
		o.BufferSize = 64 << 10
	}
	if o.Session == nil {
		o.Session = NewSession([]*V8Heap{h}, o)
	}
	g := newStaticGen(h, o)
	g.collect()
	g.makeClasses()
	g.write()
	objs := make([]StaticObject, 0, len(g.objects))
	for _, n := range g.objects {
		objs = append(objs, StaticObject{ID: g.kept[n], Node: n})
	}
	return g.out, objs
}

func newStaticGen(h *V8Heap, o StaticOptions) *staticGen {
	if o.Session == nil {
		o.Session = &Session{}
	}
	return &staticGen{h: h, o: o, kept: map[int]uint32{}, byName: map[string]*genClass{}, strIDs: map[string]uint32{}}
}

// Session numbers the objects of the dumps of one process as the static
// runtime's object id map does: even ids from 2, the same object (by V8 id)
// the same id in every dump, in the order V8 made them; the classes after
// the objects.
type Session struct {
	objects map[uint64]uint32
	classes map[string]uint32
}

// NewSession numbers the objects and classes that WriteStatic with options o
// writes of each heap.
func NewSession(heaps []*V8Heap, o StaticOptions) *Session {
	var ids []uint64
	keys := map[string]bool{}
	for _, h := range heaps {
		g := newStaticGen(h, o)
		g.collect()
		g.makeClasses()
		for _, n := range g.objects {
			ids = append(ids, h.ID(n))
		}
		for _, c := range g.classes {
			keys[c.key] = true
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	s := &Session{objects: make(map[uint64]uint32, len(ids)), classes: make(map[string]uint32, len(keys))}
	for i, id := range ids {
		s.objects[id] = uint32(2 * (i + 1))
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	for j, k := range sorted {
		s.classes[k] = uint32(2 * (len(ids) + j + 1))
	}
	return s
}

// collect walks the heap from the roots (the objects V8's synthetic nodes
// point at), breadth first, keeping at most MaxObjects objects: first from
// the roots that are objects, then from code roots, then from string roots
// (the string table is a root, and it holds most strings).
func (g *staticGen) collect() {
	h := g.h
	synthetic := func(i int) bool { return h.nodeType(i) == "synthetic" }
	rank := func(i int) int {
		switch t := h.nodeType(i); {
		case isV8String(t):
			return 2
		case t == "code":
			return 1
		}
		return 0
	}
	var levels [3][]int
	seen := map[int]bool{}
	for i := range h.NodeCount() {
		if !synthetic(i) {
			continue
		}
		for _, e := range h.edges(i) {
			if !synthetic(e.to) && !seen[e.to] {
				seen[e.to] = true
				levels[rank(e.to)] = append(levels[rank(e.to)], e.to)
			}
		}
	}
	var keep map[int]bool
	if len(g.o.Focus) > 0 && g.o.MaxObjects > 0 {
		// Keep the focused objects, the objects on their way from a root,
		// and what they refer to, however far the walk is cut short.
		parent := map[int]int{}
		order := g.walk(levels, 0, nil, parent, false)
		keep = map[int]bool{}
		for _, n := range order {
			if h.nodeType(n) != "object" || !slices.Contains(g.o.Focus, h.name(n)) {
				continue
			}
			keep[n] = true
			for m, ok := parent[n]; ok && !keep[m]; m, ok = parent[m] {
				keep[m] = true
			}
			for _, e := range h.edges(n) {
				if e.typ != "weak" && !synthetic(e.to) {
					keep[e.to] = true
				}
			}
		}
	}
	g.objects = g.walk(levels, g.o.MaxObjects, keep, nil, true)
	for _, n := range g.objects {
		g.kept[n] = g.o.Session.objects[h.ID(n)]
	}
	roots := g.roots[:0]
	for _, r := range g.roots {
		if _, ok := g.kept[r]; ok {
			roots = append(roots, r)
		}
	}
	g.roots = roots
}

// walk visits the heap from the roots of each level in turn, objects before
// other nodes, and returns the nodes it admits: all while there are fewer
// than max (0: no limit), then only those in keep. With parent set it
// records who first led to each node; with setRoots it sets g.roots.
func (g *staticGen) walk(levels [3][]int, max int, keep map[int]bool, parent map[int]int, setRoots bool) []int {
	h := g.h
	var out []int
	visited := map[int]bool{}
	for _, roots := range levels {
		var queue [2][]int
		push := func(n int) {
			visited[n] = true
			q := 0
			if t := h.nodeType(n); t != "object" && t != "closure" && t != "array" {
				q = 1
			}
			queue[q] = append(queue[q], n)
		}
		for _, r := range roots {
			if !visited[r] {
				push(r)
				if setRoots {
					g.roots = append(g.roots, r)
				}
			}
		}
		for {
			q := 0
			if len(queue[0]) == 0 {
				q = 1
			}
			if len(queue[q]) == 0 {
				break
			}
			n := queue[q][0]
			queue[q] = queue[q][1:]
			if max != 0 && len(out) >= max && !keep[n] {
				continue
			}
			out = append(out, n)
			for _, e := range h.edges(n) {
				if e.typ == "weak" || h.nodeType(e.to) == "synthetic" || visited[e.to] {
					continue
				}
				if parent != nil {
					parent[e.to] = n
				}
				push(e.to)
			}
		}
	}
	return out
}

func isV8String(t string) bool {
	return t == "string" || t == "concatenated string" || t == "sliced string"
}

// kind is how a V8 node is dumped.
func (g *staticGen) kind(n int) (string, uint8) {
	switch t := g.h.nodeType(n); {
	case isV8String(t):
		return "string", 0
	case t == "code":
		return "array", fByte
	case t == "array":
		if g.h.name(n) == "(object elements)" {
			return "array", fTagged
		}
		return "array", fObject
	}
	return "instance", 0
}

func (g *staticGen) class(name string) *genClass { return g.shapeClass(name, name) }

// shapeClass is the class of key, named name: V8 objects of one name but
// different shapes (maps) are classes of their own, as their fields differ.
func (g *staticGen) shapeClass(key, name string) *genClass {
	if c := g.byName[key]; c != nil {
		return c
	}
	c := &genClass{name: name, fieldIdx: map[string]int{}, key: key}
	c.id = g.o.Session.classes[key]
	g.byName[key] = c
	g.classes = append(g.classes, c)
	return c
}

// makeClasses gives every kept object its class: std.core.Object at the top,
// std.core.Class the class of class objects.
func (g *staticGen) makeClasses() {
	object := g.class("std.core.Object")
	meta := g.class("std.core.Class")
	meta.super = object
	meta.addField("superClass", fObject)
	meta.addField("name", fObject)
	str := g.class("std.core.String")
	str.super = object
	for _, n := range g.objects {
		switch k, elem := g.kind(n); k {
		case "string":
			str.instances = append(str.instances, n)
		case "array":
			name := g.h.name(n) + "[]"
			if elem == fByte {
				name = "std.core.Byte[]"
			}
			c := g.class(name)
			c.super, c.isArray, c.elemType = object, true, elem
			c.instances = append(c.instances, n)
		default:
			c := g.shapeClass(g.instanceKey(n))
			if c != object {
				c.super = object
			}
			c.instances = append(c.instances, n)
			for _, e := range g.h.edges(n) {
				switch {
				case e.typ == "element" || e.typ == "hidden":
					continue
				case e.typ == "weak":
					c.addField(e.name, fWeak)
				case g.h.nodeType(e.to) == "closure" && e.typ == "property":
					if !slices.Contains(c.methods, e.name) {
						c.methods = append(c.methods, e.name)
					}
				default:
					c.addField(e.name, fObject)
				}
			}
		}
	}
	// Every class has the fields of std.core.Object after its own: an
	// object's size and its V8 id.
	object.addField("selfSize", fInt)
	object.addField("v8id", fLong)
	for _, c := range g.classes {
		if c != object {
			for _, f := range object.fields {
				c.addField(f.name, f.typ)
			}
		}
	}
	// The string pool, in the order the runtime registers names: the class
	// name, its fields, its methods.
	for _, c := range g.classes {
		g.str(c.name)
		for _, f := range c.fields {
			g.str(f.name)
		}
		for _, f := range staticFieldNames {
			g.str(f)
		}
		for _, m := range c.methods {
			g.str(m)
		}
	}
}

func (c *genClass) addField(name string, typ uint8) {
	if _, ok := c.fieldIdx[name]; ok {
		return
	}
	c.fieldIdx[name] = len(c.fields)
	c.fields = append(c.fields, genField{name: name, typ: typ})
}

// staticFieldNames are the static fields every class gets, one of each value
// type, filled from its instances.
var staticFieldNames = []string{"instances", "totalSize", "meanSize", "meanSize32", "initial", "nonEmpty",
	"fieldCount", "methodCount", "first", "last"}

func (g *staticGen) str(s string) uint32 {
	if id, ok := g.strIDs[s]; ok {
		return id
	}
	id := uint32(len(g.strs))
	g.strIDs[s] = id
	g.strs = append(g.strs, s)
	return id
}

// Record writing, batched as the runtime's AbstractWriter does.

func (g *staticGen) begin(tag uint8) {
	g.end()
	g.rec.tag, g.rec.count, g.rec.body = tag, 0, g.rec.body[:0]
	g.rec.time = g.o.RecordTime
	g.o.RecordTime++
}

func (g *staticGen) finishItem() {
	g.rec.count++
	if len(g.rec.body) >= g.o.BufferSize {
		g.flush()
		g.rec.time = g.o.RecordTime
		g.o.RecordTime++
	}
}

func (g *staticGen) end() {
	if g.rec.count > 0 {
		g.flush()
	}
}

func (g *staticGen) flush() {
	var hdr [17]byte
	hdr[0] = g.rec.tag
	binary.LittleEndian.PutUint64(hdr[1:], g.rec.time)
	binary.LittleEndian.PutUint32(hdr[9:], uint32(len(g.rec.body)))
	binary.LittleEndian.PutUint32(hdr[13:], g.rec.count)
	g.out = append(g.out, hdr[:]...)
	g.out = append(g.out, g.rec.body...)
	g.rec.count, g.rec.body = 0, g.rec.body[:0]
}

func (g *staticGen) u8(v uint8)   { g.rec.body = append(g.rec.body, v) }
func (g *staticGen) u16(v uint16) { g.rec.body = binary.LittleEndian.AppendUint16(g.rec.body, v) }
func (g *staticGen) u32(v uint32) { g.rec.body = binary.LittleEndian.AppendUint32(g.rec.body, v) }
func (g *staticGen) u64(v uint64) { g.rec.body = binary.LittleEndian.AppendUint64(g.rec.body, v) }

func (g *staticGen) value(typ uint8, v uint64) {
	g.u8(typ)
	switch typ {
	case fBoolean, fByte:
		g.u8(uint8(v))
	case fChar, fShort:
		g.u16(uint16(v))
	case fInt, fFloat, fObject, fWeak:
		g.u32(uint32(v))
	default:
		g.u64(v)
	}
}

func (g *staticGen) write() {
	h := g.h
	var hdr [33]byte
	copy(hdr[:], "3.0.0")
	binary.LittleEndian.PutUint32(hdr[8:], 4)
	binary.LittleEndian.PutUint64(hdr[12:], g.o.Timestamp)
	hdr[20] = 1
	if g.o.Hybrid {
		hdr[20] = 2
	}
	binary.LittleEndian.PutUint32(hdr[21:], 33)
	binary.LittleEndian.PutUint32(hdr[25:], uint32(len(g.objects)+len(g.classes)))
	g.out = append(g.out, hdr[:]...)

	g.begin(tStrings)
	for id, s := range g.strs {
		g.u32(uint32(id))
		g.u32(uint32(len(s)))
		g.rec.body = append(g.rec.body, s...)
		g.finishItem()
	}
	g.begin(tRoot)
	for _, r := range g.roots {
		g.u8(0)
		g.u32(g.kept[r])
		g.finishItem()
	}
	// The class objects are objects too: instances of std.core.Class.
	meta := g.byName["std.core.Class"]
	g.begin(tInstance)
	for _, n := range g.objects {
		if k, _ := g.kind(n); k != "instance" {
			continue
		}
		c := g.classOf(n)
		values := make([]uint64, len(c.fields))
		present := make([]bool, len(c.fields))
		for _, e := range h.edges(n) {
			i, ok := c.fieldIdx[e.name]
			if !ok || present[i] || e.typ == "element" || e.typ == "hidden" {
				continue
			}
			if id, ok := g.kept[e.to]; ok && (e.typ != "weak") == (c.fields[i].typ == fObject) {
				values[i], present[i] = uint64(id), true
			}
		}
		values[c.fieldIdx["selfSize"]] = uint64(h.selfSize(n))
		values[c.fieldIdx["v8id"]] = h.ID(n)
		g.u32(g.kept[n])
		g.u32(c.id)
		g.u32(0)
		g.u32(h.selfSize(n))
		g.u16(uint16(len(c.fields)))
		for i, f := range c.fields {
			g.value(f.typ, values[i])
		}
		g.finishItem()
	}
	for _, c := range g.classes {
		g.u32(c.id)
		g.u32(meta.id)
		g.u32(0)
		g.u32(64)
		g.u16(uint16(len(meta.fields)))
		var super uint64
		if c.super != nil {
			super = uint64(c.super.id)
		}
		g.value(fObject, super)
		g.value(fObject, 0)
		g.value(fInt, 64)
		g.value(fLong, uint64(c.id))
		g.finishItem()
	}
	g.begin(tString)
	str := g.byName["std.core.String"]
	for _, n := range g.objects {
		if k, _ := g.kind(n); k != "string" {
			continue
		}
		s := h.name(n)
		g.u32(g.kept[n])
		g.u32(str.id)
		g.u32(h.selfSize(n))
		g.u32(uint32(len(s)))
		g.rec.body = append(g.rec.body, s...)
		g.finishItem()
	}
	g.begin(tArray)
	for _, n := range g.objects {
		if k, _ := g.kind(n); k != "array" {
			continue
		}
		c := g.classOf(n)
		g.u32(g.kept[n])
		g.u32(c.id)
		g.u32(0)
		g.u32(h.selfSize(n))
		switch c.elemType {
		case fByte:
			name := h.name(n)
			data := []byte(name)[:min(len(name), 12)]
			g.u32(uint32(len(data)))
			g.u8(fByte)
			g.rec.body = append(g.rec.body, data...)
		default:
			var elems []v8Edge
			for _, e := range h.edges(n) {
				if e.typ == "element" || e.typ == "internal" || e.typ == "hidden" {
					elems = append(elems, e)
				}
			}
			g.u32(uint32(len(elems)))
			g.u8(c.elemType)
			for _, e := range elems {
				id, ok := g.kept[e.to]
				if c.elemType == fObject {
					if !ok {
						id = 0
					}
					g.u32(id)
					continue
				}
				// Element stores: objects as references, numbers as
				// doubles, what the dump does not hold as a hole.
				switch {
				case !ok:
					g.value(fTagged, 0)
				case h.nodeType(e.to) == "number":
					g.value(fDouble, math.Float64bits(float64(h.selfSize(e.to))))
				case h.nodeType(e.to) == "hidden":
					g.value(fTagged, 0x0A)
				default:
					g.value(fObject, uint64(id))
				}
			}
		}
		g.finishItem()
	}
	g.end()

	g.begin(tLoad)
	for i, c := range g.classes {
		g.u32(uint32(i + 1))
		g.u32(c.id)
		g.u32(0)
		g.u32(g.str(c.name))
		g.u8(1)
		var flags uint32
		if c.isArray {
			flags = 1
		}
		g.u32(flags)
		g.finishItem()
	}
	g.begin(tClass)
	for _, c := range g.classes {
		g.classDump(c)
	}
	if len(g.o.XRefs) > 0 {
		g.begin(tXRef)
		for _, x := range g.o.XRefs {
			g.u32(x.Dyn)
			g.u32(x.Sta)
			g.u8(x.Dir)
			g.finishItem()
		}
	}
	g.begin(tSummary)
	g.u64(0)
	g.u64(uint64(len(g.objects)))
	g.u64(0)
	g.u64(0)
	g.u64(uint64(len(g.objects)))
	g.u64(0)
	g.u64(uint64(len(g.classes)))
	g.finishItem()
	g.end()
}

func (g *staticGen) classOf(n int) *genClass {
	switch k, elem := g.kind(n); k {
	case "string":
		return g.byName["std.core.String"]
	case "array":
		if elem == fByte {
			return g.byName["std.core.Byte[]"]
		}
		return g.byName[g.h.name(n)+"[]"]
	}
	key, _ := g.instanceKey(n)
	return g.byName[key]
}

// instanceKey is the class key and name of an object dumped as an instance:
// its V8 name and its named fields (a V8 object's shape; a V8 context's
// variables, which share one map).
func (g *staticGen) instanceKey(n int) (key, name string) {
	name = g.h.name(n)
	if name == "" {
		name = "(" + g.h.nodeType(n) + ")"
	}
	var b strings.Builder
	b.WriteString(name)
	for _, e := range g.h.edges(n) {
		if e.typ != "element" && e.typ != "hidden" {
			b.WriteString("\x00")
			b.WriteString(e.name)
		}
	}
	return b.String(), name
}

// classDump writes a CLASS_DUMP item: the static fields (one of each value
// type, from the class's instances), the instance fields and the methods.
func (g *staticGen) classDump(c *genClass) {
	var total uint64
	for _, n := range c.instances {
		total += uint64(g.h.selfSize(n))
	}
	count := uint64(len(c.instances))
	mean := 0.0
	if count > 0 {
		mean = float64(total) / float64(count)
	}
	r, _ := utf8.DecodeRuneInString(c.name)
	if r > 0xFFFF || r == utf8.RuneError {
		r = 0
	}
	type sv struct {
		typ uint8
		v   uint64
	}
	var first, last uint64
	if count > 0 {
		first, last = uint64(g.kept[c.instances[0]]), uint64(g.kept[c.instances[count-1]])
	}
	nonEmpty := uint64(0)
	if count > 0 {
		nonEmpty = 1
	}
	statics := []sv{{fInt, count}, {fLong, total}, {fDouble, math.Float64bits(mean)},
		{fFloat, uint64(math.Float32bits(float32(mean)))}, {fChar, uint64(r)}, {fBoolean, nonEmpty},
		{fShort, uint64(len(c.fields))}, {fByte, uint64(len(c.methods))}, {fObject, first}, {fWeak, last}}
	var super uint32
	if c.super != nil {
		super = c.super.id
	}
	size := uint32(0)
	if count > 0 {
		size = uint32(total / count)
	}
	g.u32(c.id)
	g.u32(0)
	g.u32(super)
	g.u32(0)
	g.u32(size)
	g.u16(uint16(len(statics)))
	for i, s := range statics {
		g.u32(g.str(staticFieldNames[i]))
		g.u8(s.typ)
		g.u32(uint32(8 * i))
		g.u16(0x0009) // public static
	}
	g.u16(uint16(len(c.fields)))
	for i, f := range c.fields {
		g.u32(g.str(f.name))
		g.u8(f.typ)
		g.u32(uint32(8 + 4*i))
		g.u16(0x0001)
	}
	g.u16(uint16(len(statics)))
	for _, s := range statics {
		g.value(s.typ, s.v)
	}
	g.u16(uint16(len(c.methods)))
	for _, m := range c.methods {
		g.u32(g.str(m))
	}
	g.finishItem()
}

// PairXRefs chooses n cross-VM references for a hybrid pair: between static
// objects (of heap sta) and objects of the dynamic heap dyn that have the
// same name, the direction cycling through dynamic→static, static→dynamic
// and both. A dynamic node id is the V8 id.
func PairXRefs(sta *V8Heap, objs []StaticObject, dyn *V8Heap, n int) []XRef {
	byName := map[string]int{}
	for i := range dyn.NodeCount() {
		if t := dyn.nodeType(i); t == "object" || t == "closure" {
			if _, ok := byName[dyn.name(i)]; !ok {
				byName[dyn.name(i)] = i
			}
		}
	}
	var out []XRef
	used := map[string]bool{}
	for _, o := range objs {
		if len(out) == n {
			break
		}
		name := sta.name(o.Node)
		d, ok := byName[name]
		if !ok || used[name] || sta.nodeType(o.Node) != "object" {
			continue
		}
		used[name] = true
		out = append(out, XRef{Dyn: uint32(dyn.ID(d)), Sta: o.ID, Dir: uint8(len(out) % 3)})
	}
	return out
}
