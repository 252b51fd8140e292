// Package rawheap decodes ArkTS `.rawheap` heap dumps (docs/format/rawheap.md)
// into the object graph rawheap_translator would make of them: the same
// nodes, edges and strings, in the same order, so that the js_heap_* rows and
// the analysis written from them equal those of the translator's
// .heapsnapshot. It reads a file through an io.ReaderAt in passes of bounded
// memory: the object section is never held whole.
//
// It must not know SQL, rows or where the graph goes: it hands nodes, edges
// and strings to the Graph it is given.
package rawheap

import (
	"bytes"
	"fmt"
)

// Kind is what the first bytes of a file say it is.
type Kind uint8

const (
	NotRawheap Kind = iota
	// DynamicV1 is a dump of the dynamic runtime in layout "1.0.0",
	// DynamicV1NoVersion its first (2024) form, with an all-zero version
	// and no timestamp.
	DynamicV1
	DynamicV1NoVersion
	// DynamicV2 is the cropped dynamic layout "2.0.0".
	DynamicV2
	// Static is an ArkTS 1.2 (static runtime) dump, version 3.x.x.
	Static
	// Unknown is a version string of a layout this package does not read.
	Unknown
)

func (k Kind) String() string {
	return [...]string{"not a rawheap", "V1 (1.0.0)", "V1 (2024, no version)", "V2 (2.0.0)", "static (3.x.x)",
		"unknown version"}[k]
}

// VersionLen is the size of the version field every .rawheap starts with.
const VersionLen = 8

// Sniff recognises a .rawheap from its first bytes (at least 16 of them): a
// NUL-padded version "major.minor.build", or the 2024 form's eight zero
// bytes followed by a root section header whose address size is 8.
func Sniff(head []byte) Kind {
	if len(head) < 16 {
		return NotRawheap
	}
	v := head[:VersionLen]
	if bytes.Equal(v, make([]byte, VersionLen)) {
		if le32(head[12:]) == 8 {
			return DynamicV1NoVersion
		}
		return NotRawheap
	}
	major, ok := parseVersion(v)
	switch {
	case !ok:
		return NotRawheap
	case major == 1:
		return DynamicV1
	case major == 2:
		return DynamicV2
	case major == 3:
		return Static
	}
	return Unknown
}

// parseVersion reads "major.minor.build" NUL-padded to 8 bytes and returns
// its major number.
func parseVersion(v []byte) (major int, ok bool) {
	s := v
	if i := bytes.IndexByte(s, 0); i >= 0 {
		if len(bytes.Trim(s[i:], "\x00")) != 0 {
			return 0, false
		}
		s = s[:i]
	}
	parts := bytes.Split(s, []byte("."))
	if len(parts) != 3 {
		return 0, false
	}
	for i, p := range parts {
		if len(p) == 0 || len(p) > 3 {
			return 0, false
		}
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		if i == 0 {
			major = n
		}
	}
	return major, true
}

// VersionString returns the version field as text ("1.0.0" for the 2024
// form's zeros, as the translator reads it).
func VersionString(v []byte) string {
	if bytes.Equal(v, make([]byte, len(v))) {
		return "1.0.0"
	}
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	return string(v)
}

// Graph receives the decoded heap. Nodes come in index order, all before the
// first edge; strings in index order (0, 1, 2 are "<dummy>", "" and
// "GC roots", as in the translator's output), at any time, each before the
// first node or edge that uses it.
type Graph interface {
	// Reserve says how many nodes and edges are coming, to size arrays:
	// before the first node a guess of the nodes, before the first edge the
	// exact counts.
	Reserve(nodes, edges int64)
	// Node adds the next node: type (an index into NodeTypes), name (a
	// string index), id, self size, edge count and native size.
	Node(typ, name, id, self, edgeCount, native int64)
	// Edge adds the next edge: type (an index into EdgeTypes), name or
	// index, and the index of the node it points to. Edges belong to the
	// nodes in order, edge_count of them each, as in a heap snapshot.
	Edge(typ, nameOrIndex, to int64)
	// String adds the next string.
	String(s string)
}

// NodeArrays is what a Graph may also offer: the names and self sizes of
// the nodes it has been handed, indexed by node, as it keeps them (ok false
// when it keeps none). A decoder reads them in its second pass instead of
// keeping copies of its own; it never changes them.
type NodeArrays interface {
	NodeArrays() (name, self []uint32, ok bool)
}

// The node and edge types the translator writes in its snapshot's meta.
var (
	NodeTypes = []string{"hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
		"synthetic", "concatenated string", "slicedstring", "symbol", "bigint", "framework", "handle", "class"}
	EdgeTypes = []string{"context", "element", "property", "internal", "hidden", "shortcut", "weak", "xref"}
	// NodeFields and EdgeFields are the translator's field lists; a node
	// tuple has 8 values, so a to_node offset is 8 × the node index.
	NodeFields = []string{"type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness", "native_size"}
	EdgeFields = []string{"type", "name_or_index", "to_node"}
)

// Node types and edge types the decoder sets itself.
const (
	typeArray     = 1
	typeString    = 2
	typeObject    = 3
	typeClosure   = 5
	typeNumber    = 7 // HEAP_NUMBER: primitives, hashes, metadata values
	typeDefault   = 8 // "native": the translator's default
	typeSynthetic = 9
	typeFramework = 14
	typeRoot      = 15 // "handle"
	typeClass     = 16

	edgeElement  = 1
	edgeProperty = 2
	edgeInternal = 3
	edgeShortcut = 5
	edgeWeak     = 6
	edgeXRef     = 7
)

// Warner receives a problem that does not stop decoding; off is the byte
// offset in the file it concerns.
type Warner func(off int64, format string, args ...any)

// Error is a problem that stops decoding, at a byte offset of the file.
type Error struct {
	Off int64
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("offset %d: %s", e.Off, e.Msg) }

func errAt(off int64, format string, args ...any) error {
	return &Error{Off: off, Msg: fmt.Sprintf(format, args...)}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

// rootNodes hands over the nodes the translator infers before the objects'
// (docs/format/rawheap.md#what-a-dump-becomes): SyntheticRoot, the
// four handle-root groups, HeapMetadata when the header names the heap and
// GlobalHandleObject when the global refs are tracked. found tells the root
// addresses that are object nodes: the translator counts every root and
// handle in the edge counts but makes edges only to those, and here the
// counts are of the edges made, so that a dump naming objects it does not
// hold still gives a consistent graph (docs/compat.md). metaType is the
// metadata node's type; placeholder says that a dump without metadata has a
// node in its place all the same (V2, named placeholderName), where V1 has
// none.
func (d *dyn) rootNodes(rn rootNames, found func(addr uint64) bool, metaType uint8, placeholder bool, placeholderName uint32) {
	rs := &d.roots
	count := func(list []uint64) (n uint32) {
		for _, a := range list {
			if found(a) {
				n++
			}
		}
		return n
	}
	synthEC := count(rs.roots) + 4
	if rs.metadataExists {
		synthEC++
	}
	if rs.refTracking {
		synthEC++
	}
	d.node(typeSynthetic, rn.synthetic, 1, 0, synthEC, 0)
	d.node(typeRoot, rn.local, 0, 1, count(rs.local), 0)
	d.node(typeRoot, rn.global, 0, 1, count(rs.global), 0)
	d.node(typeRoot, rn.vm, 0, 1, count(rs.vm), 0)
	d.node(typeRoot, rn.frame, 0, 1, count(rs.frame), 0)
	switch {
	case rs.metadataExists:
		d.node(metaType, rn.metadata, 0, 1, 3, 0)
	case placeholder:
		d.node(metaType, placeholderName, 0, 0, 0, 0)
	}
	if rs.refTracking {
		d.node(typeRoot, rn.gho, 0, 1, uint32(len(rs.refs)), 0)
	}
}

// rootEdges hands over the edges of the nodes rootNodes made (placeholder
// as given to it): SyntheticRoot's to the four groups, HeapMetadata,
// GlobalHandleObject and the roots; then each group's to its objects. find
// gives the node of a root address, false for one that is not an object node.
func (d *dyn) rootEdges(rn rootNames, placeholder bool, find func(addr uint64) (int64, bool)) {
	rs := &d.roots
	for k := int64(1); k <= 4; k++ {
		d.edge(edgeShortcut, rn.subroot, k)
	}
	next := int64(5)
	if rs.metadataExists {
		d.edge(edgeShortcut, rn.subroot, next)
	}
	if rs.metadataExists || placeholder {
		next++
	}
	if rs.refTracking {
		d.edge(edgeShortcut, rn.subroot, next)
	}
	for _, a := range rs.roots {
		if to, ok := find(a); ok {
			d.edge(edgeShortcut, rn.subroot, to)
		}
	}
	for _, g := range [][]uint64{rs.local, rs.global, rs.vm, rs.frame} {
		k := uint32(0)
		for _, a := range g {
			if to, ok := find(a); ok {
				d.edge(edgeElement, k, to)
				k++
			}
		}
	}
}
