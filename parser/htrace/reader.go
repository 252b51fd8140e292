package htrace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"tracestreamer/stat"
)

// ErrNotHTrace is wrapped by the error Next returns when the input does not start
// with a section header.
var ErrNotHTrace = errors.New("not an htrace file")

// markPrefix starts an optional text line that a UI may put before the binary data.
const markPrefix = "MarkPositionJSON->"

// Record is one ProfilerPluginData record. Name, Data and Version alias the
// Reader's buffer and are valid until the next call of Next.
type Record struct {
	Index  int64 // 0-based position among the records of the input
	Offset int64 // byte offset of the record's length prefix

	Name           []byte
	HasName        bool
	Status         uint32
	Data           []byte
	ClockID        int32
	HasClockID     bool
	TvSec, TvNsec  uint64
	HasTvSec       bool
	HasTvNsec      bool
	Version        []byte
	SampleInterval uint32
	// Malformed is set when protobuf decoding stopped early; the fields decoded
	// before the fault are kept.
	Malformed error
}

// Time returns tv_sec·1e9 + tv_nsec, an absent field counting as 0; ok is false
// when neither field is present.
func (r *Record) Time() (ns uint64, ok bool) {
	return r.TvSec*1_000_000_000 + r.TvNsec, r.HasTvSec || r.HasTvNsec
}

// Reader reads the records of an .htrace stream in order.
type Reader struct {
	br   *bufio.Reader
	name string
	log  *stat.Log

	off      int64 // bytes consumed
	buf      []byte
	rec      Record
	nrec     int64
	sections int

	inSection  bool
	untilEOF   bool  // section of unknown length (placeholder header): records until EOF
	sectionEnd int64 // offset where the current section ends

	clock    Clock
	clockSet bool
	// OnHeader, if set, is called for every section header read.
	OnHeader func(h Header)
}

// NewReader returns a Reader of r; name identifies the input in messages.
// Problems that do not stop reading are counted in log and printed by it.
func NewReader(r io.Reader, name string, log *stat.Log) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), name: name, log: log}
}

// Clock returns the clock conversion in force: the snapshot of the first section
// header that has one, or the identity.
func (r *Reader) Clock() Clock { return r.clock }

// Records returns the number of records returned so far.
func (r *Reader) Records() int64 { return r.nrec }

func (r *Reader) where(off int64) string {
	return fmt.Sprintf("%s: offset %d", r.name, off)
}

func (r *Reader) warn(typ stat.Type, off int64, format string, args ...any) {
	r.log.Warn(stat.HTraceRecord, typ, r.where(off), format, args...)
}

func (r *Reader) read(n int) ([]byte, error) {
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	k, err := io.ReadFull(r.br, b)
	r.off += int64(k)
	return b[:k], err
}

// readLarge reads n bytes, growing the buffer as data actually arrives, so that
// a corrupt length cannot make it allocate gigabytes up front.
func (r *Reader) readLarge(n int64) ([]byte, error) {
	const first = 1 << 20
	if n <= first || int64(cap(r.buf)) >= n {
		return r.read(int(n))
	}
	b := r.buf[:0]
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(n, max(first, 2*int64(cap(b)))))
			copy(nb, b)
			b = nb
		}
		k := int(min(n-int64(len(b)), int64(cap(b)-len(b))))
		got, err := io.ReadFull(r.br, b[len(b):len(b)+k])
		r.off += int64(got)
		b = b[:len(b)+got]
		if err != nil {
			r.buf = b
			return b, err
		}
	}
	r.buf = b
	return b, nil
}

func (r *Reader) skip(n int64) (int64, error) {
	k, err := io.CopyN(io.Discard, r.br, n)
	r.off += k
	return k, err
}

// start handles an optional "MarkPositionJSON->" line at offset 0.
func (r *Reader) start() error {
	p, _ := r.br.Peek(len(markPrefix))
	if string(p) != markPrefix {
		return nil
	}
	line, err := r.br.ReadSlice('\n')
	r.off += int64(len(line))
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.br.ReadSlice('\n')
		r.off += int64(len(line))
	}
	if err != nil {
		return fmt.Errorf("%s: %w: %s line without end", r.name, ErrNotHTrace, markPrefix)
	}
	return nil
}

// nextSection reads section headers until one whose records are to be read.
// It returns io.EOF at a clean end of input. (A loop: a file may hold millions
// of sections to skip.)
func (r *Reader) nextSection() error {
	for {
		skipped, err := r.section()
		if err != nil || !skipped {
			return err
		}
	}
}

// section reads one section header; skipped tells that the section was of
// another data type and has been skipped.
func (r *Reader) section() (skipped bool, err error) {
	first := r.sections == 0
	if first {
		if err := r.start(); err != nil {
			return false, err
		}
	}
	hoff := r.off
	b, err := r.read(HeaderSize)
	if len(b) == 0 && err == io.EOF && !first {
		return false, io.EOF
	}
	if first && len(b) >= 8 && binary.LittleEndian.Uint64(b) != Magic {
		return false, fmt.Errorf("%s: %w: the file does not start with OHOSPROF", r.name, ErrNotHTrace)
	}
	if err != nil {
		if first {
			if len(b) < 8 {
				return false, fmt.Errorf("%s: %w: only %d bytes", r.name, ErrNotHTrace, len(b))
			}
			return false, fmt.Errorf("%s: header is %d bytes, want %d: the file is truncated", r.name, len(b), HeaderSize)
		}
		r.warn(stat.DataLost, hoff, "%d trailing bytes after the last section are not a section header", len(b))
		return false, io.EOF
	}
	h := parseHeader(b)
	h.Offset = hoff
	if h.Magic != Magic {
		r.warn(stat.DataLost, hoff, "bytes after the section that ends here are not a section header; ignored")
		return false, io.EOF
	}
	r.sections++
	if r.OnHeader != nil {
		r.OnHeader(h)
	}
	if !r.clockSet && h.Clocks[ClockBoottime] != 0 {
		if c := NewClock(h.Clocks); c.Valid() {
			r.clock, r.clockSet = c, true
		}
	}
	switch {
	case h.Length < HeaderSize:
		if first {
			return false, fmt.Errorf("%s: header length %d is smaller than the header itself", r.name, h.Length)
		}
		r.warn(stat.InvalidData, hoff, "section header length %d is smaller than the header; rest of file ignored", h.Length)
		return false, io.EOF
	case h.Length == HeaderSize:
		// The producer writes a placeholder header first and rewrites it at the end;
		// an interrupted capture keeps the placeholder. Read the records until EOF.
		if _, err := r.br.Peek(1); err != nil {
			if first {
				return false, fmt.Errorf("%s: the file holds no records", r.name)
			}
			return false, io.EOF
		}
		r.warn(stat.DataLost, hoff, "section header has length 1024 (capture not finished?); reading records until end of file")
		r.untilEOF = true
	}
	// A length past what an int64 offset can reach (2^63 and more, which
	// would wrap negative) only says the section runs to the end of the file.
	r.sectionEnd = math.MaxInt64
	if h.Length <= uint64(math.MaxInt64-hoff) {
		r.sectionEnd = hoff + int64(h.Length)
	}
	if h.DataType != DataProtobuf && h.DataType != DataUnknown && !r.untilEOF {
		r.log.Add(stat.Other, stat.NotSupported, 1)
		if n, err := r.skip(r.sectionEnd - hoff - HeaderSize); err != nil {
			r.warn(stat.DataLost, r.off, "section of data type %d ends after %d of %d bytes", h.DataType, n, h.Length-HeaderSize)
			return false, io.EOF
		}
		return true, nil
	}
	r.inSection = true
	return false, nil
}

// Next returns the next record, or io.EOF at the end of the input. A returned
// error other than io.EOF means the input is not a usable htrace file at all.
func (r *Reader) Next() (*Record, error) {
	for {
		if !r.inSection {
			if err := r.nextSection(); err != nil {
				return nil, err
			}
		}
		if !r.untilEOF && r.off >= r.sectionEnd {
			r.inSection = false
			continue
		}
		roff := r.off
		b, err := r.br.Peek(4)
		if err != nil {
			r.off += int64(len(b))
			switch {
			case len(b) == 0 && r.untilEOF:
			case len(b) == 0:
				r.warn(stat.DataLost, roff, "file ends %d bytes before the end of the section declared by its header", r.sectionEnd-roff)
			default:
				r.warn(stat.DataLost, roff, "file ends inside the length of record %d", r.nrec)
			}
			return nil, io.EOF
		}
		n := int64(binary.LittleEndian.Uint32(b))
		if !r.untilEOF && roff+4+n > r.sectionEnd {
			// A corrupt length: look for the next record after it.
			r.skip(1)
			lost := r.off
			if r.resync() {
				r.warn(stat.InvalidData, roff, "record %d: length %d exceeds the %d bytes left in its section; %d bytes skipped to the next record",
					r.nrec, n, r.sectionEnd-roff-4, r.off-lost+1)
			} else {
				r.warn(stat.InvalidData, roff, "record %d: length %d exceeds the %d bytes left in its section; no further record found in it",
					r.nrec, n, r.sectionEnd-roff-4)
			}
			r.nrec++
			continue
		}
		r.skip(4)
		data, err := r.readLarge(n)
		if err != nil {
			r.warn(stat.DataLost, roff, "file ends inside record %d (%d of %d bytes)", r.nrec, len(data), n)
			return nil, io.EOF
		}
		r.rec = Record{Index: r.nrec, Offset: roff}
		decodeRecord(&r.rec, data)
		r.nrec++
		return &r.rec, nil
	}
}

// resync skips to the next position that looks like the start of a record: a
// length that fits the section, followed by a ProfilerPluginData whose first
// field is a known plugin name (producers write the name first). It returns
// false, at the section's end, when there is none.
func (r *Reader) resync() bool {
	for {
		limit := int64(1 << 20)
		if !r.untilEOF {
			limit = min(limit, r.sectionEnd-r.off)
		}
		if limit <= 0 {
			return false
		}
		w, _ := r.br.Peek(int(limit))
		if len(w) == 0 {
			return false
		}
		for i := 0; i+6 <= len(w); {
			k := bytes.IndexByte(w[i+4:], 0x0a)
			if k < 0 {
				break
			}
			i += k
			if i+6 > len(w) {
				break
			}
			nameLen := int(w[i+5])
			if end := i + 6 + nameLen; end <= len(w) && KnownPlugin(string(w[i+6:end])) {
				n := int64(binary.LittleEndian.Uint32(w[i:]))
				if n >= int64(2+nameLen) && (r.untilEOF || r.off+int64(i)+4+n <= r.sectionEnd) {
					r.skip(int64(i))
					return true
				}
			}
			i++
		}
		// Keep the last bytes: a record start may straddle the window's end.
		keep := min(len(w), 4+2+127)
		if len(w) <= keep {
			r.skip(int64(len(w)))
			return false
		}
		r.skip(int64(len(w) - keep))
	}
}

// KnownPlugin reports whether name is a plugin name hiprofiler writes
// (docs/format/htrace.md#plugin-names, with the ArkTS names).
func KnownPlugin(name string) bool {
	switch name {
	case "arkts-plugin", "arkts-plugin_config",
		"process-plugin", "diskio-plugin", "memory-plugin", "memory-plugin_config",
		"hidump-plugin", "/data/local/tmp/libhidumpplugin.z.so", "hilog-plugin",
		"/data/local/tmp/libhilogplugin.z.so", "hisysevent-plugin", "hisysevent-plugin_config",
		"cpu-plugin", "network-plugin", "nativehook", "hookdaemon", "nativehook_config",
		"ftrace-plugin", "/data/local/tmp/libftrace_plugin.z.so", "ffrt-profiler",
		"ffrt-profiler_config", "stream-plugin", "xpower-plugin":
		return true
	}
	return false
}

// decodeRecord decodes a ProfilerPluginData message without copying, tolerating
// any field order and repeated fields (the last wins). Decoding stops at the first
// malformed field, keeping what was decoded before it.
func decodeRecord(rec *Record, b []byte) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			rec.Malformed = fmt.Errorf("bad field tag: %w", protowire.ParseError(n))
			return
		}
		b = b[n:]
		var v uint64
		var bs []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			bs, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			rec.Malformed = fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
			return
		}
		b = b[n:]
		wantBytes := num == 1 || num == 3 || num == 7
		if (typ == protowire.BytesType) != wantBytes && num >= 1 && num <= 8 {
			rec.Malformed = fmt.Errorf("field %d has wire type %d", num, typ)
			continue
		}
		switch num {
		case 1:
			rec.Name, rec.HasName = bs, true
		case 2:
			rec.Status = uint32(v)
		case 3:
			rec.Data = bs
		case 4:
			rec.ClockID, rec.HasClockID = int32(v), true
		case 5:
			rec.TvSec, rec.HasTvSec = v, true
		case 6:
			rec.TvNsec, rec.HasTvNsec = v, true
		case 7:
			rec.Version = bs
		case 8:
			rec.SampleInterval = uint32(v)
		}
	}
}

// IsHTrace reports whether the start of a file looks like an htrace file.
func IsHTrace(head []byte) bool {
	if bytes.HasPrefix(head, []byte(markPrefix)) {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			return false
		}
		head = head[i+1:]
	}
	return len(head) >= 8 && binary.LittleEndian.Uint64(head) == Magic
}
