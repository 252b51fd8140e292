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
// of the file's own (compressed) bytes. Opening (a named pipe waits for its
// writer), recognising and every later read of Content stop with ctx's error
// once ctx is done.
func Sniff(ctx context.Context, path string, stdin io.Reader, count func(io.Reader) io.Reader) (*Sniffed, error) {
	if count == nil {
		count = func(r io.Reader) io.Reader { return r }
	}
	o, err := open(ctx, path, stdin, func(r io.Reader) io.Reader { return count(ctxReader{ctx, r}) })
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil { // the head was cut short: recognition is not to be trusted
		o.close()
		return nil, err
	}
	return &Sniffed{Format: string(o.format), Compression: o.compression, Content: ctxReader{ctx, o.r}, Head: o.head,
		path: path, close: o.close}, nil
}
