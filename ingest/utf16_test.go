package ingest

import (
	"bytes"
	"io"
	"testing"
)

func TestUTF16Reader(t *testing.T) {
	tests := []struct {
		name string
		in   []byte // little endian, after the BOM
		want string
	}{
		{"ascii", []byte{'a', 0, 'b', 0}, "ab"},
		{"pair", []byte{0x3d, 0xd8, 0x00, 0xde}, "😀"},
		{"lone high then ascii", []byte{0x3d, 0xd8, 'x', 0}, "\uFFFDx"},
		{"lone low", []byte{0x00, 0xde, 'y', 0}, "\uFFFDy"},
		{"high at the end", []byte{'z', 0, 0x3d, 0xd8}, "z\uFFFD"},
		{"odd last byte", []byte{'a', 0, 'b'}, "a\uFFFD"},
	}
	for _, tt := range tests {
		got, err := io.ReadAll(newUTF16Reader(bytes.NewReader(tt.in), false))
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
