package cpuprofile

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io"
)

// ReadError is the error of ParseRepairingReader when reading the text
// failed (other than at its end): what the profile holds is not known.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// ParseRepairingReader is ParseRepairing of the text read from r, with the
// same results and errors, in memory proportional to what the profile holds
// (its nodes, names, samples and deltas), never to the length of its text:
// it holds neither the text nor any one value it skips (white space, members
// it does not read) nor a member name whole. (Names, urls and numbers it
// reads it holds, as the profile does.)
//
// The repair needs the text a second time. reopen, called only when the
// first parse failed, must return the text from its start again (the same
// file opened and decompressed again); ParseRepairingReader closes what it
// returns. Where reopen is nil (a pipe, which cannot give its bytes twice),
// the text is kept as it is read, deflated, and read back from that copy: a
// text that compresses well, as a long run of one byte does, costs little.
//
// Whenever the parse fails, r is read to its end. A read error of r (of
// the reopened text: the error of the first parse) is returned as a
// *ReadError, whatever the text held before it; ctx's error is returned
// soon after ctx is cancelled.
func ParseRepairingReader(ctx context.Context, r io.Reader, reopen func() (io.ReadCloser, error)) (p *Profile, repaired int, err error) {
	src := &errReader{r: r}
	var sp *spool
	if reopen == nil {
		sp = newSpool()
		src.r = io.TeeReader(r, sp)
		reopen = sp.reopen
	}
	p, failedAt, err := parseReader(ctx, src)
	if err == nil {
		return p, 0, nil
	}
	if ctx.Err() == nil {
		_, _ = io.Copy(io.Discard, src) // the read error, if any, is kept in src
	}
	if src.err != nil {
		return nil, 0, &ReadError{src.err}
	}
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	if sp != nil {
		if err := sp.close(); err != nil {
			return nil, 0, fmt.Errorf("keep the profile for its repair: %w", err)
		}
	}
	return repairFrom(ctx, err, failedAt, reopen)
}

// repairFrom parses the text that reopen gives again, repaired as Repair
// does, and returns the repaired profile where ParseRepairing would; parseErr
// and failedAt are the first parse's.
func repairFrom(ctx context.Context, parseErr error, failedAt int64, reopen func() (io.ReadCloser, error)) (*Profile, int, error) {
	rc, err := reopen()
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, parseErr
	}
	defer rc.Close()
	rr := newRepairReader(ctx, rc)
	p, _, err2 := parseReader(ctx, rr)
	if err2 != nil && ctx.Err() == nil {
		_, _ = io.Copy(io.Discard, rr) // Repair's count and its verdict need the whole text
	}
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	if !rr.done || rr.gaveUp || rr.fixed == 0 || failedAt < rr.first {
		return nil, 0, parseErr
	}
	if err2 != nil {
		return nil, 0, parseErr // the original error says more
	}
	return p, rr.fixed, nil
}

// errReader keeps the first error of r other than io.EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// spool keeps a deflated copy of the text as it is read.
type spool struct {
	buf bytes.Buffer
	zw  *flate.Writer
	err error
}

func newSpool() *spool {
	s := &spool{}
	s.zw, s.err = flate.NewWriter(&s.buf, flate.BestSpeed)
	return s
}

func (s *spool) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.zw.Write(p)
	}
	return len(p), nil // a failed copy fails the repair, not the first parse
}

func (s *spool) close() error {
	if s.err == nil {
		s.err = s.zw.Close()
	}
	return s.err
}

func (s *spool) reopen() (io.ReadCloser, error) {
	if s.err != nil {
		return nil, s.err
	}
	return flate.NewReader(bytes.NewReader(s.buf.Bytes())), nil
}

// repairReader is Repair as a stream: it reads the text from r and returns
// the text Repair would, holding no more of it than a buffer and a
// separator's length. Which bytes Repair escapes is known as they come, save
// one thing: Repair gives up (and changes nothing) when a call frame has no
// scriptId member after it, which only the end of the text tells. So it
// escapes as if it will not give up, and says at the end (done) whether it
// did (gaveUp), how many values it escaped (fixed) and the offset in the
// text of the first (first).
type repairReader struct {
	ctx    context.Context
	r      io.Reader
	in     []byte // in[pos:] is read and not yet looked at
	pos    int
	off    int64  // text offset of in[pos]
	eof    bool   // r is at its end
	err    error  // r's error (other than io.EOF) or ctx's
	out    []byte // repaired text not yet returned: out[outPos:]
	outPos int
	// What the scan is in: between call frames, in a function name
	// (value 1) or in a module name (value 2, after moduleNext).
	state         int
	start, modEnd int64 // the offsets where value 1 and value 2 start
	esc1, esc2    bool  // value 1, value 2 held a byte to escape
	values        int
	fixed         int
	first         int64
	done, gaveUp  bool
	looked        int64 // bytes its searches looked at (tests: linear in the text)
}

const (
	between = iota
	inFunction
	inModule
)

func newRepairReader(ctx context.Context, r io.Reader) *repairReader {
	return &repairReader{ctx: ctx, r: r, in: make([]byte, 0, readBuffer)}
}

func (rr *repairReader) Read(p []byte) (int, error) {
	for rr.outPos == len(rr.out) {
		if rr.done {
			if rr.err != nil {
				return 0, rr.err
			}
			return 0, io.EOF
		}
		rr.out, rr.outPos = rr.out[:0], 0
		rr.step()
	}
	n := copy(p, rr.out[rr.outPos:])
	rr.outPos += n
	return n, nil
}

// fill reads more of the text, keeping what is not yet looked at.
func (rr *repairReader) fill() {
	if rr.eof || rr.err != nil {
		return
	}
	if err := rr.ctx.Err(); err != nil {
		rr.err = err
		return
	}
	rest := copy(rr.in[:cap(rr.in)], rr.in[rr.pos:])
	rr.in, rr.pos = rr.in[:rest], 0
	n, err := rr.r.Read(rr.in[rest:cap(rr.in)])
	rr.in = rr.in[:rest+n]
	switch {
	case err == io.EOF:
		rr.eof = true
	case err != nil:
		rr.err = err
	}
}

// emit hands on the next n bytes of the text unchanged.
func (rr *repairReader) emit(n int) {
	rr.out = append(rr.out, rr.in[rr.pos:rr.pos+n]...)
	rr.pos += n
	rr.off += int64(n)
}

// step looks at as much of what was read as can be decided, reading more
// when that is nothing.
func (rr *repairReader) step() {
	if rr.err != nil {
		rr.done, rr.gaveUp = true, true
		return
	}
	w := rr.in[rr.pos:]
	end := rr.eof // nothing more will come
	if rr.state == between {
		i := bytes.Index(w, functionKey)
		rr.looked += int64(len(w))
		if i >= 0 {
			rr.looked -= int64(len(w) - i - len(functionKey))
			rr.emit(i + len(functionKey))
			rr.state, rr.start, rr.esc1, rr.esc2 = inFunction, rr.off, false, false
			return
		}
		keep := len(functionKey) - 1 // they may start a key that the next read completes
		if end {
			keep = 0
		}
		if n := len(w) - keep; n > 0 {
			rr.emit(n)
			return
		}
		if end {
			rr.done = true
			return
		}
		rr.fill()
		return
	}
	// In a name: plain bytes go as they are, up to a quote or a backslash.
	i := bytes.IndexAny(w, `"\`)
	rr.looked += int64(len(w))
	if i >= 0 {
		rr.looked -= int64(len(w) - i - 1)
	}
	if i < 0 {
		rr.emit(len(w))
		if end {
			rr.done, rr.gaveUp = true, true // no scriptId member follows
			return
		}
		rr.fill()
		return
	}
	rr.emit(i)
	w = w[i:]
	if w[0] == '"' && len(w) < len(moduleNext) && !end {
		rr.fill() // the quote may start a separator
		return
	}
	switch {
	case w[0] == '"' && bytes.HasPrefix(w, scriptNext):
		rr.emit(len(scriptNext))
		rr.endCallFrame()
	case w[0] == '"' && rr.state == inFunction && bytes.HasPrefix(w, moduleNext):
		rr.emit(len(moduleNext))
		rr.state, rr.modEnd = inModule, rr.off
	default:
		// A byte of the name that JSON needs escaped.
		rr.out = append(rr.out, '\\', w[0])
		rr.pos++
		rr.off++
		if rr.state == inFunction {
			rr.esc1 = true
		} else {
			rr.esc2 = true
		}
	}
}

// endCallFrame counts the values of a call frame that needed escaping.
func (rr *repairReader) endCallFrame() {
	if rr.esc1 {
		rr.count(rr.start)
	}
	if rr.state == inModule && rr.esc2 {
		rr.count(rr.modEnd)
	}
	rr.state = between
	if rr.values++; rr.values%repairCheck == 0 && rr.ctx.Err() != nil {
		rr.err = rr.ctx.Err()
	}
}

func (rr *repairReader) count(at int64) {
	if rr.fixed == 0 {
		rr.first = at
	}
	rr.fixed++
}
