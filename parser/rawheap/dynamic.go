package rawheap

import (
	"fmt"
	"strconv"
	"strings"
)

// Summary is what Decode read.
type Summary struct {
	Objects int64 // entries of the object tables read
	Nodes   int64
	Edges   int64
	Strings int64
	// Problems counts what was dropped or could not be used; each was
	// also reported to the Warner.
	Problems int64
}

// Decode reads a dynamic (V1 or V2) dump opened with Open and hands its
// graph to g. An error means the file gave nothing usable; whatever was
// handed to g before it is to be dropped. Problems that leave the rest
// usable go to warn.
func Decode(f *File, g Graph, warn Warner) (Summary, error) {
	if warn == nil {
		warn = func(int64, string, ...any) {}
	}
	return DecodeProblems(f, g, func(p Problem) { warn(p.Offset, "%s", p.Msg) })
}

// DecodeProblems is Decode reporting each problem with its kind.
func DecodeProblems(f *File, g Graph, prob func(Problem)) (_ Summary, err error) {
	d := &dyn{f: f, m: f.Meta, g: g}
	d.prob = func(p Problem) {
		d.sum.Problems++
		if prob != nil {
			prob(p)
		}
	}
	for _, p := range f.Problems {
		d.prob(p)
	}
	d.str = newStrtab(func(s string) { g.String(s); d.sum.Strings++ })
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error after %d nodes and %d edges (please report it): %v", d.sum.Nodes, d.sum.Edges, p)
		}
	}()
	switch f.Kind {
	case DynamicV2:
		err = d.v2()
	default:
		err = d.v1()
	}
	return d.sum, err
}

// dyn is the state of one dynamic dump's decoding.
type dyn struct {
	f    *File
	m    *Metadata
	g    Graph
	prob func(Problem)
	str  *strtab
	sum  Summary

	roots   rootSet
	nodes   int64 // the index the next node gets
	edgeSum int64 // the edge counts of the nodes handed over
}

func (d *dyn) problem(kind ProblemKind, off int64, format string, args ...any) {
	d.prob(Problem{Kind: kind, Offset: off, Msg: fmt.Sprintf(format, args...)})
}

func (d *dyn) node(typ uint8, name uint32, id uint64, self, ec, native uint32) {
	d.g.Node(int64(typ), int64(name), int64(id), int64(self), int64(ec), int64(native))
	d.nodes++
	d.edgeSum += int64(ec)
	d.sum.Nodes++
}

func (d *dyn) edge(typ uint8, name uint32, to int64) {
	d.g.Edge(int64(typ), int64(name), to)
	d.sum.Edges++
}

// strtab numbers strings as the translator's string table does: in order
// of first insertion, from 3 (0, 1 and 2 are "<dummy>", "" and "GC roots";
// inserting "" again gives it a number of its own).
type strtab struct {
	ids  map[string]uint32
	next uint32
	emit func(string)
	// frozen is set for a second pass, which must not add strings.
	frozen bool
}

func newStrtab(emit func(string)) *strtab {
	for _, s := range []string{"<dummy>", "", "GC roots"} {
		emit(s)
	}
	return &strtab{ids: map[string]uint32{}, next: 3, emit: emit}
}

func (t *strtab) id(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	if t.frozen {
		panic(fmt.Sprintf("rawheap: string %q first seen in the second pass", s))
	}
	id := t.next
	t.ids[s] = id
	t.next++
	t.emit(s)
	return id
}

// rootSet is the root section: the root set, the four handle groups and
// the global-ref group (docs/format/rawheap.md#root-section).
type rootSet struct {
	roots                      []uint64
	local, global, vm, frame   []uint64
	refTracking                bool
	refs                       []globalRef
	synthEdges, metadataExists bool
}

type globalRef struct{ ref, obj uint64 }

// readRoots reads the root section with addresses of w bytes. The groups
// after the root set exist when the string section does not start right
// after it; which of them exist is inferred from the room left, as the
// translator does.
func (d *dyn) readRoots(w int64) error {
	f := d.f
	s0, s1, s2 := int64(f.Sections[0]), int64(f.Sections[1]), int64(f.Sections[2])
	if f.Sections[3] == 0 && s2 == s0+s1 {
		s2 = s0 + s1 // the string section lay outside: no room for root groups
	}
	r := f.seq(s0, f.DumpSize, 64<<10)
	n, _ := r.u32()
	unit, ok := r.u32()
	if !ok || int64(unit) != w {
		return errAt(s0, "root section header: count %d, address size %d (want %d)", n, unit, w)
	}
	if int64(n)*w > f.DumpSize-s0 {
		return errAt(s0, "root section claims %d roots, more than the dump holds", n)
	}
	addr := func(r *seq) (uint64, bool) {
		if w == 8 {
			return r.u64()
		}
		v, ok := r.u32()
		return uint64(v), ok
	}
	rs := &d.roots
	rs.roots = make([]uint64, 0, n)
	for range n {
		a, ok := addr(r)
		if !ok {
			return errAt(r.off, "root section truncated after %d of %d roots", len(rs.roots), n)
		}
		rs.roots = append(rs.roots, a)
	}
	gap := s2 - s0 - s1
	// group reads a group's u32 count and addresses at s0+s1+used.
	group := func(used int64) []uint64 {
		off := s0 + s1 + used
		g := f.seq(off, f.DumpSize, 64<<10)
		c, ok := g.u32()
		if _, ok2 := g.u32(); !ok || !ok2 {
			d.problem(ProblemTruncated, off, "root group header truncated")
			return nil
		}
		if c == 0 {
			return nil
		}
		if int64(c)*w > gap-used-4 {
			d.problem(ProblemBadRecord, off, "root group of %d addresses does not fit the root section; ignored", c)
			return nil
		}
		g = f.seq(off+4, f.DumpSize, 64<<10)
		list := make([]uint64, 0, c)
		for range c {
			a, ok := addr(g)
			if !ok {
				d.problem(ProblemTruncated, g.off, "root group truncated")
				return list
			}
			list = append(list, a)
		}
		return list
	}
	// Which groups exist is inferred from the room between the root set
	// and the string section, as the translator does.
	if gap > 4 {
		rs.local = group(0)
		rs.global = group(int64(len(rs.local))*w + 4)
	}
	if used := int64(len(rs.local)+len(rs.global))*w + 8; gap > used {
		rs.vm = group(used)
	}
	if used := int64(len(rs.local)+len(rs.global)+len(rs.vm))*w + 12; gap > used {
		rs.frame = group(used)
	}
	if used := int64(len(rs.local)+len(rs.global)+len(rs.vm)+len(rs.frame))*w + 16; gap > used {
		off := s0 + s1 + used
		g := f.seq(off, f.DumpSize, 64<<10)
		k, ok := g.u32()
		_, ok2 := g.u32()
		if ok && ok2 && k != 0xFFFFFFFF && gap-used >= 4+int64(k)*(8+w) {
			rs.refTracking = true
			g = f.seq(off+4, f.DumpSize, 64<<10)
			for range k {
				ref, ok := g.u64()
				obj, ok2 := addr(g)
				if !ok || !ok2 {
					d.problem(ProblemTruncated, g.off, "global-ref group truncated")
					break
				}
				rs.refs = append(rs.refs, globalRef{ref, obj})
			}
		}
	}
	rs.metadataExists = f.SpaceType != "" || f.HeapType != ""
	return nil
}

// rootNames interns the names of the inferred root nodes, in the
// translator's order, and returns them.
type rootNames struct {
	synthetic, subroot, local, global, vm, frame, metadata, gho uint32
	refs                                                        []uint32
	props                                                       [6]uint32 // value, name × 3
}

func (d *dyn) internRoots() rootNames {
	rs, t := &d.roots, d.str
	var n rootNames
	n.synthetic = t.id("SyntheticRoot")
	n.subroot = t.id("-subroot-")
	n.local = t.id("LocalHandleRoot[" + strconv.Itoa(len(rs.local)) + "]")
	n.global = t.id("GlobalHandleRoot[" + strconv.Itoa(len(rs.global)) + "]")
	n.vm = t.id("VMRoot[" + strconv.Itoa(len(rs.vm)) + "]")
	n.frame = t.id("FrameRoot[" + strconv.Itoa(len(rs.frame)) + "]")
	if rs.metadataExists {
		n.metadata = t.id("HeapMetadata")
	}
	if rs.refTracking {
		n.gho = t.id("GlobalHandleObject[" + strconv.Itoa(len(rs.refs)) + "]")
		for _, r := range rs.refs {
			n.refs = append(n.refs, t.id("ReferenceAddress:0x"+strconv.FormatUint(r.ref, 16)))
		}
	}
	if rs.metadataExists {
		f := d.f
		for i, kv := range [][2]string{{f.SpaceType, "spaceType"}, {f.HeapType, "heapType"}, {f.VMType, "vmType"}} {
			n.props[2*i] = t.id(kv[0])
			n.props[2*i+1] = t.id(kv[1])
		}
	}
	return n
}

func hasGlobal(s string) bool { return strings.Contains(s, "_GLOBAL") }
