package rawheap

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Description is what a .rawheap holds, read from its header, trailer,
// section index and table headers (a static dump: its record headers),
// without decoding an object.
type Description struct {
	Kind    Kind
	Version string
	// Timestamp is the header's timestamp as written (0: none); its unit
	// is the writer's (docs/format/rawheap.md).
	Timestamp uint64
	// SpaceType, HeapType and VMType are the dynamic header's fields written
	// since 2026-04 ("" when absent).
	SpaceType, HeapType, VMType string
	// Hybrid is set for the static half of a hybrid pair (language 2).
	Hybrid bool
	// Objects, Strings and Roots count the objects of the object tables
	// (static: instances, arrays and string objects), the string section's
	// names (static: STRING_IN_UTF8 items) and the root set (static: ROOT
	// items); -1 where the file does not say.
	Objects, Strings, Roots int64
	// Dynamic dumps: whether the metadata trailer is there, the raw dump's
	// and the metadata's sizes, and the number of object sections.
	Trailer                 bool
	DumpSize, MetadataSize  int64
	ObjectSections          int
	MetadataTypes           int   // types in the metadata's type_list
	Classes, XRefs, Records int64 // static dumps: CLASS_DUMP and XREF items, records
	HeaderCount             int64 // static: the header's objects + classes summary
	// Problem says why part of the file could not be described (no
	// trailer, a truncated record); "" when all of it was.
	Problem string
}

// Describe reads what a .rawheap holds with a few small reads at known
// offsets: the header, the trailer, the metadata and the section index, and
// the count at the start of each section (a static dump: each record's
// header, its body skipped). The reads of a static dump go forward only, so
// ra may be a stream read in order; size is the file's size, or -1 when not
// known (a static dump is then read to its end).
//
// A file of a kind this package does not read is an error; one whose
// trailer or index is missing or damaged is described as far as its header
// goes, with Problem saying why not further.
func Describe(ra io.ReaderAt, size int64) (*Description, error) {
	head := make([]byte, 16)
	if n, err := ra.ReadAt(head, 0); n < len(head) {
		return nil, errAt(0, "shorter than a rawheap header: %v", err)
	}
	d := &Description{Kind: Sniff(head), Version: VersionString(head[:VersionLen]), Objects: -1, Strings: -1, Roots: -1}
	switch d.Kind {
	case NotRawheap:
		return nil, errAt(0, "not an ArkTS .rawheap (it starts with %q); a V8-format .rawheap from ArkWeb or JSVM is not read", head[:8])
	case Unknown:
		return nil, errAt(0, "unknown rawheap version %q (this reader knows 1.0.0, 2.0.0 and 3.x.x)", d.Version)
	case Static:
		return d, d.static(ra)
	}
	if d.Kind != DynamicV1NoVersion {
		d.Timestamp = le64(head[8:])
	}
	if size < 0 {
		return nil, errors.New("describing a dynamic rawheap needs its size")
	}
	f, err := Open(ra, size)
	if err != nil {
		d.Problem = err.Error()
		// The header fields, if the file has them, say "dynamic" last.
		b := make([]byte, 56)
		if n, _ := ra.ReadAt(b, 16); n == len(b) && cstr(b[48:]) == "dynamic" {
			d.SpaceType, d.HeapType, d.VMType = cstr(b[:32]), cstr(b[32:48]), cstr(b[48:])
		}
		return d, nil
	}
	d.Trailer, d.DumpSize, d.MetadataSize = true, f.DumpSize, size-8-f.DumpSize
	d.SpaceType, d.HeapType, d.VMType = f.SpaceType, f.HeapType, f.VMType
	d.MetadataTypes = len(f.Meta.Types)
	var problems []string
	for _, p := range f.Problems {
		problems = append(problems, fmt.Sprintf("offset %d: %s", p.Offset, p.Msg))
	}
	// count reads the u32 count that starts section i.
	count := func(i int) int64 {
		if f.Sections[2*i+1] < 8 {
			return -1
		}
		b := make([]byte, 4)
		if _, err := ra.ReadAt(b, int64(f.Sections[2*i])); err != nil {
			problems = append(problems, fmt.Sprintf("offset %d: reading a section's count: %v", f.Sections[2*i], err))
			return -1
		}
		return int64(le32(b))
	}
	d.Roots, d.Strings = count(0), count(1)
	for i := 2; i < len(f.Sections)/2; i++ {
		if n := count(i); n >= 0 {
			d.Objects = max(d.Objects, 0) + n
			d.ObjectSections++
		}
	}
	if len(problems) > 0 {
		d.Problem = fmt.Sprint(problems)
	}
	return d, nil
}

// static reads a static dump's header (checked as the decoder checks it)
// and walks its records' headers, counting the items of each tag.
func (d *Description) static(ra io.ReaderAt) error {
	h := make([]byte, staticHeaderSize)
	if n, _ := ra.ReadAt(h, 0); n < len(h) {
		return errAt(int64(n), "static dump header of %d bytes ends at offset %d", staticHeaderSize, n)
	}
	sr := &staticReader{r: bufio.NewReader(bytes.NewReader(h)), d: &staticDump{}}
	if err := sr.header(); err != nil {
		return err
	}
	le := binary.LittleEndian
	d.Timestamp, d.Hybrid, d.HeaderCount = sr.d.timestamp, sr.d.language == staticLangHybrid, int64(le.Uint32(h[25:]))
	d.Objects, d.Strings, d.Roots = 0, 0, 0
	items := map[uint8]*int64{tagInstanceDump: &d.Objects, tagArrayDump: &d.Objects, tagStringDump: &d.Objects,
		tagStringUTF8: &d.Strings, tagRoot: &d.Roots, tagClassDump: &d.Classes, tagXRef: &d.XRefs}
	off := int64(staticHeaderSize)
	rh := make([]byte, staticRecordHdrSize)
	for {
		n, err := ra.ReadAt(rh, off)
		if n == 0 && (err == io.EOF || err == nil) {
			return nil
		}
		if n < len(rh) {
			d.Problem = fmt.Sprintf("offset %d: record header of %d bytes ends after %d", off, len(rh), n)
			return nil
		}
		tag, length, cnt := rh[0], le.Uint32(rh[9:]), le.Uint32(rh[13:])
		if length > staticMaxBody {
			d.Problem = fmt.Sprintf("offset %d: record tag %#x: body length %d is over the limit of %d", off, tag, length, staticMaxBody)
			return nil
		}
		// The body's last byte tells whether the record is whole.
		if length > 0 {
			if n, _ := ra.ReadAt(rh[:1], off+staticRecordHdrSize+int64(length)-1); n < 1 {
				d.Problem = fmt.Sprintf("offset %d: record tag %#x: body of %d bytes cut by the end of the file", off, tag, length)
				return nil
			}
		}
		d.Records++
		if p := items[tag]; p != nil && cnt <= length && cnt <= staticMaxItems {
			*p += int64(cnt)
		}
		off += staticRecordHdrSize + int64(length)
	}
}
