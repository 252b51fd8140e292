package heapgraph

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// partFailing reads data, but fails the reads that start at failAt.
type partFailing struct {
	*bytes.Reader
	failAt int64
}

func (f partFailing) ReadAt(p []byte, off int64) (int, error) {
	if off == f.failAt {
		return 0, errors.New("input/output error")
	}
	return f.Reader.ReadAt(p, off)
}

// TestReadBack: an array read back in parts side by side is the bytes
// written, and a part that cannot be read is named by its size and offset.
func TestReadBack(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	for _, tc := range []struct {
		name   string
		f      partFailing
		off    int64
		n      int
		bounds []int
		want   string // the error's text; "" for none
	}{
		{"one part", partFailing{bytes.NewReader(data), -1}, 2, 10, []int{0, 10}, ""},
		{"three parts", partFailing{bytes.NewReader(data), -1}, 2, 10, []int{0, 3, 7, 10}, ""},
		{"a part fails", partFailing{bytes.NewReader(data), 9}, 2, 10, []int{0, 3, 7, 10},
			"read back 3 bytes at offset 9: input/output error"},
		{"the last part is short", partFailing{bytes.NewReader(data), -1}, 12, 10, []int{0, 5, 10},
			"read back 5 bytes at offset 17: EOF"},
		{"nothing past the end", partFailing{bytes.NewReader(data), -1}, 20, 4, []int{0, 4},
			"read back 4 bytes at offset 20: EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, tc.n)
			err := readBack(tc.f, b, tc.off, tc.bounds)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want == "" && !bytes.Equal(b, data[tc.off:tc.off+int64(tc.n)]):
				t.Errorf("read %q, want %q", b, data[tc.off:tc.off+int64(tc.n)])
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReadParts: a read is split into one part per core the run may use, at
// most 4, each of readPart bytes or more.
func TestReadParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tc := range []struct {
		procs, n int
		want     []int
	}{
		{1, 64 << 20, []int{0, 64 << 20}},
		{2, 64 << 20, []int{0, 32 << 20, 64 << 20}},
		{2, readPart*2 - 1, []int{0, readPart*2 - 1}},
		{8, 20 << 20, []int{0, 10 << 20, 20 << 20}},
		{8, 100 << 20, []int{0, 25 << 20, 50 << 20, 75 << 20, 100 << 20}},
		{4, 0, []int{0, 0}},
	} {
		runtime.GOMAXPROCS(tc.procs)
		if got := readParts(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("GOMAXPROCS=%d, %d bytes: parts %v, want %v", tc.procs, tc.n, got, tc.want)
		}
	}
}
