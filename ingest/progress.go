package ingest

import (
	"context"
	"io"
	"sync/atomic"
)

// Progress tells how many input bytes a run has read, out of how many. It is
// updated by the run and may be read from any goroutine.
type Progress struct {
	done, total atomic.Int64
}

// Done returns the bytes read so far.
func (p *Progress) Done() int64 { return p.done.Load() }

// Total returns the size of all inputs (0 until known).
func (p *Progress) Total() int64 { return p.total.Load() }

// countingReader adds the bytes read through it to a Progress and to n.
type countingReader struct {
	r io.Reader
	p *Progress
	n *int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.done.Add(int64(n))
	*c.n += int64(n)
	return n, err
}

// ctxReader stops reading once its context is cancelled (Ctrl-C), whatever
// parser is reading.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}
