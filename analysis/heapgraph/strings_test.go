package heapgraph

import "testing"

func TestStrings(t *testing.T) {
	tab := NewStrings("", "a", "", "héllo", "Object")
	got := tab.At(3) // taken before the table grows: its memory is not written over
	for range 1000 {
		tab.Append("padding that makes the table grow")
	}
	for _, tc := range []struct {
		i    uint32
		want string
	}{
		{0, ""}, {1, "a"}, {2, ""}, {3, "héllo"}, {4, "Object"}, {5, "padding that makes the table grow"},
		{1004, "padding that makes the table grow"}, {1005, ""}, {NoNode, ""},
	} {
		if s := tab.At(tc.i); s != tc.want {
			t.Errorf("At(%d) = %q, want %q", tc.i, s, tc.want)
		}
	}
	if got != "héllo" {
		t.Errorf("a string taken before the table grew became %q", got)
	}
	if n := tab.Len(); n != 1005 {
		t.Errorf("Len() = %d, want 1005", n)
	}
	var empty Strings
	if empty.Len() != 0 || empty.At(0) != "" {
		t.Errorf("empty table: Len %d, At(0) %q", empty.Len(), empty.At(0))
	}
}
