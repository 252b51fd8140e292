package heapgraph

import (
	"slices"
	"testing"
)

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

// TestStringsPast4GiB: the ends of strings past each 4 GiB of text count
// the wraps at or below them (the ends are made up: the test cannot hold
// 4 GiB of text).
func TestStringsPast4GiB(t *testing.T) {
	var tab Strings
	for _, end := range []uint64{
		10,          // string 0
		1 << 32,     // 1 ends at 4 GiB exactly: the first wrap
		1<<32 + 5,   // 2
		3<<32 + 1,   // 3 is more than 4 GiB long: two wraps at once
		3<<32 + 1,   // 4 is empty
		4<<32 - 1,   // 5 ends just below 16 GiB
		4<<32 + 100, // 6
	} {
		tab.appendEnd(end)
	}
	if want := []int{1, 3, 3, 6}; !slices.Equal(tab.wraps, want) {
		t.Errorf("wraps %v, want %v", tab.wraps, want)
	}
	for i, want := range []int{10, 1 << 32, 1<<32 + 5, 3<<32 + 1, 3<<32 + 1, 4<<32 - 1, 4<<32 + 100} {
		if got := tab.endOf(i); got != want {
			t.Errorf("endOf(%d) = %d, want %d", i, got, want)
		}
	}
}
