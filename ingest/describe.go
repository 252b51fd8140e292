package ingest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"tracestreamer/parser/rawheap"
)

// addLine receives one line of a description: what, how many, details.
type addLine = func(what string, count int64, note string)

// describer is an inputFormat's description of an input (inputFormat.describe).
type describer func(ctx context.Context, s *Sniffed, add addLine) (size int64, err error)

// Describe says what the input holds, for `tracestreamer info`, without
// converting it: the describer of its format's entry in inputFormats
// calls add once per line. It returns the size of the (decompressed)
// content. A format without a describer gets no lines; its content is read
// to its end to measure it. Once ctx is done it stops reading and returns
// ctx's error.
func (s *Sniffed) Describe(ctx context.Context, add func(what string, count int64, note string)) (int64, error) {
	if s.Format == "" {
		return 0, errors.New("describe: the input's format was not recognised")
	}
	d := formatNamed(format(s.Format)).describe
	if d == nil {
		d = streamed(func(context.Context, io.Reader, string, addLinef) error { return nil })
	}
	n, err := d(ctx, s, add)
	if err != nil && ctx.Err() != nil {
		err = ctx.Err() // whatever a parser made of the read that failed
	}
	return n, err
}

// addLinef is addLine with the note formatted by fmt.Sprintf, as the format
// parsers' describers write it.
type addLinef = func(what string, count int64, format string, args ...any)

// streamed is a describer reading the content once, from its start, and
// formatting the notes of its lines: what it leaves unread is read to measure
// the content.
func streamed(d func(ctx context.Context, r io.Reader, path string, add addLinef) error) describer {
	return func(ctx context.Context, s *Sniffed, add addLine) (int64, error) {
		c := &countReader{r: s.Content}
		addf := func(what string, n int64, format string, args ...any) { add(what, n, fmt.Sprintf(format, args...)) }
		if err := d(ctx, c, s.path, addf); err != nil {
			return c.n, err
		}
		_, err := io.Copy(io.Discard, c)
		return c.n, err
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// describeRawheap describes a .rawheap with rawheap.Describe, which reads a
// few small parts at known offsets (docs/format/rawheap.md). A regular
// uncompressed file is read where it is. A static dump, read forward only,
// is read as it streams. A compressed dynamic dump is read in passes over
// its content: the first keeps its start and its last bytes (where the
// trailer, metadata and section index are), each further one the parts
// the description asked for and did not get; nothing is written and no
// more than those parts is held.
func describeRawheap(ctx context.Context, s *Sniffed, add addLine) (int64, error) {
	var d *rawheap.Description
	var size int64
	var err error
	switch {
	case s.Compression == "none" && reopenable(s.path):
		f, err := os.Open(s.path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return 0, err
		}
		size = info.Size()
		if d, err = rawheap.Describe(ctxReaderAt{ctx, f}, size); err != nil {
			return size, err
		}
	case rawheap.Sniff(s.Head) == rawheap.Static:
		fw := &forwardReader{head: bytes.Clone(s.Head), r: s.Content}
		if d, err = rawheap.Describe(fw, -1); err != nil {
			return fw.pos, err
		}
		n, err := io.Copy(io.Discard, s.Content)
		if err != nil {
			return fw.pos + n, err
		}
		size = fw.pos + n
	default:
		if d, size, err = describeInPasses(ctx, s, describeTail); err != nil {
			return size, err
		}
	}
	rawheapLines(d, add)
	return size, nil
}

// rawheapLines gives a description's lines.
func rawheapLines(d *rawheap.Description, add addLine) {
	what := "dynamic " + map[rawheap.Kind]string{rawheap.DynamicV1: "V1", rawheap.DynamicV1NoVersion: "V1 (2024 form, no version)",
		rawheap.DynamicV2: "V2", rawheap.Static: "static"}[d.Kind]
	if d.Kind == rawheap.Static {
		what = "static"
		if d.Hybrid {
			what = "static, the static half of a hybrid pair"
		}
	}
	add("ArkTS heap dump", 1, fmt.Sprintf("%s, version %s", what, d.Version))
	if d.Timestamp != 0 {
		ts := time.Unix(0, rawheapTime(d.Timestamp)).UTC().Format("2006-01-02 15:04:05.000 UTC")
		if d.Kind == rawheap.Static {
			ts = time.UnixMilli(int64(d.Timestamp)).UTC().Format("2006-01-02 15:04:05.000 UTC")
		}
		add("timestamp", int64(d.Timestamp), ts)
	} else {
		add("timestamp", 0, "none (the 2024 form has none)")
	}
	if d.VMType != "" || d.SpaceType != "" || d.HeapType != "" {
		add("header types", 3, fmt.Sprintf("space %s, heap %s, vm %s", d.SpaceType, d.HeapType, d.VMType))
	}
	count := func(what string, n int64, note string) {
		if n >= 0 {
			add(what, n, note)
		}
	}
	if d.Kind == rawheap.Static {
		count("objects", d.Objects, "instances, arrays and string objects")
		add("classes", d.Classes, fmt.Sprintf("class dumps; the header's summary (objects and classes) says %d", d.HeaderCount))
		count("strings", d.Strings, "names (classes, fields, methods)")
		count("roots", d.Roots, "")
		if d.Hybrid || d.XRefs > 0 {
			add("cross-VM references", d.XRefs, "XREF items joining it to the dynamic half")
		}
		add("records", d.Records, "")
	} else {
		count("objects", d.Objects, fmt.Sprintf("in %d object section(s)", d.ObjectSections))
		count("strings", d.Strings, "names in the string section")
		count("roots", d.Roots, "the root set")
		if d.Trailer {
			add("metadata trailer", 1, fmt.Sprintf("present: %d bytes of metadata.json (%d types) after a raw dump of %d bytes",
				d.MetadataSize, d.MetadataTypes, d.DumpSize))
		} else {
			add("metadata trailer", 0, "absent: a conversion cannot read this dump")
		}
	}
	if d.Problem != "" {
		add("problem", 1, d.Problem)
	}
}

// forwardReader serves a rawheap.Describe that reads forward only from a
// stream (and anywhere in its first bytes).
type forwardReader struct {
	head []byte
	r    io.Reader
	pos  int64 // bytes of r read
}

func (f *forwardReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= 0 && off+int64(len(p)) <= int64(len(f.head)) {
		return copy(p, f.head[off:]), nil
	}
	if off < f.pos {
		return 0, fmt.Errorf("offset %d: the stream was read past it", off)
	}
	n, err := io.CopyN(io.Discard, f.r, off-f.pos)
	f.pos += n
	if err != nil {
		return 0, err
	}
	m, err := io.ReadFull(f.r, p)
	f.pos += int64(m)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return m, err
}

// describeTail is how many of a compressed dump's last bytes the first
// pass keeps: the trailer, the metadata (about 50 KB in the dumps seen) and
// the section index; a larger metadata takes another pass.
const describeTail = 4 << 20

// describePasses bounds the passes over a compressed dump: each part asked
// for may say where the next is (trailer, metadata, index, section counts).
const describePasses = 6

// describeInPasses describes a compressed dynamic dump (describeRawheap),
// keeping its last keep bytes in the first pass.
func describeInPasses(ctx context.Context, s *Sniffed, keep int) (*rawheap.Description, int64, error) {
	sp := &spans{}
	head := bytes.Clone(s.Head) // Head is the reader's buffer, which reading overwrites
	ring := make([]byte, keep)
	var size int64
	buf := make([]byte, 256<<10)
	for {
		n, err := s.Content.Read(buf)
		for b := buf[:n]; len(b) > 0; {
			k := copy(ring[size%int64(keep):], b)
			size += int64(k)
			b = b[k:]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, size, err
		}
	}
	tail := make([]byte, min(size, int64(keep)))
	for i := range tail {
		tail[i] = ring[(size-int64(len(tail))+int64(i))%int64(keep)]
	}
	sp.size = size
	sp.add(0, head)
	sp.add(size-int64(len(tail)), tail)
	for pass := 2; ; pass++ {
		d, err := rawheap.Describe(sp, size)
		if err != nil || len(sp.missed) == 0 {
			return d, size, err
		}
		if !reopenable(s.path) {
			d.Problem = fmt.Sprintf("%d parts of the dump were not read: info reads a compressed dump from a file in passes, "+
				"not from standard input", len(sp.missed))
			return d, size, nil
		}
		if pass > describePasses {
			d.Problem = fmt.Sprintf("%d parts of the dump were not read in %d passes", len(sp.missed), describePasses)
			return d, size, nil
		}
		o, err := open(ctx, s.path, nil, func(r io.Reader) io.Reader { return r })
		if err != nil {
			return nil, size, err
		}
		err = sp.fill(ctxReader{ctx, o.r})
		o.close()
		if err != nil {
			return nil, size, err
		}
	}
}

// spans is a sparse copy of a file: the parts read so far, and the reads
// that asked for others.
type spans struct {
	size   int64
	have   []span
	missed []span
}

type span struct {
	off int64
	b   []byte
}

func (s *spans) add(off int64, b []byte) { s.have = append(s.have, span{off, b}) }

var errNotRead = errors.New("part of a compressed dump not read yet")

func (s *spans) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= s.size {
		return 0, io.EOF
	}
	want, end := p, off+int64(len(p))
	if end > s.size {
		want, end = p[:s.size-off], s.size
	}
	for _, h := range s.have {
		if off >= h.off && end <= h.off+int64(len(h.b)) {
			n := copy(want, h.b[off-h.off:])
			if n < len(p) {
				return n, io.EOF
			}
			return n, nil
		}
	}
	s.missed = append(s.missed, span{off, make([]byte, len(want))})
	return 0, errNotRead
}

// fill reads the content again from its start and keeps the parts missed.
func (s *spans) fill(r io.Reader) error {
	var pos int64
	for _, m := range sortSpans(s.missed) {
		if m.off < pos { // overlaps one before: read it from a later pass
			continue
		}
		if _, err := io.CopyN(io.Discard, r, m.off-pos); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, m.b); err != nil {
			return err
		}
		pos = m.off + int64(len(m.b))
		s.add(m.off, m.b)
	}
	s.missed = s.missed[:0]
	return nil
}

func sortSpans(ss []span) []span {
	out := append([]span(nil), ss...)
	slices.SortFunc(out, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	return out
}
