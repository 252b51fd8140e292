package rawheap

import (
	"fmt"
	"testing"
)

func TestSniff(t *testing.T) {
	pad := func(s string, rest ...byte) []byte {
		b := make([]byte, 16)
		copy(b, s)
		copy(b[8:], rest)
		return b
	}
	for _, tt := range []struct {
		head []byte
		want Kind
	}{
		{pad("1.0.0"), DynamicV1},
		{pad("2.0.0"), DynamicV2},
		{pad("3.0.0"), Static},
		{pad("3.1.2"), Static},
		{pad("4.0.0"), Unknown},
		{pad("", 5, 0, 0, 0, 8, 0, 0, 0), DynamicV1NoVersion},
		{pad("", 5, 0, 0, 0, 4, 0, 0, 0), NotRawheap},
		{pad("1.0"), NotRawheap},
		{pad("1.0.0x"), NotRawheap},
		{pad("1.0.0\x00\x00x"), NotRawheap},
		{[]byte(`{"snapshot":{"meta":{}}}`), NotRawheap},
		{pad("2.0.0")[:15], NotRawheap},
	} {
		if got := Sniff(tt.head); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// The JSType numbering is type_enum's key order, whatever the keys sort as.
func TestMetadataKeyOrder(t *testing.T) {
	m, err := ParseMetadata([]byte(`{"version":"1.0.0","type_enum":{"ZED":8,"ALPHA":2,"skipped":"x","MID":3},
		"type_list":[{"name":"MID","node_name":"Mid","offsets":[{"name":"F","offset":0,"size":8}],"end_offset":16,"parents":["ZED"]},
		{"name":"ZED","offsets":[{"name":"G","offset":0,"size":8}],"end_offset":8,"parents":[]}],
		"type_layout":{"Dictionary_layout":{"name":"Dictionary","key_index":0,"value_index":1,"entry_size":3,"header_size":4},
		"Type_range":{"string_first":"ALPHA","string_last":"ALPHA","js_object_first":"MID","js_object_last":"MID"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tm := range m.Types {
		names = append(names, tm.Name)
	}
	if got := fmt.Sprint(names); got != "[ZED ALPHA MID]" {
		t.Errorf("JSTypes = %s, want [ZED ALPHA MID]", got)
	}
	mid := m.Types[2]
	if got := fmt.Sprint(mid.Fields, mid.EndOffset, mid.NodeType); got != "[{G 0 8} {F 8 8}] 24 3" {
		t.Errorf("MID = %s, want its parent's field first, offsets shifted", got)
	}
	if m.nodeName(0) != "zed" || m.nodeName(2) != "Mid" || !m.isString(1) || !m.isJSObject(2) || m.Dict.HeaderSize != 4 {
		t.Errorf("names %q %q, ranges %v %v, dict %+v", m.nodeName(0), m.nodeName(2), m.isString(1), m.isJSObject(2), m.Dict)
	}
}
