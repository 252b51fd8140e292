package ingest

import (
	"crypto/sha256"
	"hash"
)

// asyncHash is the SHA-256 of the bytes written to it (table source),
// computed on a goroutine of its own so that hashing an input costs its
// reader no time: Write copies the bytes into blocks that the goroutine
// hashes in order. At most hashBlocks blocks are in flight; Write waits for
// a free one.
type asyncHash struct {
	buf    []byte        // the block being filled
	made   int           // blocks allocated
	work   chan []byte   // full blocks, in order; nil until the first Write
	free   chan []byte   // blocks hashed, to reuse
	done   chan struct{} // closed when the goroutine has hashed every block
	h      hash.Hash
	closed bool
}

const (
	hashBlock  = 256 << 10
	hashBlocks = 4
)

func (a *asyncHash) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if a.buf == nil {
			a.buf = a.block()
		}
		k := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf, p = a.buf[:len(a.buf)+k], p[k:]
		if len(a.buf) == cap(a.buf) {
			a.work <- a.buf
			a.buf = nil
		}
	}
	return n, nil
}

// block returns an empty block, starting the goroutine on first use.
func (a *asyncHash) block() []byte {
	if a.work == nil {
		a.h = sha256.New()
		a.work, a.free, a.done = make(chan []byte, hashBlocks), make(chan []byte, hashBlocks), make(chan struct{})
		go func(h hash.Hash, work <-chan []byte, free chan<- []byte, done chan<- struct{}) {
			defer close(done)
			for b := range work {
				h.Write(b)
				free <- b
			}
		}(a.h, a.work, a.free, a.done)
	}
	if a.made < hashBlocks {
		a.made++
		return make([]byte, 0, hashBlock)
	}
	return (<-a.free)[:0]
}

// Sum returns the hash of everything written; no Write may follow.
func (a *asyncHash) Sum() []byte {
	if a.work == nil {
		return sha256.New().Sum(nil)
	}
	if len(a.buf) > 0 {
		a.work <- a.buf
		a.buf = nil
	}
	a.close()
	return a.h.Sum(nil)
}

// close ends the goroutine once it has hashed what it was given.
func (a *asyncHash) close() {
	if a.work == nil || a.closed {
		return
	}
	a.closed = true
	close(a.work)
	<-a.done
}
