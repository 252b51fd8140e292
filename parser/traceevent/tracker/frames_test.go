package tracker

import (
	"fmt"
	"reflect"
	"testing"
)

func TestStackFrames(t *testing.T) {
	f := NewFrames()
	if _, err := f.AddStackFrames([]byte(`{"1":{"name":"main","category":"app"},"2":{"name":"run","parent":1},"3":{"name":"x","parent":"9"}}`), "stackFrames", -1, nil, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddStackFrames([]byte(`{"1":{"name":"pmain"},"2":{"name":"pchild","parent":"1"}}`), "metadata", 4, nil, 0); err != nil {
		t.Fatal(err)
	}
	f.addV8Node(0, 4, v8Node{ID: 1, FunctionName: "(root)"})
	f.addV8Node(0, 4, v8Node{ID: 2, Parent: 1, HasParent: true, FunctionName: "f", URL: "a.js", Line: 3, Column: 4})
	unknown := f.Resolve()
	var got []string
	for _, fr := range f.Rows {
		got = append(got, fmt.Sprintf("%d %s %s %s p%d", fr.ID, fr.Source, fr.Key, fr.Name, fr.ParentID))
	}
	want := []string{"0 stackFrames 1 main p-1", "1 stackFrames 2 run p0", "2 stackFrames 3 x p-1",
		"3 metadata 1 pmain p-1", "4 metadata 2 pchild p3", "5 v8_profile 1 (root) p-1", "6 v8_profile 2 f p5"}
	if !reflect.DeepEqual(got, want) || unknown != 1 {
		t.Errorf("frames %q (unknown parents %d)", got, unknown)
	}
	if id, ok := f.Lookup("2"); !ok || id != 1 {
		t.Errorf("sf 2 names frame %d (%v), want the top-level frame 1", id, ok)
	}
	if _, ok := f.Lookup("9"); ok {
		t.Error("unknown sf found")
	}
	if id, ok := f.v8Frame(0, 4, 2); !ok || id != 6 {
		t.Errorf("v8 frame %d %v", id, ok)
	}
}
