package tracker

import (
	"fmt"
	"reflect"
	"testing"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/tokenizer"
)

func TestMemoryDumps(t *testing.T) {
	m := NewMemoryDumps(nil)
	invalid := 0
	for _, raw := range []string{
		`{"ph":"v","ts":5,"id":"0xd1","args":{"dumps":{"level_of_detail":"light","process_totals":{"resident_set_bytes":"1f4"},` +
			`"allocators":{"malloc/partitions":{"guid":"g1","attrs":{"size":{"type":"scalar","units":"bytes","value":"ff"},` +
			`"name":{"type":"string","units":"","value":"x"}},"flags":1}},"allocators_graph":[{"source":"g1","target":"g2","importance":2,"type":"ownership"}],` +
			`"heaps":{"a":1}},"other":7}}`,
		`{"ph":"v","ts":6,"args":{"dumps":{}}}`,
		`{"ph":"V","ts":7,"id":"0xd1","args":{"x":1}}`,
	} {
		ev, err := event.Decode(&tokenizer.Element{Raw: []byte(raw)})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Add(1, 2, ev) {
			invalid++
		}
	}
	var got []string
	rows := m.Take()
	for _, d := range rows.Dumps {
		got = append(got, fmt.Sprintf("dump %s %s %s extra=%s args=%s", d.DumpID, d.Kind, d.LevelOfDetail, d.ExtraJSON, d.Args))
	}
	for _, v := range rows.Values {
		got = append(got, fmt.Sprintf("value %s %s %s %s %d/%v %q", v.Source, v.Path, v.Attr, v.Type, v.Int, v.HasInt, v.Str))
	}
	for _, e := range rows.Edges {
		got = append(got, fmt.Sprintf("edge %s->%s %d %s", e.Source, e.Target, e.Importance, e.Type))
	}
	want := []string{
		`dump 0xd1 process light extra={"heaps":{"a":1}} args={"other":7}`,
		`dump 0xd1 global  extra= args={"x":1}`,
		`value process_totals  resident_set_bytes scalar 500/true ""`,
		`value allocator malloc/partitions size scalar 255/true ""`,
		`value allocator malloc/partitions name string 0/false "x"`,
		`value allocator malloc/partitions flags scalar 1/true ""`,
		`edge g1->g2 2 ownership`,
	}
	if !reflect.DeepEqual(got, want) || invalid != 1 {
		t.Errorf("got\n%q\nwant\n%q\ninvalid %d", got, want, invalid)
	}
}
