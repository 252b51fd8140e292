package rawheap

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// The static runtime's dump (ArkTS 1.2, version "3.0.0"): a 33-byte header
// and records until the end of the file, each a 17-byte record header and a
// body of count items of one tag (docs/format/rawheap.md#static-dumps-300).

// Static header and record layout.
const (
	staticHeaderSize    = 33
	staticIDSize        = 4
	staticRecordHdrSize = 17
	staticLangStatic    = 1
	staticLangHybrid    = 2

	// The translator's limits: a record whose body or item count is larger
	// is refused.
	staticMaxBody  = 256 << 20
	staticMaxItems = 64 << 10
	staticMaxStr   = 64 << 20
)

// Record tags.
const (
	tagStringUTF8     = 0x01
	tagLoadClass      = 0x02
	tagClassDump      = 0x0B
	tagRoot           = 0x10
	tagInstanceDump   = 0x14
	tagArrayDump      = 0x15
	tagStringDump     = 0x16
	tagXRef           = 0x30
	tagHeapSummary    = 0xFE
	tagPartialMarker  = 0xFF
	arrayPrefixSize   = 21
	instancePrefixLen = 18
)

// Field value types.
const (
	ftUnknown  = 0x00
	ftBoolean  = 0x01
	ftChar     = 0x02
	ftFloat    = 0x03
	ftDouble   = 0x04
	ftByte     = 0x05
	ftShort    = 0x06
	ftInt      = 0x07
	ftLong     = 0x08
	ftObject   = 0x09
	ftArray    = 0x0A
	ftTagged   = 0x0B
	ftWeakObj  = 0x0C
	xrefDynSta = 0
	xrefStaDyn = 1
	xrefBidir  = 2
)

// fieldSize is a field value's width on disk; 0 for types without one.
func fieldSize(t uint8) int {
	switch t {
	case ftBoolean, ftByte:
		return 1
	case ftChar, ftShort:
		return 2
	case ftInt, ftFloat, ftObject, ftArray, ftWeakObj:
		return 4
	case ftLong, ftDouble, ftTagged:
		return 8
	}
	return 0
}

func supportedFieldType(t uint8) bool { return t >= ftBoolean && t <= ftWeakObj }

func isRefType(t uint8) bool { return t == ftObject || t == ftArray || t == ftWeakObj }

type fieldValue struct {
	val uint64
	typ uint8
}

type staticClass struct {
	name           uint32 // dump string id
	instanceSize   uint32
	super          uint32
	staticFields   []uint32 // name ids
	staticValues   []fieldValue
	methods        []uint32 // name ids
	instanceFields []uint32 // name ids, inherited fields included
	off            int64    // offset of the (last) CLASS_DUMP item
}

// staticInstance is an INSTANCE_DUMP item; its field values are values
// vstart to vstart+vn of staticDump's value arrays (one set for all, so that
// the collected records hold no pointers for the garbage collector to scan).
type staticInstance struct {
	id, class, size uint32
	vstart          uint32
	vn              uint32
	off             int64 // the item's offset, for warnings
}

type staticArray struct {
	id, class, size, length uint32
	elemType                uint8
	elems                   []uint32     // reference arrays
	tagged                  []fieldValue // TAGGED arrays
	prim                    []byte       // primitive arrays: length × fieldSize bytes
	off                     int64
}

// staticString is a STRING_DUMP item; its content is
// staticDump.text[cstart:cstart+clen].
type staticString struct {
	id, class, size uint32
	cstart, clen    uint32
}

type staticXRef struct {
	dyn, sta uint32
	dir      uint8
	off      int64
}

// staticDump holds a "3.0.0" dump's records. The graph is built only once
// every record is read: the runtime writes the class records after the
// objects that use them.
type staticDump struct {
	timestamp uint64 // ms since the epoch
	language  uint8
	strs      map[uint32]string
	classes   map[uint32]*staticClass
	instances []staticInstance
	// The instances' field values, value i being of type vtyp[i] and, for
	// a type of 4 bytes or less, vlow[i]; for an 8-byte type vwide[vlow[i]]
	// (most values are references: 5 bytes each rather than 16).
	vtyp       []uint8
	vlow       []uint32
	vwide      []uint64
	text       []byte // the string objects' contents
	arrays     []staticArray
	stringObjs []staticString
	roots      []uint32
	xrefs      []staticXRef
	records    int // complete records read
	// objects is the number of object items (instances, arrays and string
	// objects) read; maxID the largest of their ids.
	objects int
	maxID   uint32
	sizes   recordSizes
	// spill, when set, holds the object records' bodies instead of the
	// slices above (instances, arrays, stringObjs, the values and text stay
	// empty): the builder reads them back, decoding them again, in each of
	// its passes (eachInstance, eachArray, eachString).
	spill *recordSpill
}

// ProblemKind says what was wrong with a part of a dump.
type ProblemKind int

// Kinds of problems in static dumps.
const (
	ProblemTruncated  ProblemKind = iota // a record header or body ends early
	ProblemBadRecord                     // a record's length, count or items do not fit
	ProblemUnknownTag                    // a record of a tag the decoder does not know, skipped
	ProblemDangling                      // a reference to an object the dump does not hold
	ProblemXRef                          // a cross-VM reference whose objects are not in the pair
	ProblemDynamic                       // a problem of a pair's dynamic dump (its decoder's warning)
	ProblemOutside                       // a section or object offset of a dynamic dump that lies outside it
)

// Problem is one problem found in a dump: what, where (byte offset from the
// start of the dump) and what was kept.
type Problem struct {
	Kind   ProblemKind
	Offset int64
	Msg    string
}

// errNotStatic is returned for a file that is not a static dump.
var errNotStatic = errors.New("not a static rawheap dump")

// staticReader reads a static dump's records from a stream.
type staticReader struct {
	r    *bufio.Reader
	off  int64
	d    *staticDump
	prob func(Problem)
	body bytes.Buffer
	// vis receives the object items as they are decoded: d itself, or,
	// when the records are spilled, a counter (and, reading them back, the
	// builder's pass).
	vis  objectVisitor
	vals []fieldValue // the current instance's field values
	// The item handed to vis, here rather than one allocation an item (vis
	// copies what it keeps). With transient set (vis keeps no array's
	// elements: the records are spilled), an array's elements are decoded
	// into the same buffers each time.
	inst      staticInstance
	str       staticString
	arr       staticArray
	transient bool
}

// objectVisitor receives the object items of a dump's records.
type objectVisitor interface {
	instance(rec *staticInstance, vals []fieldValue)
	array(rec *staticArray)
	stringObj(rec *staticString, text []byte)
}

// readStatic reads a static dump. A problem in a record is reported through
// prob and the complete items before it are kept; the error is set only when
// the header is not a static dump's.
func readStatic(r io.Reader, prob func(Problem)) (*staticDump, error) {
	return readStaticTo(r, prob, nil)
}

// readStaticTo is readStatic keeping the object records' bodies in spill,
// when set, rather than decoded in memory.
func readStaticTo(r io.Reader, prob func(Problem), spill *recordSpill) (*staticDump, error) {
	if prob == nil {
		prob = func(Problem) {}
	}
	sr := &staticReader{r: bufio.NewReaderSize(r, 64<<10), prob: prob,
		d: &staticDump{strs: map[uint32]string{}, classes: map[uint32]*staticClass{}, spill: spill}}
	sr.vis = sr.d
	if spill != nil {
		sr.vis, sr.transient = counter{sr.d}, true
	}
	if err := sr.header(); err != nil {
		return nil, err
	}
	for sr.record() {
	}
	if spill != nil && spill.err != nil {
		return nil, fmt.Errorf("static dump: keeping its object records in a scratch file: %w", spill.err)
	}
	return sr.d, nil
}

func (sr *staticReader) problem(kind ProblemKind, off int64, format string, args ...any) {
	sr.prob(Problem{Kind: kind, Offset: off, Msg: fmt.Sprintf(format, args...)})
}

// header reads and checks the 33-byte file header as the translator checks it.
func (sr *staticReader) header() error {
	var h [staticHeaderSize]byte
	n, err := io.ReadFull(sr.r, h[:])
	sr.off += int64(n)
	if err != nil {
		return fmt.Errorf("%w: header of %d bytes ends at offset %d", errNotStatic, staticHeaderSize, n)
	}
	v := h[:8]
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	} else {
		return fmt.Errorf("%w: version at offset 0 is not NUL-terminated", errNotStatic)
	}
	if major, ok := versionMajor(string(v)); !ok || major != 3 {
		return fmt.Errorf("%w: version %q at offset 0", errNotStatic, v)
	}
	le := binary.LittleEndian
	if id := le.Uint32(h[8:]); id != staticIDSize {
		return fmt.Errorf("static dump: identifier size %d at offset 8, want %d", id, staticIDSize)
	}
	sr.d.timestamp = le.Uint64(h[12:])
	sr.d.language = h[20]
	if sr.d.language != staticLangStatic && sr.d.language != staticLangHybrid {
		return fmt.Errorf("static dump: language %d at offset 20, want 1 (static) or 2 (hybrid)", sr.d.language)
	}
	if hs := le.Uint32(h[21:]); hs != staticHeaderSize {
		return fmt.Errorf("static dump: header size %d at offset 21, want %d", hs, staticHeaderSize)
	}
	if f := le.Uint32(h[29:]); f != 0 {
		return fmt.Errorf("static dump: feature flags %#x at offset 29 (none are known)", f)
	}
	return nil
}

// versionMajor parses a "major.minor.patch" version as the translator does.
func versionMajor(v string) (int, bool) {
	var parts [3]int
	i := 0
	for p, s := range bytes.Split([]byte(v), []byte(".")) {
		if p >= 3 || len(s) == 0 {
			return 0, false
		}
		n, err := strconv.Atoi(string(s))
		if err != nil || n < 0 {
			return 0, false
		}
		parts[p] = n
		i = p
	}
	if i != 2 {
		return 0, false
	}
	return parts[0], true
}

// record reads one record; false at the end of the dump or when the rest of
// the file cannot be read as records.
func (sr *staticReader) record() bool {
	start := sr.off
	var h [staticRecordHdrSize]byte
	n, err := io.ReadFull(sr.r, h[:])
	sr.off += int64(n)
	if err == io.EOF {
		return false
	}
	if err != nil {
		sr.problem(ProblemTruncated, start, "record header of %d bytes ends after %d", staticRecordHdrSize, n)
		return false
	}
	tag := h[0]
	length := binary.LittleEndian.Uint32(h[9:])
	count := binary.LittleEndian.Uint32(h[13:])
	if length > staticMaxBody {
		sr.problem(ProblemBadRecord, start, "record tag %#x: body length %d is over the limit of %d; the rest of the file is not read", tag, length, staticMaxBody)
		return false
	}
	sr.body.Reset()
	got, err := io.CopyN(&sr.body, sr.r, int64(length))
	sr.off += got
	body := sr.body.Bytes()
	bodyOff := start + staticRecordHdrSize
	truncated := err != nil
	if truncated {
		sr.problem(ProblemTruncated, start, "record tag %#x: body of %d bytes ends after %d; its complete items are kept", tag, length, got)
	}
	if count > length || count > staticMaxItems {
		sr.problem(ProblemBadRecord, start, "record tag %#x: %d items in a body of %d bytes; record skipped", tag, count, length)
		return !truncated
	}
	c := &cursor{b: body, base: bodyOff}
	if sp := sr.d.spill; sp != nil && (tag == tagInstanceDump || tag == tagArrayDump || tag == tagStringDump) {
		sp.add(tag, bodyOff, body, count, truncated)
	}
	var perr error
	switch tag {
	case tagStringUTF8:
		perr = sr.strings(c, count)
	case tagLoadClass:
		perr = sr.loadClass(c, count)
	case tagClassDump:
		perr = sr.classDump(c, count)
	case tagRoot:
		perr = sr.rootItems(c, count)
	case tagInstanceDump:
		perr = sr.instanceItems(c, count)
	case tagArrayDump:
		perr = sr.arrayItems(c, count, truncated)
	case tagStringDump:
		perr = sr.stringItems(c, count)
	case tagXRef:
		perr = sr.xrefItems(c, count)
	case tagHeapSummary, tagPartialMarker:
		c.p = len(c.b)
	default:
		sr.problem(ProblemUnknownTag, start, "record of unknown tag %#x (%d bytes) skipped", tag, length)
		c.p = len(c.b)
	}
	if truncated {
		return false
	}
	if perr != nil {
		sr.problem(ProblemBadRecord, perr.(*itemError).off, "record tag %#x (at offset %d): %v; the items before it are kept", tag, start, perr.(*itemError).msg)
	} else if c.p != len(c.b) {
		sr.problem(ProblemBadRecord, c.base+int64(c.p), "record tag %#x (at offset %d): %d bytes after its %d items are ignored", tag, start, len(c.b)-c.p, count)
	}
	if perr == nil {
		sr.d.records++
	}
	return true
}

// cursor reads little-endian values from a record body.
type cursor struct {
	b    []byte
	p    int
	base int64 // file offset of b[0]
	bad  bool  // a read ran past the end
}

type itemError struct {
	off int64
	msg string
}

func (e *itemError) Error() string { return e.msg }

func (c *cursor) fail(itemStart int, format string, args ...any) error {
	return &itemError{off: c.base + int64(itemStart), msg: fmt.Sprintf(format, args...)}
}

func (c *cursor) take(n int) []byte {
	if c.bad || n > len(c.b)-c.p {
		c.bad = true
		return nil
	}
	s := c.b[c.p : c.p+n]
	c.p += n
	return s
}

func (c *cursor) u8() uint8 {
	if s := c.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (c *cursor) u16() uint16 {
	if s := c.take(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if s := c.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

// uN reads an n-byte little-endian value (n ≤ 8).
func (c *cursor) uN(n int) uint64 {
	s := c.take(n)
	var v uint64
	for i := len(s) - 1; i >= 0; i-- {
		v = v<<8 | uint64(s[i])
	}
	return v
}

// truncatedItem is the error for an item that runs past its record's body.
func (c *cursor) truncatedItem(start int, what string) error {
	return c.fail(start, "%s at offset %d runs past the end of its record", what, c.base+int64(start))
}

func (sr *staticReader) strings(c *cursor, count uint32) error {
	for range count {
		at := c.p
		id, n := c.u32(), c.u32()
		if c.bad {
			return c.truncatedItem(at, "string")
		}
		if n > staticMaxStr || int(n) > len(c.b)-c.p {
			return c.fail(at, "string %d of %d bytes runs past the end of its record", id, n)
		}
		sr.d.strs[id] = string(c.take(int(n)))
	}
	return nil
}

func (sr *staticReader) class(id uint32) *staticClass {
	cl := sr.d.classes[id]
	if cl == nil {
		cl = &staticClass{}
		sr.d.classes[id] = cl
	}
	return cl
}

func (sr *staticReader) loadClass(c *cursor, count uint32) error {
	for range count {
		at := c.p
		c.u32() // class serial number
		id := c.u32()
		c.u32() // stack trace serial
		name := c.u32()
		c.u8()  // language
		c.u32() // class flags
		if c.bad {
			return c.truncatedItem(at, "LOAD_CLASS item")
		}
		sr.class(id).name = name
	}
	return nil
}

func (sr *staticReader) classDump(c *cursor, count uint32) error {
	for range count {
		at := c.p
		id := c.u32()
		c.u32() // stack trace serial
		super := c.u32()
		c.u32() // class loader
		size := c.u32()
		if c.bad {
			return c.truncatedItem(at, "CLASS_DUMP item")
		}
		// Read the whole item before touching the class, so that a bad one
		// leaves no trace.
		statics := fieldDescriptors(c)
		instance := fieldDescriptors(c)
		nv := int(c.u16())
		values := make([]fieldValue, 0, min(nv, len(c.b)))
		for range nv {
			t := c.u8()
			if c.bad {
				break
			}
			if !supportedFieldType(t) {
				return c.fail(at, "class %d: static field value of unknown type %#x", id, t)
			}
			values = append(values, fieldValue{typ: t, val: c.uN(fieldSize(t))})
		}
		nm := int(c.u16())
		methods := make([]uint32, 0, min(nm, len(c.b)))
		for range nm {
			methods = append(methods, c.u32())
		}
		if c.bad {
			return c.truncatedItem(at, "CLASS_DUMP item")
		}
		cl := sr.class(id)
		cl.instanceSize, cl.super, cl.off = size, super, c.base+int64(at)
		cl.staticFields = append(cl.staticFields, statics...)
		cl.instanceFields = append(cl.instanceFields, instance...)
		cl.staticValues = append(cl.staticValues, values...)
		cl.methods = append(cl.methods, methods...)
	}
	return nil
}

// fieldDescriptors reads a u16 count and that many 11-byte field descriptors,
// keeping their name ids.
func fieldDescriptors(c *cursor) []uint32 {
	n := int(c.u16())
	names := make([]uint32, 0, min(n, len(c.b)/11))
	for range n {
		name := c.u32()
		c.take(7) // type, offset, flags
		if c.bad {
			return nil
		}
		names = append(names, name)
	}
	return names
}

func (sr *staticReader) rootItems(c *cursor, count uint32) error {
	for range count {
		at := c.p
		c.u8() // root type
		id := c.u32()
		if c.bad {
			return c.truncatedItem(at, "ROOT item")
		}
		sr.d.roots = append(sr.d.roots, id)
	}
	return nil
}

func (sr *staticReader) instanceItems(c *cursor, count uint32) error {
	for range count {
		at := c.p
		rec := &sr.inst
		*rec = staticInstance{off: c.base + int64(at)}
		rec.id, rec.class = c.u32(), c.u32()
		c.u32() // stack trace serial
		rec.size = c.u32()
		n := int(c.u16())
		if c.bad {
			return c.truncatedItem(at, "INSTANCE_DUMP item")
		}
		sr.vals = sr.vals[:0]
		for range n {
			t := c.u8()
			if c.bad {
				break
			}
			if !supportedFieldType(t) {
				return c.fail(at, "object %d: field value of unknown type %#x", rec.id, t)
			}
			sr.vals = append(sr.vals, fieldValue{typ: t, val: c.uN(fieldSize(t))})
		}
		if c.bad {
			return c.truncatedItem(at, "INSTANCE_DUMP item")
		}
		sr.vis.instance(rec, sr.vals)
	}
	return nil
}

func (sr *staticReader) stringItems(c *cursor, count uint32) error {
	for range count {
		at := c.p
		rec := &sr.str
		*rec = staticString{id: c.u32(), class: c.u32(), size: c.u32()}
		n := c.u32()
		if c.bad {
			return c.truncatedItem(at, "STRING_DUMP item")
		}
		if n > staticMaxStr || int(n) > len(c.b)-c.p {
			return c.fail(at, "string object %d of %d bytes runs past the end of its record", rec.id, n)
		}
		sr.vis.stringObj(rec, c.take(int(n)))
	}
	return nil
}

func (sr *staticReader) xrefItems(c *cursor, count uint32) error {
	for range count {
		at := c.p
		x := staticXRef{off: c.base + int64(at), dyn: c.u32(), sta: c.u32(), dir: c.u8()}
		if c.bad {
			return c.truncatedItem(at, "XREF item")
		}
		if x.dir > xrefBidir {
			return c.fail(at, "cross-VM reference of unknown direction %d", x.dir)
		}
		sr.d.xrefs = append(sr.d.xrefs, x)
	}
	return nil
}

// arrayLayout is where an ARRAY_DUMP item's prefix and data are in its body.
type arrayLayout struct {
	prefix    int
	length    uint32
	elemType  uint8
	dataSize  int
	sizeKnown bool
}

// arrayItems reads an ARRAY_DUMP body as the translator does: the prefixes
// first, each item's data size from its element type; the data of element
// types without a width share what the known items leave, in proportion to
// their lengths (and the next prefix is read where such an item's data
// begins). When the layout does not fit, the items laid out before the
// problem are kept.
func (sr *staticReader) arrayItems(c *cursor, count uint32, truncated bool) error {
	body := c.b
	layouts := make([]arrayLayout, 0, count)
	known, unknownLen := 0, 0
	pos := 0
	var fault error
	for i := range int(count) {
		if pos+arrayPrefixSize > len(body) {
			fault = c.fail(pos, "ARRAY_DUMP item %d: prefix runs past the end of its record", i)
			break
		}
		l := arrayLayout{prefix: pos, length: binary.LittleEndian.Uint32(body[pos+16:]), elemType: body[pos+20]}
		pos += arrayPrefixSize
		switch {
		case l.elemType == ftTagged:
			p := pos
			for range l.length {
				if p >= len(body) {
					fault = c.fail(l.prefix, "ARRAY_DUMP item %d: tagged elements run past the end of its record", i)
					break
				}
				t := body[p]
				p++
				if !supportedFieldType(t) {
					fault = c.fail(l.prefix, "ARRAY_DUMP item %d: element of unknown type %#x", i, t)
					break
				}
				if fieldSize(t) > len(body)-p {
					fault = c.fail(l.prefix, "ARRAY_DUMP item %d: tagged elements run past the end of its record", i)
					break
				}
				p += fieldSize(t)
			}
			l.dataSize, l.sizeKnown = p-pos, true
		case isRefType(l.elemType):
			l.dataSize, l.sizeKnown = int(l.length)*4, true
		case fieldSize(l.elemType) > 0 && l.length > 0:
			l.dataSize, l.sizeKnown = int(l.length)*fieldSize(l.elemType), true
		case l.length > 0:
			unknownLen += int(l.length)
		default:
			l.sizeKnown = true
		}
		if fault != nil {
			break
		}
		if l.sizeKnown {
			if l.dataSize > len(body)-pos {
				fault = c.fail(l.prefix, "ARRAY_DUMP item %d: %d elements run past the end of its record", i, l.length)
				break
			}
			known += l.dataSize
			pos += l.dataSize
		}
		layouts = append(layouts, l)
	}
	if fault == nil && !truncated {
		prefixBytes := arrayPrefixSize * int(count)
		if prefixBytes > len(body) || known > len(body)-prefixBytes {
			fault = c.fail(0, "ARRAY_DUMP items do not fit their record")
		} else {
			rest := len(body) - prefixBytes - known
			for i := range layouts {
				if l := &layouts[i]; !l.sizeKnown && l.length > 0 && unknownLen > 0 {
					l.dataSize, l.sizeKnown = rest*int(l.length)/unknownLen, true
				}
			}
		}
	}
	for _, l := range layouts {
		if !l.sizeKnown {
			break
		}
		data := l.prefix + arrayPrefixSize
		if l.dataSize > len(body)-data {
			break
		}
		p := body[l.prefix:]
		rec := &sr.arr
		tagged, elems := rec.tagged[:0], rec.elems[:0]
		*rec = staticArray{id: binary.LittleEndian.Uint32(p), class: binary.LittleEndian.Uint32(p[4:]),
			size: binary.LittleEndian.Uint32(p[12:]), length: l.length, elemType: l.elemType, off: c.base + int64(l.prefix)}
		if !sr.transient {
			tagged, elems = nil, nil
		}
		d := body[data : data+l.dataSize]
		switch {
		case rec.elemType == ftTagged && rec.length > 0:
			rec.tagged = slices.Grow(tagged, int(rec.length))
			for q := 0; q < len(d); {
				t := d[q]
				w := fieldSize(t)
				rec.tagged = append(rec.tagged, fieldValue{typ: t, val: leValue(d[q+1 : q+1+w])})
				q += 1 + w
			}
		case isRefType(rec.elemType) && rec.length > 0:
			rec.elems = slices.Grow(elems, int(rec.length))[:rec.length]
			for j := range rec.elems {
				rec.elems[j] = binary.LittleEndian.Uint32(d[4*j:])
			}
		case rec.length > 0 && l.dataSize > 0 && fieldSize(rec.elemType) > 0:
			rec.prim = d
			if !sr.transient {
				rec.prim = bytes.Clone(d)
			}
		}
		sr.vis.array(rec)
		if rec.tagged == nil {
			rec.tagged = tagged
		}
		if rec.elems == nil {
			rec.elems = elems
		}
	}
	c.p = len(body)
	return fault
}

func leValue(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// instance, array and stringObj keep the object items in d (objectVisitor).
func (d *staticDump) instance(rec *staticInstance, vals []fieldValue) {
	rec.vstart = uint32(len(d.vtyp))
	for _, v := range vals {
		d.addValue(v.typ, v.val)
	}
	rec.vn = uint32(len(vals))
	d.instances = append(d.instances, *rec)
	counter{d}.instance(rec, vals)
}

func (d *staticDump) array(rec *staticArray) {
	d.arrays = append(d.arrays, *rec)
	counter{d}.array(rec)
}

func (d *staticDump) stringObj(rec *staticString, text []byte) {
	rec.cstart, rec.clen = uint32(len(d.text)), uint32(len(text))
	d.text = append(d.text, text...)
	d.stringObjs = append(d.stringObjs, *rec)
	counter{d}.stringObj(rec, text)
}

// recordSizes counts what a dump's object records make, to size the
// builder's arrays (staticBuilder.estimate).
type recordSizes struct {
	instances, arrays, stringObjs int
	values                        int // the instances' field values
	valueNodes                    int // nodes for primitive values and boxes
	laterEdges                    int // the edges of buffers and boxes
}

// counter counts the object items of a dump (objects, maxID, sizes): all
// that is kept of those of a dump whose records are spilled.
type counter struct{ d *staticDump }

func (c counter) instance(rec *staticInstance, vals []fieldValue) {
	sz := &c.d.sizes
	sz.instances++
	sz.values += len(vals)
	for _, v := range vals {
		if !isRefValue(v.typ) {
			sz.valueNodes++
		}
	}
	c.counted(rec.id)
}

func (c counter) array(rec *staticArray) {
	sz := &c.d.sizes
	sz.arrays++
	switch {
	case rec.elemType == ftTagged:
		sz.laterEdges += len(rec.tagged)
		for _, v := range rec.tagged {
			if !isRefValue(v.typ) {
				sz.valueNodes++
			}
		}
	case isRefType(rec.elemType):
		sz.laterEdges += len(rec.elems)
	case fieldSize(rec.elemType) > 0 && len(rec.prim) >= int(rec.length)*fieldSize(rec.elemType):
		// Only the elements the record holds make boxes: the length of an
		// element type without a width says nothing of its bytes.
		sz.valueNodes += 2 * int(rec.length)
		sz.laterEdges += 2 * int(rec.length)
	}
	c.counted(rec.id)
}

func (c counter) stringObj(rec *staticString, _ []byte) {
	c.d.sizes.stringObjs++
	c.counted(rec.id)
}

func (c counter) counted(id uint32) {
	c.d.objects++
	c.d.maxID = max(c.d.maxID, id)
}

// addValue appends a field value to the instances' value arrays.
func (d *staticDump) addValue(t uint8, v uint64) {
	d.vtyp = append(d.vtyp, t)
	if fieldSize(t) == 8 {
		d.vlow = append(d.vlow, uint32(len(d.vwide)))
		d.vwide = append(d.vwide, v)
		return
	}
	d.vlow = append(d.vlow, uint32(v))
}

// value is the instances' field value i.
func (d *staticDump) value(i uint32) fieldValue {
	t := d.vtyp[i]
	if fieldSize(t) == 8 {
		return fieldValue{typ: t, val: d.vwide[d.vlow[i]]}
	}
	return fieldValue{typ: t, val: uint64(d.vlow[i])}
}
