package ingest

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// TestAsyncHash checks the hash against crypto/sha256's for inputs around
// the block size, written in pieces of several sizes.
func TestAsyncHash(t *testing.T) {
	data := make([]byte, hashBlock*hashBlocks*3+123)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	for _, n := range []int{0, 1, hashBlock - 1, hashBlock, hashBlock + 1, len(data)} {
		for _, piece := range []int{1, 1000, hashBlock, 3 * hashBlock} {
			if n > 1<<16 && piece == 1 {
				continue
			}
			var a asyncHash
			for p := data[:n]; len(p) > 0; {
				k := min(piece, len(p))
				if w, err := a.Write(p[:k]); w != k || err != nil {
					t.Fatalf("Write: %d, %v", w, err)
				}
				p = p[k:]
			}
			want := sha256.Sum256(data[:n])
			if got := a.Sum(); !bytes.Equal(got, want[:]) {
				t.Errorf("%d bytes in pieces of %d: %x, want %x", n, piece, got, want)
			}
		}
	}
}
