package rawheap

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Metadata is the runtime's metadata.json that a dynamic .rawheap carries
// (docs/format/rawheap.md#metadata): the JSType numbering (the key order of
// type_enum), each type's fields, and the layouts the V1 decoder needs.
type Metadata struct {
	Version string
	// Types is indexed by JSType.
	Types  []*TypeMeta
	byName map[string]*TypeMeta

	Dict                                             DictLayout
	StringFirst, StringLast, ObjectFirst, ObjectLast uint8

	objectType, bitField1, hclassLayout, jsObjectProperties, nativeBindingSize, arrayLength, arrayData Field
	// JSTypes of the types the decoders single out (0 when absent).
	nativePointer, dictionary, wrappedNapiObject, globalEnv uint8
	// The NativePointers field of JS_WRAPPED_NAPI_OBJECT and the
	// ExternalPointer of JS_NATIVE_POINTER (a V1 NAPI object's edges), and
	// whether the types have them.
	napiPointers, externalPointer       Field
	hasNapiPointers, hasExternalPointer bool
	// dupFields counts the fields left out of the types' edge fields for
	// an offset an earlier field of the type has (edgeFields).
	dupFields int
}

// TypeMeta describes one JSType, with the fields of its ancestors first and
// their offsets from the object's start (the translator's inheritance).
type TypeMeta struct {
	Name, NodeName, VisitType string
	NodeType                  uint8 // index into NodeTypes
	Fields                    []Field
	EndOffset                 uint32
	JSType                    uint8

	parent    string
	own       []Field
	ownEnd    uint32
	ownVisit  string
	generated bool
	// edgeFields are Fields sorted by offset, one a offset: what the
	// decoders walk (generate).
	edgeFields []Field
}

// Field is a field of a type: its name, offset and size in bytes.
type Field struct {
	Name         string
	Offset, Size uint32
}

// DictLayout is the layout of a dictionary's entries, in 8-byte words.
type DictLayout struct{ KeyIndex, ValueIndex, DetailIndex, EntrySize, HeaderSize uint32 }

// ParseMetadata decodes metadata.json. type_enum is read in its key order,
// which is the JSType numbering.
func ParseMetadata(b []byte) (*Metadata, error) {
	m := &Metadata{byName: map[string]*TypeMeta{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var list []json.RawMessage
	var layout struct {
		Dict  map[string]any `json:"Dictionary_layout"`
		Range map[string]any `json:"Type_range"`
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		if seen[key] {
			// cJSON finds the first of duplicate keys.
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		seen[key] = true
		switch key {
		case "type_enum":
			if err := m.typeEnum(dec); err != nil {
				return nil, fmt.Errorf("type_enum: %w", err)
			}
		case "type_list":
			if err := dec.Decode(&list); err != nil {
				return nil, fmt.Errorf("type_list: %w", err)
			}
		case "type_layout":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("type_layout: %w", err)
			}
			json.Unmarshal(raw, &layout) // absent parts stay zero, as in the translator
		case "version":
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, err
			}
			m.Version, _ = v.(string)
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
	}
	if !seen["version"] || m.Version == "" {
		return nil, errors.New("no version")
	}
	if !seen["type_list"] {
		return nil, errors.New("no type_list")
	}
	for _, raw := range list {
		m.typeListItem(raw)
	}
	// Each field is 2 bytes of JSON at least: a type list holds at most
	// len(b) fields of its own.
	if err := m.generate(len(b)); err != nil {
		return nil, err
	}
	u32 := func(v any) uint32 {
		f, ok := v.(float64)
		if !ok || f < 0 || f > 1<<32-1 {
			return 0
		}
		return uint32(f)
	}
	m.Dict = DictLayout{u32(layout.Dict["key_index"]), u32(layout.Dict["value_index"]), u32(layout.Dict["detail_index"]),
		u32(layout.Dict["entry_size"]), u32(layout.Dict["header_size"])}
	name := func(k string) uint8 { s, _ := layout.Range[k].(string); return m.TypeOf(s) }
	m.StringFirst, m.StringLast = name("string_first"), name("string_last")
	m.ObjectFirst, m.ObjectLast = name("js_object_first"), name("js_object_last")
	m.objectType = m.field("HCLASS", "BitField")
	m.bitField1 = m.field("HCLASS", "BitField1")
	m.hclassLayout = m.field("HCLASS", "Layout")
	m.jsObjectProperties = m.field("JS_OBJECT", "Properties")
	m.nativeBindingSize = m.field("JS_NATIVE_POINTER", "BindingSize")
	m.arrayLength = m.field("TAGGED_ARRAY", "Length")
	m.arrayData = m.field("TAGGED_ARRAY", "Data")
	m.nativePointer, m.dictionary = m.TypeOf("JS_NATIVE_POINTER"), m.TypeOf("TAGGED_DICTIONARY")
	m.wrappedNapiObject, m.globalEnv = m.TypeOf("JS_WRAPPED_NAPI_OBJECT"), m.TypeOf("GLOBAL_ENV")
	if m.wrappedNapiObject != 0 {
		m.napiPointers, m.hasNapiPointers = fieldNamed(m.meta(m.wrappedNapiObject), "NativePointers")
	}
	if m.nativePointer != 0 {
		m.externalPointer, m.hasExternalPointer = fieldNamed(m.meta(m.nativePointer), "ExternalPointer")
	}
	return m, nil
}

// typeEnum reads the type_enum object in key order: each key with a number
// value is the next JSType.
func (m *Metadata) typeEnum(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		var skip json.RawMessage
		return dec.Decode(&skip)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		n, ok := v.(json.Number)
		if !ok {
			continue
		}
		f, _ := n.Float64()
		tm := m.findOrCreate(k.(string))
		tm.NodeType = uint8(int64(f))
		tm.JSType = uint8(len(m.Types))
		m.Types = append(m.Types, tm)
	}
	_, err = dec.Token()
	return err
}

func (m *Metadata) findOrCreate(name string) *TypeMeta {
	if t, ok := m.byName[name]; ok {
		return t
	}
	t := &TypeMeta{Name: name, NodeType: typeDefault}
	m.byName[name] = t
	return t
}

func (m *Metadata) typeListItem(raw json.RawMessage) {
	var item struct {
		Name      *string           `json:"name"`
		NodeName  *string           `json:"node_name"`
		VisitType *string           `json:"visit_type"`
		EndOffset *json.Number      `json:"end_offset"`
		Parents   *[]any            `json:"parents"`
		Offsets   *[]map[string]any `json:"offsets"`
	}
	if json.Unmarshal(raw, &item) != nil {
		return
	}
	name := ""
	if item.Name != nil {
		name = *item.Name
	}
	t := m.findOrCreate(name)
	if item.NodeName != nil {
		t.NodeName = *item.NodeName
	}
	if item.VisitType != nil {
		t.ownVisit = *item.VisitType
	}
	if item.EndOffset != nil {
		if f, err := item.EndOffset.Float64(); err == nil && f >= 0 && f <= 1<<32-1 {
			t.ownEnd = uint32(f)
		}
	}
	if item.Parents != nil && item.Offsets != nil {
		if len(*item.Parents) > 0 {
			if p, ok := (*item.Parents)[0].(string); ok {
				m.findOrCreate(p)
				t.parent = p
			}
		}
		for _, o := range *item.Offsets {
			var f Field
			f.Name, _ = o["name"].(string)
			num := func(k string) uint32 {
				if v, ok := o[k].(float64); ok && v >= 0 && v <= 1<<32-1 {
					return uint32(v)
				}
				return 0
			}
			f.Offset, f.Size = num("offset"), num("size")
			t.own = append(t.own, f)
		}
	}
}

// generate gives each type its ancestors' fields, before its own, at
// offsets shifted by the ancestors' end offsets. A type whose ancestry ends
// within 256 levels builds on its parent's list, and shares it when it adds
// no fields of its own; together the lists may hold at most limit fields,
// so that metadata cannot ask for work out of proportion to its size (N
// types of one field each under a parent of F fields would hold N×F).
// Each type's edge fields are its fields sorted by offset, the first of each
// offset kept: what the decoders walk an object's fields in (the runtime's
// are sorted and distinct, so that the two are the same).
func (m *Metadata) generate(limit int) error {
	total := 0
	var gen func(t *TypeMeta) error
	gen = func(t *TypeMeta) error {
		if t.generated {
			return nil
		}
		t.generated = true
		t.Fields, t.EndOffset, t.VisitType = nil, 0, t.ownVisit
		var chain []*TypeMeta
		for p := t; p != nil && len(chain) < 256; p = m.byName[p.parent] {
			chain = append(chain, p)
			if p.parent == "" {
				break
			}
		}
		if last := chain[len(chain)-1]; len(chain) > 1 && last.parent == "" {
			// The ancestry ends: the parent's lists are its own ancestry's.
			p := chain[1]
			if err := gen(p); err != nil {
				return err
			}
			t.EndOffset = p.EndOffset + t.ownEnd
			if p.VisitType == "Array" {
				t.VisitType = p.VisitType
			}
			if len(t.own) == 0 {
				t.Fields, t.edgeFields = p.Fields, p.edgeFields
				return nil
			}
			if total += len(p.Fields) + len(t.own); total > limit {
				return errTooManyFields(limit)
			}
			t.Fields = make([]Field, len(p.Fields), len(p.Fields)+len(t.own))
			copy(t.Fields, p.Fields)
			for _, f := range t.own {
				t.Fields = append(t.Fields, Field{f.Name, f.Offset + p.EndOffset, f.Size})
			}
			m.edgeFields(t)
			return nil
		}
		for i := len(chain) - 1; i >= 0; i-- {
			p := chain[i]
			if total += len(p.own); total > limit {
				return errTooManyFields(limit)
			}
			for _, f := range p.own {
				t.Fields = append(t.Fields, Field{f.Name, f.Offset + t.EndOffset, f.Size})
			}
			t.EndOffset += p.ownEnd
			if p.ownVisit == "Array" {
				t.VisitType = p.ownVisit
			}
		}
		m.edgeFields(t)
		return nil
	}
	for _, t := range m.byName {
		t.generated = false
	}
	for _, t := range m.byName {
		if err := gen(t); err != nil {
			return err
		}
	}
	return nil
}

func errTooManyFields(limit int) error {
	return fmt.Errorf("type_list: the types' fields with those they inherit number more than %d, more than its size allows", limit)
}

// edgeFields sets t's edge fields: its fields sorted by offset, the first
// of each offset kept (t.Fields itself when they are so already). The
// fields left out are counted in m.dupFields.
func (m *Metadata) edgeFields(t *TypeMeta) {
	t.edgeFields = t.Fields
	if slices.IsSortedFunc(t.Fields, func(a, b Field) int { return cmp.Compare(a.Offset, b.Offset) }) {
		ok := true
		for i := 1; i < len(t.Fields) && ok; i++ {
			ok = t.Fields[i].Offset != t.Fields[i-1].Offset
		}
		if ok {
			return
		}
	}
	s := slices.Clone(t.Fields)
	slices.SortStableFunc(s, func(a, b Field) int { return cmp.Compare(a.Offset, b.Offset) })
	s = slices.CompactFunc(s, func(a, b Field) bool { return a.Offset == b.Offset })
	m.dupFields += len(t.Fields) - len(s)
	t.edgeFields = slices.Clip(s)
}

func (m *Metadata) field(typ, name string) Field {
	f, _ := fieldNamed(m.byName[typ], name)
	return f
}

// fieldNamed returns t's first field of a name; false if it has none.
func fieldNamed(t *TypeMeta, name string) (Field, bool) {
	if t != nil {
		for _, f := range t.Fields {
			if f.Name == name {
				return f, true
			}
		}
	}
	return Field{}, false
}

// TypeOf returns the JSType of a type name (0 if there is none).
func (m *Metadata) TypeOf(name string) uint8 {
	if t, ok := m.byName[name]; ok {
		return t.JSType
	}
	return 0
}

// meta returns the description of a JSType, nil if there is none.
func (m *Metadata) meta(t uint8) *TypeMeta {
	if int(t) < len(m.Types) {
		return m.Types[t]
	}
	return nil
}

func (m *Metadata) nodeType(t uint8) uint8 {
	if tm := m.meta(t); tm != nil {
		return tm.NodeType
	}
	return typeDefault
}

// nodeName is the name of a node no string names: the type's node_name,
// else its name in lower case.
func (m *Metadata) nodeName(t uint8) string {
	if tm := m.meta(t); tm != nil {
		if tm.NodeName != "" {
			return tm.NodeName
		}
		if tm.Name != "" {
			return strings.Map(func(r rune) rune {
				if r >= 'A' && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return r
			}, tm.Name)
		}
	}
	return "unknown_type"
}

func (m *Metadata) isString(t uint8) bool   { return m.StringFirst <= t && t <= m.StringLast }
func (m *Metadata) isJSObject(t uint8) bool { return m.ObjectFirst <= t && t <= m.ObjectLast }
func (m *Metadata) isArray(t uint8) bool {
	tm := m.meta(t)
	return tm != nil && tm.VisitType == "Array"
}
