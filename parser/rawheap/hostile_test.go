package rawheap

import (
	"encoding/binary"
	"fmt"
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
