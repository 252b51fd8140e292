package rawheap

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// File is a dynamic .rawheap opened for decoding: its version, header,
// metadata and section index (docs/format/rawheap.md#whole-file).
type File struct {
	ra   io.ReaderAt
	size int64

	Kind    Kind
	Version string
	// Timestamp is the header's timestamp as written (the runtime's
	// system clock; 0 in the 2024 form, which has none).
	Timestamp uint64
	// SpaceType, HeapType and VMType are the header fields written since
	// 2026-04 ("" before).
	SpaceType, HeapType, VMType string
	// DumpSize is the size of the raw dump, which the metadata follows.
	DumpSize int64
	Meta     *Metadata
	// Sections is the section index: offset and size of the root section,
	// the string section, then of each object section. A section that lay
	// outside the dump has size 0 here (and a Problem says so).
	Sections []uint32
	// Problems are what Open found wrong but could read around; Decode
	// reports them.
	Problems []Problem
	// Scratch, when set, gives a scratch file for the decoder to write to
	// and read back (a V2 dump's first pass logs there the node each
	// reference found, so that the second pass needs no address index).
	// The caller closes and removes it after Decode; without one, or when
	// it fails, the decoder keeps what it needs in memory.
	Scratch func() (ScratchFile, error)
}

// ScratchFile is a file the decoder writes and reads back.
type ScratchFile interface {
	io.ReaderAt
	io.WriterAt
}

// Open reads the parts of a dynamic .rawheap that locate the rest: the
// trailer at the end, the metadata it points to, the section index at the
// end of the raw dump and the header.
func Open(ra io.ReaderAt, size int64) (*File, error) {
	head := make([]byte, 16)
	if _, err := ra.ReadAt(head, 0); err != nil {
		return nil, errAt(0, "shorter than a rawheap header (%d bytes)", size)
	}
	f := &File{ra: ra, size: size, Kind: Sniff(head), Version: VersionString(head[:VersionLen])}
	switch f.Kind {
	case NotRawheap:
		return nil, errAt(0, "not an ArkTS .rawheap (it starts with %q); a V8-format .rawheap from ArkWeb or JSVM is not read", head[:8])
	case Static:
		return nil, errAt(0, "version %s is a static (ArkTS 1.2) dump, not a dynamic one", f.Version)
	case Unknown:
		return nil, errAt(0, "unknown rawheap version %q (this reader knows 1.0.0, 2.0.0 and 3.x.x)", f.Version)
	}
	if err := f.readTrailer(); err != nil {
		return nil, err
	}
	if err := f.readSections(); err != nil {
		return nil, err
	}
	if f.Kind != DynamicV1NoVersion {
		f.Timestamp = le64(head[8:])
	}
	// The header fields exist when the root section starts after them.
	if f.Sections[0] > 16 {
		b := make([]byte, 56)
		if n, _ := ra.ReadAt(b, 16); n == len(b) {
			f.SpaceType, f.HeapType, f.VMType = cstr(b[:32]), cstr(b[32:48]), cstr(b[48:56])
		}
	}
	return f, nil
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// readTrailer reads [u32 dumpSize][u32 metadataSize] at the end of the file
// and the metadata between the dump and the trailer.
func (f *File) readTrailer() error {
	if f.size < 24 {
		return errAt(f.size, "too short for a rawheap with its metadata trailer (%d bytes)", f.size)
	}
	t := make([]byte, 8)
	if _, err := f.ra.ReadAt(t, f.size-8); err != nil {
		return errAt(f.size-8, "reading the metadata trailer: %v", err)
	}
	dump, msize := int64(le32(t)), int64(le32(t[4:]))
	if dump < 16 || msize == 0 || dump+msize > f.size-8 {
		return errAt(f.size-8, "no valid metadata trailer (dump size %d + metadata size %d + 8 ≠ file size %d): "+
			"the file is truncated, or its metadata.json was never appended", dump, msize, f.size)
	}
	if msize > 64<<20 {
		return errAt(f.size-8, "metadata of %d bytes is implausibly large", msize)
	}
	b := make([]byte, msize)
	if _, err := f.ra.ReadAt(b, dump); err != nil {
		return errAt(dump, "reading the metadata: %v", err)
	}
	m, err := ParseMetadata(b)
	if err != nil {
		return errAt(dump, "metadata: %v", err)
	}
	f.DumpSize, f.Meta = dump, m
	if m.dupFields > 0 {
		f.Problems = append(f.Problems, Problem{Kind: ProblemBadRecord, Offset: dump, Msg: fmt.Sprintf(
			"metadata: %d fields of the types' lists have the offset of an earlier field of their type; each offset gives one edge, the first field's", m.dupFields)})
	}
	return nil
}

// readSections reads the section index that ends the raw dump: n offsets
// and sizes, then u32 n and u32 4.
func (f *File) readSections() error {
	end := f.DumpSize
	t := make([]byte, 8)
	if _, err := f.ra.ReadAt(t, end-8); err != nil {
		return errAt(end-8, "reading the section index: %v", err)
	}
	n, unit := le32(t), le32(t[4:])
	if unit != 4 || n < 6 || n%2 != 0 || int64(n)*4 > end-24 {
		return errAt(end-8, "no section index at the end of the dump (count %d, unit %d)", n, unit)
	}
	b := make([]byte, 4*n)
	start := end - 8 - int64(len(b))
	if _, err := f.ra.ReadAt(b, start); err != nil {
		return errAt(start, "reading the section index: %v", err)
	}
	f.Sections = make([]uint32, n)
	for i := range f.Sections {
		f.Sections[i] = le32(b[4*i:])
	}
	objects := 0
	for i := 0; i < len(f.Sections); i += 2 {
		off, size := int64(f.Sections[i]), int64(f.Sections[i+1])
		if off >= 8 && off+size <= start {
			if i >= 4 {
				objects++
			}
			continue
		}
		what := [...]string{"root", "string"}[min(i/2, 1)] + " section"
		if i >= 4 {
			what = fmt.Sprintf("object section %d", i/2-2)
		}
		p := Problem{Kind: ProblemOutside, Offset: start + 4*int64(i)}
		switch {
		case i >= 4 && off >= 8 && off < start:
			f.Sections[i+1] = uint32(start - off)
			p.Msg = fmt.Sprintf("%s (offset %d, size %d) runs past the dump's %d bytes; read up to there", what, off, size, start)
			objects++
		case i == 0:
			return errAt(p.Offset, "%s (offset %d, size %d) lies outside the dump (%d bytes)", what, off, size, start)
		default:
			f.Sections[i+1] = 0
			if i == 2 {
				f.Sections[i] = f.Sections[0] + f.Sections[1] // no room for root groups either
			}
			p.Msg = fmt.Sprintf("%s (offset %d, size %d) lies outside the dump (%d bytes); %s", what, off, size, start,
				map[bool]string{true: "its objects are lost", false: "objects keep their default names"}[i >= 4])
		}
		f.Problems = append(f.Problems, p)
	}
	if objects == 0 {
		return errAt(start, "no object section lies inside the dump")
	}
	if f.Kind == DynamicV2 && len(f.Sections) != 6 {
		return errAt(start, "a V2 dump has 3 sections, not %d", len(f.Sections)/2)
	}
	return nil
}

// seq reads a part of the file sequentially, knowing its offset.
type seq struct {
	br  *bufio.Reader
	off int64
	end int64
	err error // the first error, sticky
}

func (f *File) seq(off, end int64, size int) *seq {
	if end > f.DumpSize {
		end = f.DumpSize
	}
	if off > end {
		off = end
	}
	return &seq{br: bufio.NewReaderSize(io.NewSectionReader(f.ra, off, end-off), size), off: off, end: end}
}

var errShort = errors.New("truncated")

// read fills b from the part, or fails (sticky) where it ends first. It
// copies out of the buffer (Peek) rather than hand b to io.ReadFull, through
// which every caller's array escaped: an allocation per u32, u64 and token.
func (s *seq) read(b []byte) bool {
	if s.err != nil {
		return false
	}
	for len(b) > 0 {
		p, err := s.br.Peek(min(len(b), s.br.Size()))
		n := copy(b, p)
		s.br.Discard(n)
		s.off += int64(n)
		b = b[n:]
		if err != nil && len(b) > 0 {
			s.err = fmt.Errorf("%w at offset %d", errShort, s.off)
			return false
		}
	}
	return true
}

func (s *seq) u32() (uint32, bool) {
	var b [4]byte
	if !s.read(b[:]) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[:]), true
}

func (s *seq) u64() (uint64, bool) {
	var b [8]byte
	if !s.read(b[:]) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[:]), true
}

func (s *seq) byte() (byte, bool) {
	if s.err != nil {
		return 0, false
	}
	c, err := s.br.ReadByte()
	if err != nil {
		s.err = fmt.Errorf("%w at offset %d", errShort, s.off)
		return 0, false
	}
	s.off++
	return c, true
}

func (s *seq) skip(n int64) bool {
	if s.err != nil {
		return false
	}
	m, err := s.br.Discard(int(n))
	s.off += int64(m)
	if err != nil {
		s.err = fmt.Errorf("%w at offset %d", errShort, s.off)
		return false
	}
	return true
}
