package htrace

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"

	"google.golang.org/protobuf/proto"

	"tracestreamer/proto/hiprofpb"
)

// Writer writes an .htrace file of one protobuf section, as the hiprofiler
// service does: a placeholder header, the records, then the final header with
// length, segment count, SHA-256 and clock snapshot. It is used to build test
// fixtures and benchmark inputs.
type Writer struct {
	w      io.WriteSeeker
	h      Header
	sum    hash.Hash
	n      int64
	closed bool
}

// NewWriter starts a file on w; clocks is the header's clock snapshot (zero: none).
func NewWriter(w io.WriteSeeker, clocks [NumClocks]uint64) (*Writer, error) {
	wr := &Writer{w: w, sum: sha256.New(),
		h: Header{Magic: Magic, Length: HeaderSize, Version: 0x10000, DataType: DataProtobuf, Clocks: clocks}}
	if _, err := w.Write(AppendHeader(nil, wr.h)); err != nil {
		return nil, fmt.Errorf("write htrace header: %w", err)
	}
	return wr, nil
}

// WriteRaw writes one record with an arbitrary payload.
func (wr *Writer) WriteRaw(payload []byte) error {
	var lenb [4]byte
	binary.LittleEndian.PutUint32(lenb[:], uint32(len(payload)))
	for _, b := range [][]byte{lenb[:], payload} {
		if _, err := wr.w.Write(b); err != nil {
			return fmt.Errorf("write htrace record: %w", err)
		}
		wr.sum.Write(b)
	}
	wr.h.Length += 4 + uint64(len(payload))
	wr.h.Segments += 2
	wr.n++
	return nil
}

// Write writes one ProfilerPluginData record.
func (wr *Writer) Write(rec *hiprofpb.ProfilerPluginData) error {
	b, err := proto.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	return wr.WriteRaw(b)
}

// Close rewrites the header with the final length, segments and checksum.
func (wr *Writer) Close() error {
	if wr.closed {
		return nil
	}
	wr.closed = true
	copy(wr.h.SHA256[:], wr.sum.Sum(nil))
	if _, err := wr.w.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewrite htrace header: %w", err)
	}
	if _, err := wr.w.Write(AppendHeader(nil, wr.h)); err != nil {
		return fmt.Errorf("rewrite htrace header: %w", err)
	}
	_, err := wr.w.Seek(0, io.SeekEnd)
	return err
}
