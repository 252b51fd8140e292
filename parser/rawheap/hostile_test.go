package rawheap

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// hostileDump writes a dynamic dump (version "1.0.0" or "2.0.0") the way
// rawheaptest's writer lays one out: no roots and no names, one object
// section of n table entries (24 bytes each) followed by mem, then the
// section index and the metadata.
func hostileDump(version string, n int, table, mem []byte, meta string) []byte {
	le := binary.LittleEndian
	b := make([]byte, 16) // version, timestamp
	copy(b, version)
	unit := uint32(8)
	if version == "2.0.0" {
		unit = 4
	}
	var index []uint32
	section := func(body ...[]byte) {
		start := len(b)
		for _, p := range body {
			b = append(b, p...)
		}
		index = append(index, uint32(start), uint32(len(b)-start))
	}
	head := func(a, b uint32) []byte { return le.AppendUint32(le.AppendUint32(nil, a), b) }
	section(head(0, unit)) // roots
	section(head(0, 0))    // strings
	section(head(uint32(n), 24), table, mem)
	for _, v := range index {
		b = le.AppendUint32(b, v)
	}
	b = le.AppendUint32(le.AppendUint32(b, uint32(len(index))), 4)
	dump := len(b)
	b = append(b, meta...)
	return le.AppendUint32(le.AppendUint32(b, uint32(dump)), uint32(len(meta)))
}

// hostileMeta is metadata of the given types ("NAME" to type_list item);
// type_enum numbers them in order after INVALID (0).
func hostileMeta(names []string, items map[string]string, layout string) string {
	var enum, list []string
	enum = append(enum, `"INVALID":0`)
	for _, n := range names {
		enum = append(enum, fmt.Sprintf("%q:0", n))
		if it, ok := items[n]; ok {
			list = append(list, fmt.Sprintf(`{"name":%q,%s}`, n, it))
		}
	}
	return `{"version":"1.0","type_enum":{` + strings.Join(enum, ",") + `},"type_list":[` + strings.Join(list, ",") +
		`],"type_layout":{` + layout + `}}`
}

// TestMetadataInheritedFields: a type's inherited fields cost no more than
// the metadata that declares them (a parent of F fields under N types that
// add none is F fields, not N×F); inherited fields past what the metadata's
// size allows are an error at the metadata's offset.
func TestMetadataInheritedFields(t *testing.T) {
	meta := func(f, n, own int) string {
		var fields, types []string
		for i := range f {
			fields = append(fields, fmt.Sprintf(`{"name":"F%d","offset":%d,"size":8}`, i, 8+8*i))
		}
		var ownFields []string
		for i := range own {
			ownFields = append(ownFields, fmt.Sprintf(`{"name":"G%d","offset":%d,"size":8}`, i, 8*i))
		}
		for j := range n {
			types = append(types, fmt.Sprintf(`{"name":"T%d","parents":["B"],"offsets":[%s]}`, j, strings.Join(ownFields, ",")))
		}
		return `{"version":"1.0","type_enum":{},"type_list":[{"name":"B","parents":[],"offsets":[` + strings.Join(fields, ",") +
			`],"end_offset":` + fmt.Sprint(8+8*f) + `},` + strings.Join(types, ",") + `]}`
	}
	for _, c := range []struct {
		name        string
		f, n, own   int
		err         string
		fields, end int // of each T
	}{
		{name: "sound: two levels", f: 3, n: 2, own: 1, fields: 4, end: 32},
		{name: "children add no field", f: 300, n: 300, own: 0, fields: 300, end: 2408},
		{name: "children add a field each", f: 300, n: 300, own: 1,
			err: "type_list: the types' fields with those they inherit number more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			js := meta(c.f, c.n, c.own)
			m, err := ParseMetadata([]byte(js))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				// Open names the metadata's offset.
				b := hostileDump("2.0.0", 0, nil, nil, js)
				_, err := Open(strings.NewReader(string(b)), int64(len(b)))
				if want := fmt.Sprintf("offset %d: metadata: %s", len(b)-8-len(js), c.err); err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("Open: %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := m.byName["B"]
			total := 0
			for j := range c.n {
				tm := m.byName[fmt.Sprintf("T%d", j)]
				if len(tm.Fields) != c.fields || tm.EndOffset != uint32(c.end) || tm.Fields[0] != b.Fields[0] {
					t.Fatalf("T%d: %d fields, end %d, first %v; want %d, %d, %v", j, len(tm.Fields), tm.EndOffset, tm.Fields[0], c.fields, c.end, b.Fields[0])
				}
				if &tm.Fields[0] != &b.Fields[0] {
					total += len(tm.Fields) // a copy of its own
				}
			}
			if want := c.n * (c.f + c.own) * min(c.own, 1); total != want {
				t.Errorf("the types hold %d fields of their own, want %d", total, want)
			}
		})
	}
}

// TestV2FieldWalk: an object's fields are walked in offset order up to its
// size, once an offset: a type of F fields at one offset gives each object
// one edge for them, not F, and the metadata's duplicates are a problem.
func TestV2FieldWalk(t *testing.T) {
	le := binary.LittleEndian
	build := func(n, f int, offset func(k int) int) []byte {
		var fields []string
		for k := range f {
			fields = append(fields, fmt.Sprintf(`{"name":"F%d","offset":%d,"size":8}`, k, offset(k)))
		}
		meta := hostileMeta([]string{"B"}, map[string]string{"B": `"parents":[],"offsets":[` + strings.Join(fields, ",") + `],"end_offset":8`}, "")
		var table, mem []byte
		addr := func(i int) uint32 { return 0x10000 + 32*uint32(i) }
		for i := range n {
			table = le.AppendUint32(table, addr(i))
			table = le.AppendUint32(table, 28) // 3 slots after the hclass
			table = le.AppendUint64(table, uint64(i+1))
			table = le.AppendUint32(table, 0)
			table = le.AppendUint32(table, 1) // B
			// hclass: object 0; slots: a value, object 0, a value.
			mem = le.AppendUint32(mem, addr(0))
			mem = append(mem, 0x02)
			mem = le.AppendUint32(mem, addr(0))
			mem = append(mem, 0x02)
		}
		return hostileDump("2.0.0", n, table, mem, meta)
	}
	const n, f = 50, 40
	for _, c := range []struct {
		name   string
		offset func(k int) int
		edges  int64 // of the objects: an hclass edge each but object 0's, and the fields'
		msg    string
	}{
		{name: "one field per slot", offset: func(k int) int { return 8 + 8*k }, edges: n - 1 + n},
		{name: "fields out of order", offset: func(k int) int { return 8 + 8*(f-1-k) }, edges: n - 1 + n},
		{name: "all fields at one offset", offset: func(int) int { return 16 }, edges: n - 1 + n,
			msg: fmt.Sprintf("metadata: %d fields of the types' lists have the offset of an earlier field of their type", f-1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, probs, err := dynDecode(t, build(n, f, c.offset))
			if err != nil {
				t.Fatal(err)
			}
			const rootEdges = 4 // SyntheticRoot's to the four handle-root groups
			if g.edges != rootEdges+c.edges {
				t.Errorf("%d edges, want %d", g.edges, rootEdges+c.edges)
			}
			var msgs []string
			for _, p := range probs {
				msgs = append(msgs, p.Msg)
			}
			if got := strings.Join(msgs, "\n"); c.msg == "" && got != "" || !strings.Contains(got, c.msg) {
				t.Errorf("problems %q, want %q", got, c.msg)
			}
		})
	}
}

// v1Heap builds a V1 dump's object section: table entries and their memory.
type v1Heap struct {
	table []v1Entry
	mem   []byte
}

type v1Entry struct {
	addr      uint64
	size, off uint32 // off: of the object's memory in the section's
}

// put appends words to the memory and returns their offset.
func (h *v1Heap) put(words ...uint64) uint32 {
	off := uint32(len(h.mem))
	for _, w := range words {
		h.mem = binary.LittleEndian.AppendUint64(h.mem, w)
	}
	return off
}

// object adds a table entry for an object of the given words at a new
// place in memory; at adds one for memory already there.
func (h *v1Heap) object(addr uint64, words ...uint64) {
	h.at(addr, uint32(8*len(words)), h.put(words...))
}
func (h *v1Heap) at(addr uint64, size, off uint32) {
	h.table = append(h.table, v1Entry{addr, size, off})
}

func (h *v1Heap) dump(meta string) []byte {
	le := binary.LittleEndian
	var table []byte
	for i, e := range h.table {
		table = le.AppendUint64(table, e.addr)
		table = le.AppendUint64(table, uint64(i+1)) // id
		table = le.AppendUint32(table, e.size)
		table = le.AppendUint32(table, uint32(24*len(h.table))+e.off)
	}
	return hostileDump("1.0.0", len(h.table), table, h.mem, meta)
}

// v1Meta: hidden classes (the type in BitField), GLOBAL_ENV, JS_OBJECT with
// its Properties, TAGGED_DICTIONARY and TAGGED_ARRAY's Length and Data.
var v1Meta = v1MetaWith("")

// v1MetaWith is v1Meta with a sixth type, WIDE, of the given fields.
func v1MetaWith(wide string) string {
	return hostileMeta([]string{"HCLASS", "GLOBAL_ENV", "JS_OBJECT", "TAGGED_DICTIONARY", "TAGGED_ARRAY", "WIDE"}, map[string]string{
		"HCLASS":            `"parents":[],"offsets":[{"name":"BitField","offset":8,"size":4}],"end_offset":16`,
		"GLOBAL_ENV":        `"parents":[],"offsets":[],"end_offset":8`,
		"JS_OBJECT":         `"parents":[],"offsets":[{"name":"Properties","offset":8,"size":8}],"end_offset":16`,
		"TAGGED_DICTIONARY": `"parents":[],"offsets":[],"end_offset":8`,
		"TAGGED_ARRAY":      `"parents":[],"offsets":[{"name":"Length","offset":8,"size":4},{"name":"Data","offset":16,"size":8}],"end_offset":16`,
		"WIDE":              `"parents":[],"offsets":[` + wide + `],"end_offset":8`,
	}, `"Dictionary_layout":{"key_index":0,"value_index":1,"detail_index":2,"entry_size":3,"header_size":4},`+
		`"Type_range":{"js_object_first":"JS_OBJECT","js_object_last":"JS_OBJECT"}`)
}

// v1Classes adds the hidden classes: of hidden classes (its own), of
// GLOBAL_ENV, JS_OBJECT and TAGGED_DICTIONARY, at 0x1000, 0x1010, … They
// have 3 edges: to the first, from the others. v1ClassesN adds n of them,
// the fifth WIDE's.
func (h *v1Heap) v1Classes() { h.v1ClassesN(4) }
func (h *v1Heap) v1ClassesN(n int) {
	for i := range uint64(n) {
		t := i + 1 // HCLASS, GLOBAL_ENV, JS_OBJECT, TAGGED_DICTIONARY
		if i == 4 {
			t = 6 // WIDE
		}
		h.object(0x1000+16*i, 0x1000, t)
	}
}

// TestV1SharedMemory: objects whose sizes run into the next object's
// memory (N GLOBAL_ENVs on one region of R words) lose their data but the
// last, with a problem at the first's memory: R edges, not N×R. An object
// whose memory lies before the previous one's loses its data, with a
// problem at its table entry.
func TestV1SharedMemory(t *testing.T) {
	for _, c := range []struct {
		name    string
		n       int
		shared  bool  // one region for all
		reverse bool  // the regions in the reverse of the table's order
		edges   int64 // of the objects: the classes' 3, and 1 + R-1 a GLOBAL_ENV that keeps its data
		msg     string
		off     int // of the problem, in the object section after its header
	}{
		{name: "one region each", n: 3, edges: 3 + 3*8},
		{name: "one region for all", n: 60, shared: true, edges: 3 + 8, off: 24*64 + 64,
			msg: "59 objects' sizes run into the memory of the object after them (the first's memory here); their data is lost"},
		{name: "regions in reverse", n: 2, reverse: true, edges: 3 + 8, off: 24 * 5,
			msg: "object 5 (id 6): memory offset 208 lies before the previous object's (272); its data is lost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h v1Heap
			h.v1Classes()
			// GLOBAL_ENV's edges are named by their index as if it were a
			// string's (the translator's): fewer than the strings.
			const r = 8
			words := make([]uint64, r)
			words[0] = 0x1010
			for k := 1; k < r; k++ {
				words[k] = 0x1000
			}
			regions := []uint32{h.put(words...)}
			for i := range c.n {
				if !c.shared && i > 0 {
					regions = append(regions, h.put(words...))
				}
			}
			if c.reverse {
				slices.Reverse(regions)
			}
			for i := range c.n {
				h.at(0x2000+8*uint64(i), 8*r, regions[min(i, len(regions)-1)])
			}
			b := h.dump(v1Meta)
			g, probs, err := dynDecode(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if g.edges != 4+c.edges {
				t.Errorf("%d edges, want %d", g.edges, 4+c.edges)
			}
			checkProblem(t, b, probs, c.msg, c.off)
		})
	}
}

// checkProblem checks that the problems are one with msg at the object
// section's memory offset off, or none for msg "".
func checkProblem(t *testing.T, b []byte, probs []Problem, msg string, off int) {
	t.Helper()
	if msg == "" {
		if len(probs) > 0 {
			t.Errorf("problems %+v, want none", probs)
		}
		return
	}
	f, err := Open(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := int64(f.Sections[4]) + 8 + int64(off)
	if len(probs) != 1 || probs[0].Msg != msg || probs[0].Offset != want {
		t.Errorf("problems %+v, want %q at %d", probs, msg, want)
	}
}

// TestV1SharedDictionary: N JS objects with the same properties dictionary
// of D entries: its entries are the first's edges only (D, not N×D), with a
// problem at the second's memory.
func TestV1SharedDictionary(t *testing.T) {
	for _, c := range []struct {
		name  string
		n, d  int
		edges int64 // of the objects: the classes' 3, the dictionary's hclass edge, 2 a JS object, D
		msg   string
	}{
		{name: "one referrer", n: 1, d: 30, edges: 3 + 1 + 2 + 30},
		{name: "an empty dictionary shared", n: 40, d: 0, edges: 3 + 1 + 2*40},
		{name: "a dictionary shared", n: 40, d: 30, edges: 3 + 1 + 2*40 + 30,
			msg: "39 objects have the properties dictionary of an object before them (the first's memory here); its entries are that object's edges only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h v1Heap
			h.v1Classes()
			const dict = 0x3000
			words := []uint64{0x1030, 0, 0, 0, uint64(c.d), 0}
			for range c.d {
				words = append(words, 0x1000, 0x1000, 0) // key, value, details
			}
			h.object(dict, words...)
			for i := range c.n {
				h.object(0x4000+16*uint64(i), 0x1020, dict)
			}
			b := h.dump(v1Meta)
			g, probs, err := dynDecode(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if g.edges != 4+c.edges {
				t.Errorf("%d edges, want %d", g.edges, 4+c.edges)
			}
			// The second object's memory: after the classes' and the dictionary's.
			checkProblem(t, b, probs, c.msg, 24*(5+c.n)+4*16+len(words)*8+16)
		})
	}
}

// TestV1FieldWalk: an object's fields are walked in offset order up to its
// size, once an offset: fields past it, or F at one offset, give no more
// edges than its size holds.
func TestV1FieldWalk(t *testing.T) {
	const n, f = 30, 40
	fields := func(offset func(k int) int) string {
		var l []string
		for k := range f {
			l = append(l, fmt.Sprintf(`{"name":"F%d","offset":%d,"size":8}`, k, offset(k)))
		}
		return strings.Join(l, ",")
	}
	for _, c := range []struct {
		name   string
		fields string
		msg    string
	}{
		{name: "one field", fields: `{"name":"F","offset":8,"size":8}`},
		{name: "fields past the size", fields: fields(func(k int) int { return 8 + 8*k })},
		{name: "fields at one offset", fields: fields(func(int) int { return 8 }),
			msg: fmt.Sprintf("metadata: %d fields of the types' lists have the offset of an earlier field of their type; each offset gives one edge, the first field's", f-1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h v1Heap
			h.v1ClassesN(5)
			for i := range n {
				h.object(0x4000+16*uint64(i), 0x1040, 0x1000)
			}
			b := h.dump(v1MetaWith(c.fields))
			g, probs, err := dynDecode(t, b)
			if err != nil {
				t.Fatal(err)
			}
			// The classes' 4, an hclass edge and a field's a WIDE object.
			if want := int64(4 + 4 + 2*n); g.edges != want {
				t.Errorf("%d edges, want %d", g.edges, want)
			}
			var msgs []string
			for _, p := range probs {
				msgs = append(msgs, p.Msg)
			}
			if got := strings.Join(msgs, "\n"); got != c.msg {
				t.Errorf("problems %q, want %q", got, c.msg)
			}
		})
	}
}
