package ingest

import (
	"context"
	"io"
)

// Sniffed is an input opened as a conversion opens it: decompressed, with the
// format its content was recognised as.
type Sniffed struct {
	Format      string    // the name of one of inputFormats (htrace, heapsnapshot, rawheap, …); "" when not recognised
	Compression string    // none, gzip, zlib, zip
	Content     io.Reader // the decompressed content, from its start
	Head        []byte    // the first bytes of Content (up to 64 KiB)
	path        string
	close       func()
}

// Close closes the input.
func (s *Sniffed) Close() { s.close() }

// Sniff opens path ("-": stdin) as Run would and recognises its format,
// without reading further than the start. count, if not nil, wraps the reader
// of the file's own (compressed) bytes.
func Sniff(path string, stdin io.Reader, count func(io.Reader) io.Reader) (*Sniffed, error) {
	if count == nil {
		count = func(r io.Reader) io.Reader { return r }
	}
	o, err := open(context.Background(), path, stdin, count)
	if err != nil {
		return nil, err
	}
	return &Sniffed{Format: string(o.format), Compression: o.compression, Content: o.r, Head: o.head, path: path, close: o.close}, nil
}
