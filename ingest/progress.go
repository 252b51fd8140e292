package ingest

import (
	"context"
	"io"
	"sync/atomic"
)

// Progress tells how many input bytes a run has read, out of how many, and
// what it is doing. It is updated by the run and may be read from any
// goroutine.
type Progress struct {
	done, total atomic.Int64
	phase       atomic.Pointer[string]
}

// Phases of a run, as Phase reports them.
const (
	PhaseReading    = "reading"    // inputs are read (bytes count up)
	PhaseProcessing = "processing" // all bytes read; sorting, analysis, building rows
	PhaseWriting    = "writing"    // the last rows are written to the database
	PhaseCommitting = "committing" // the database is synced and moved into place
)

// Phase returns what the run is doing now ("" before it starts). While
// reading, a run whose bytes are all read is processing them.
func (p *Progress) Phase() string {
	ph := p.phase.Load()
	if ph == nil {
		return ""
	}
	if *ph == PhaseReading && p.total.Load() > 0 && p.done.Load() >= p.total.Load() {
		return PhaseProcessing
	}
	return *ph
}

func (p *Progress) setPhase(s string) { p.phase.Store(&s) }

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

// ctxReaderAt is ctxReader for a reader at offsets (a .rawheap's decoder).
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(b, off)
}

// ctxWriter passes warnings on to w until ctx is cancelled, then drops
// them: a run prints no problem once it knows it was interrupted (it writes
// no output, and what it met is for runs that finish), whichever reader
// meets the cancelled reads and reports what it could not read. Once the
// output is committed, disarm makes it pass everything on: a cancel that
// comes after the commit does not cut the summary of a run that wrote its
// output.
type ctxWriter struct {
	ctx       context.Context
	w         io.Writer
	committed atomic.Bool
}

func (c *ctxWriter) Write(b []byte) (int, error) {
	if !c.committed.Load() && c.ctx.Err() != nil {
		return len(b), nil
	}
	return c.w.Write(b)
}

// disarm makes every later Write go to w, cancelled or not.
func (c *ctxWriter) disarm() { c.committed.Store(true) }

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
