package heapgraph

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"unsafe"

	"tracestreamer/internal/task"
)

// ShelfFile is where Analyze keeps the per-node arrays it has computed, or
// does not need for a while, until it returns: a scratch file the caller
// made (an *os.File). Without one (Graph.Shelf nil) they stay in memory.
//
// On the 5 M-node benchmark snapshot the shelf holds about 250 MB (32 B a
// node, and the edges' types and names), written and read back once each;
// that keeps the dominators and the distance search beside them at the
// graph's edge targets and their own arrays.
type ShelfFile interface {
	io.ReaderAt
	io.WriterAt
}

// shelf writes arrays one after another into a ShelfFile.
type shelf struct {
	f   ShelfFile
	off int64
	// collect says that release collects: the graph's arrays are large
	// enough for the peak to depend on it (collectFrom).
	collect bool
	// writes are the writes started by putAsync, which join waits for.
	writes []*task.Task
}

// shelved is an array on the shelf, or in memory when there is no shelf.
type shelved[T any] struct {
	off int64
	n   int
	mem []T
}

// bytesOf views an array of fixed-size values as its bytes (the shelf is
// read back by the same process: native byte order is what it wants).
func bytesOf[T any](a []T) []byte {
	if len(a) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*int(unsafe.Sizeof(zero)))
}

// put writes a to the shelf; the caller then drops its reference, so that the
// memory can be collected.
func put[T any](s *shelf, a []T) (shelved[T], error) {
	if s.f == nil {
		return shelved[T]{n: len(a), mem: a}, nil
	}
	if err := writeAt(s, a, s.off); err != nil {
		return shelved[T]{}, err
	}
	x := shelved[T]{off: s.off, n: len(a)}
	s.off += int64(len(bytesOf(a)))
	return x, nil
}

// writeAt writes a to the shelf at off: put's write and putAsync's.
func writeAt[T any](s *shelf, a []T, off int64) error {
	b := bytesOf(a)
	if _, err := s.f.WriteAt(b, off); err != nil {
		return fmt.Errorf("shelve %d bytes at offset %d: %w", len(b), off, err)
	}
	return nil
}

// pending is an array that putAsync is writing to the shelf.
type pending[T any] struct {
	x   shelved[T]
	err error
	t   *task.Task // nil: nothing to wait for
}

// putAsync reserves a's place on the shelf and writes it there on another
// goroutine, after the writes putAsync started before (one write at a
// time), beside the steps that read a meanwhile: the write only reads a,
// and the caller drops its reference (so that the memory can be
// collected) after wait. Until the write is done a stays in memory even
// where the caller no longer reads it: an array written by put would have
// been collectable at the caller's next release (the shallow sizes may stay
// through the class ids this way: 4 bytes a node).
func putAsync[T any](s *shelf, a []T) *pending[T] {
	if s.f == nil {
		return &pending[T]{x: shelved[T]{n: len(a), mem: a}}
	}
	p := &pending[T]{x: shelved[T]{off: s.off, n: len(a)}}
	s.off += int64(len(bytesOf(a)))
	var before *task.Task
	if k := len(s.writes); k > 0 {
		before = s.writes[k-1]
	}
	p.t = task.Go(func() {
		if before != nil {
			before.Join()
		}
		p.err = writeAt(s, a, p.x.off)
	})
	s.writes = append(s.writes, p.t)
	return p
}

// wait waits for the write and returns where the array is on the shelf.
func (p *pending[T]) wait() (shelved[T], error) {
	if p.t != nil {
		p.t.Wait()
	}
	return p.x, p.err
}

// join waits for every write putAsync started, without raising their
// panics: deferred, it keeps them from outliving the analysis (and the
// caller's file) when the analysis fails first.
func (s *shelf) join() {
	for _, t := range s.writes {
		t.Join()
	}
}

// release collects the arrays just shelved, so that the next ones reuse their
// memory rather than add to it (the heap holds few pointers: a collection
// costs a few milliseconds). Without a shelf nothing was let go; on a small
// graph (!collect) the collections would cost more than the arrays weigh.
func (s *shelf) release() {
	if s.f != nil && s.collect {
		runtime.GC()
	}
}

// collectFrom is the node count from which the analysis collects what it
// let go between its steps (shelf.release): 1 M nodes, 4 MB a per-node
// array. Below, a run of many small snapshots spent most of its time in
// those collections (1000 one-node snapshots in an .htrace: 3.2 s, 74 %
// of the CPU in the collector, each collection scanning all that the run
// holds).
const collectFrom = 1 << 20

// take reads the array back, in parts side by side where it is large
// (readParts): most of a read's time is the kernel's, filling the pages of
// the new array, which several cores do faster than one.
func (x shelved[T]) take(s *shelf) ([]T, error) {
	if s.f == nil {
		return x.mem, nil
	}
	a := make([]T, x.n)
	b := bytesOf(a)
	if err := readBack(s.f, b, x.off, readParts(len(b))); err != nil {
		return nil, err
	}
	return a, nil
}

// readBack fills b from f at off, each part [bounds[i], bounds[i+1]) of b
// on its own goroutine (forRanges). Its error names the part that failed
// (each one that did).
func readBack(f io.ReaderAt, b []byte, off int64, bounds []int) error {
	errs := make([]error, len(bounds)-1)
	forRanges(bounds, func(lo, hi int) {
		part, at := b[lo:hi], off+int64(lo)
		if n, err := f.ReadAt(part, at); n < len(part) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			errs[slices.Index(bounds, lo)] = fmt.Errorf("read back %d bytes at offset %d: %w", len(part), at, err)
		}
	})
	return errors.Join(errs...)
}

// readPart is the least a part of take's read has: below it, starting a
// goroutine costs more than the part's pages.
const readPart = 8 << 20

// readParts splits n bytes into parts of readPart bytes or more (split):
// the bounds, from 0 to n.
func readParts(n int) []int { return split(n, readPart) }
