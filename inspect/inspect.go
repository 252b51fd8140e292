// Package inspect describes an input or a tracestreamer database for
// `tracestreamer info`: for a trace file its format, compression, size and
// what it holds (heap files, CPU profiles, events by phase, a heap dump's
// objects); for a database its writer, sources, time range and tables.
//
// It must not write a database or any other file, nor change one, nor know a
// format: traces are opened as a conversion opens them and described by the
// entry of their format in ingest's registry (ingest.Sniff, Sniffed.Describe),
// which counts them with the parsers' own decoders; databases are read
// through store's read-only Reader.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"tracestreamer/ingest"
)

// Item is one line of what an input holds.
type Item struct {
	What  string
	Count int64
	Note  string // details, may be empty
}

// Trace is what info says about a trace file.
type Trace struct {
	Path        string
	Format      string // as the conversion names it (table source's format)
	Compression string
	Bytes       int64 // the file's bytes read
	Content     int64 // decompressed bytes read
	Holds       []Item
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n *int64
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// ErrUnknown is returned for a file that is neither a database nor an input
// tracestreamer reads.
var ErrUnknown = errors.New("not a tracestreamer database nor an input tracestreamer reads")

// ReadTrace reads the trace at path once and counts what it holds.
func ReadTrace(ctx context.Context, path string, stdin io.Reader) (*Trace, error) {
	t := &Trace{Path: path}
	s, err := ingest.Sniff(ctx, path, stdin, func(r io.Reader) io.Reader { return counter{r, &t.Bytes} })
	if err != nil {
		return nil, err
	}
	defer s.Close()
	t.Format, t.Compression = s.Format, s.Compression
	if s.Format == "" {
		if strings.HasSuffix(strings.ToLower(path), ".rawheap") {
			return nil, fmt.Errorf("%s: %w: not an ArkTS .rawheap (it starts with %q); a V8-format .rawheap from ArkWeb or JSVM is not read",
				path, ErrUnknown, head(s.Head, 8))
		}
		return nil, fmt.Errorf("%s: %w", path, ErrUnknown)
	}
	// The format's entry in ingest's registry describes it, reading it as
	// its parser does.
	t.Content, err = s.Describe(ctx, func(what string, n int64, note string) {
		t.Holds = append(t.Holds, Item{What: what, Count: n, Note: note})
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.Compression == "none" {
		t.Bytes = t.Content // a .rawheap is read only where its parts are
	}
	return t, nil
}

func head(b []byte, n int) []byte { return b[:min(n, len(b))] }

// IsDatabase reports whether path starts as a SQLite database does.
func IsDatabase(path string) bool {
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return false // a database is a regular file; opening a pipe would wait for its writer and take its first bytes
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "SQLite format 3\x00"
}
