package ingest

import (
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
