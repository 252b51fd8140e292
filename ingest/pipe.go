package ingest

import (
	"context"
	"io"
	"os"
	"sync"
)

// openCtx opens path for reading. Opening a named pipe blocks until a writer
// opens it; the wait is given up when ctx is cancelled (the goroutine left in
// open(2) closes what it gets if a writer ever comes).
func openCtx(ctx context.Context, path string) (*os.File, error) {
	if info, err := os.Stat(path); err != nil || info.Mode().IsRegular() {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// pipeReader reads a stream that may block without end (a pipe whose writer
// stalls, a terminal) on a goroutine of its own, so that Read returns as soon
// as ctx is cancelled however long the stream's read(2) waits. It reads ahead
// by one buffer.
type pipeReader struct {
	ctx    context.Context
	chunks chan pipeChunk
	free   chan []byte
	stop   chan struct{}
	once   sync.Once
	cur    pipeChunk
	off    int
}

type pipeChunk struct {
	b   []byte
	err error
}

// pipeBuffer is the size of each of the reader's two buffers.
const pipeBuffer = 256 << 10

func newPipeReader(ctx context.Context, r io.Reader) *pipeReader {
	p := &pipeReader{ctx: ctx, chunks: make(chan pipeChunk, 1), free: make(chan []byte, 2),
		stop: make(chan struct{})}
	p.free <- make([]byte, pipeBuffer)
	p.free <- make([]byte, pipeBuffer)
	go p.fill(r)
	return p
}

// fill reads r into free buffers until an error or until the reader is closed.
func (p *pipeReader) fill(r io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.stop:
			return
		}
		n, err := r.Read(buf[:cap(buf)])
		select {
		case p.chunks <- pipeChunk{buf[:n], err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (p *pipeReader) Read(b []byte) (int, error) {
	for p.off == len(p.cur.b) {
		if p.cur.err != nil {
			return 0, p.cur.err
		}
		if p.cur.b != nil {
			p.free <- p.cur.b // the buffer is read: fill may use it again
			p.cur.b = nil
		}
		select {
		case c := <-p.chunks:
			p.cur, p.off = c, 0
		case <-p.ctx.Done():
			return 0, p.ctx.Err()
		}
	}
	n := copy(b, p.cur.b[p.off:])
	p.off += n
	return n, nil
}

// Close stops the reading goroutine (at once if it waits for a buffer, else
// when its read returns).
func (p *pipeReader) Close() error {
	p.once.Do(func() { close(p.stop) })
	return nil
}
