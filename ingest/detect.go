package ingest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"tracestreamer/parser/jsonscan"
)

// sniffSize is how much of the (decompressed) start of an input detection reads.
const sniffSize = 64 << 10

// opened is an input opened for reading: decompressed, with its format.
type opened struct {
	r           io.Reader // the (decompressed) content, buffered
	format      format
	compression string // none, gzip, zlib, zip
	head        []byte
	close       func()
}

// open opens path ("-": stdin), unwraps gzip, zlib or a single-entry zip
// archive, and detects the format of the content. Bytes read from the file
// itself are counted by count.
//
// A stream that is not a regular file (standard input, a pipe, a device) is
// read on a goroutine of its own, so that cancelling ctx interrupts even a read
// that waits for a writer that never writes (the readers made by count stop at
// the next read).
func open(ctx context.Context, path string, stdin io.Reader, count func(io.Reader) io.Reader) (*opened, error) {
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("open input: no standard input")
		}
		return openReader(newPipeReader(ctx, stdin), nil, path, count)
	}
	f, err := openCtx(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open input: %w", err)
	}
	if !isRegular(f) {
		return openReader(pipeFile{newPipeReader(ctx, f), f}, f, path, count)
	}
	return openReader(f, f, path, count)
}

// pipeFile is a file read through a pipeReader.
type pipeFile struct {
	*pipeReader
	f *os.File
}

func (p pipeFile) Close() error {
	p.pipeReader.Close()
	return p.f.Close()
}

// openReader is open on an opened stream; file, if not nil, allows random
// access (a zip archive needs it).
func openReader(in io.ReadCloser, file *os.File, path string, count func(io.Reader) io.Reader) (*opened, error) {
	f := in
	o := &opened{compression: "none", close: func() { f.Close() }}
	raw := bufio.NewReaderSize(count(f), 1<<20)
	magic, _ := raw.Peek(4)
	var content io.Reader = raw
	switch compressionOf(magic) {
	case "gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			o.close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		content, o.compression = zr, "gzip"
	case "zlib":
		zr, err := zlib.NewReader(raw)
		if err != nil {
			o.close()
			return nil, fmt.Errorf("%s: zlib: %w", path, err)
		}
		content, o.compression = zr, "zlib"
	case "zip":
		if file == nil || !isRegular(file) {
			o.close()
			return nil, fmt.Errorf("%s: a zip archive can only be read from a regular file, not a pipe", path)
		}
		r, err := openZip(file, path)
		if err != nil {
			o.close()
			return nil, err
		}
		content, o.compression = count(r), "zip"
	}
	br := bufio.NewReaderSize(content, 1<<20)
	if bom, _ := br.Peek(2); len(bom) == 2 && (bom[0] == 0xff && bom[1] == 0xfe || bom[0] == 0xfe && bom[1] == 0xff) {
		// UTF-16 text: read it as UTF-8 from here on.
		big := bom[0] == 0xfe
		br.Discard(2)
		br = bufio.NewReaderSize(newUTF16Reader(br, big), 1<<20)
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3) // a UTF-8 byte order mark says nothing the decoders need
	}
	head, err := br.Peek(sniffSize)
	// A damaged compressed stream still yields what came before the damage;
	// its parser reports the error when it gets there.
	if err != nil && len(head) == 0 && !errors.Is(err, io.EOF) {
		o.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	o.r, o.head, o.format = br, head, detect(head)
	return o, nil
}

// isRegular reports whether f is a regular file (not a pipe, socket or device).
func isRegular(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode().IsRegular()
}

// openZip returns the content of the only file in a zip archive.
func openZip(f *os.File, path string) (io.Reader, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, info.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: zip: %w", path, err)
	}
	var files []*zip.File
	for _, e := range zr.File {
		if !e.FileInfo().IsDir() {
			files = append(files, e)
		}
	}
	if len(files) != 1 {
		return nil, fmt.Errorf("%s: zip archive holds %d files; tracestreamer reads archives of exactly one", path, len(files))
	}
	return files[0].Open()
}

// detectJSON recognises the JSON inputs. An array, or an object with a
// "traceEvents", "systemTraceEvents" or "displayTimeUnit" member anywhere in
// the head, is a Trace Event file (docs/format/traceevent.md#detection). Otherwise the
// members of the top-level object tell a heap snapshot from a CPU profile:
// "snapshot" (or "nodes" holding numbers) is a heap snapshot; "nodes" holding
// objects, "head", "samples", "timeDeltas", "timestamps" or "startTime" is a
// CPU profile.
func detectJSON(head []byte) format {
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return formatTraceEvent
	}
	js := jsonscan.NewBytes(head)
	result := formatUnknown
	js.Object(func(key []byte) error {
		switch string(key) {
		case "traceEvents", "systemTraceEvents", "displayTimeUnit":
			result = formatTraceEvent
			return errStop
		case "snapshot", "edges", "strings", "trace_function_infos", "trace_tree":
			result = formatHeapSnapshot
		case "head", "samples", "timeDeltas", "timestamps", "startTime", "endTime":
			result = formatCPUProfile
		case "nodes":
			off := js.Offset()
			rest := bytes.TrimLeft(head[off:], " \t\r\n")
			if len(rest) > 1 && rest[0] == '[' {
				if c := bytes.TrimLeft(rest[1:], " \t\r\n"); len(c) > 0 {
					if c[0] == '{' {
						result = formatCPUProfile
					} else {
						result = formatHeapSnapshot
					}
				}
			}
		}
		if result == formatHeapSnapshot {
			return errStop
		}
		// A CPU profile's members also appear in the object form of a trace
		// ("samples"), whose traceEvents may come later: keep looking.
		return js.SkipValue()
	})
	return result
}

var errStop = errors.New("stop")

// statInputs returns each input's file information, nil where there is
// none: Run stats its inputs once, for the progress's total and for
// outputPageSize.
func statInputs(inputs []string) []os.FileInfo {
	infos := make([]os.FileInfo, len(inputs))
	for i, in := range inputs {
		if info, err := os.Stat(in); err == nil {
			infos[i] = info
		}
	}
	return infos
}

// outputPageSize is the output's page size for inputs, of file information
// infos (statInputs) (0: store's default, 64 KiB): smallPageSize when every
// input is an uncompressed regular file and together they are under
// smallInputs (docs/format/README.md#the-database-file).
// Each table's root page is written whether or not it holds rows, so
// 64 KiB pages cost a small input's database several MB of empty pages;
// the inputs whose size tells nothing of the output's (pipes, compressed
// files) keep the default.
func outputPageSize(inputs []string, infos []os.FileInfo) int {
	var total int64
	for i, in := range inputs {
		if in == "-" {
			return 0
		}
		st := infos[i]
		if st == nil || !st.Mode().IsRegular() {
			return 0
		}
		if total += st.Size(); total >= smallInputs || compressed(in) {
			return 0
		}
	}
	return smallPageSize
}

// smallInputs and smallPageSize: see outputPageSize.
const (
	smallInputs   = 64 << 20
	smallPageSize = 16 << 10
)

// compressed reports whether the file at path starts as a compressed input
// does (openReader), or cannot be read.
func compressed(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	return compressionOf(magic[:n]) != "none"
}

// compressionOf names the compression whose header starts magic, the first
// 4 bytes of an input (fewer if it is shorter): "gzip", "zlib", "zip" or
// "none".
func compressionOf(magic []byte) string {
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		return "gzip"
	case len(magic) >= 2 && magic[0] == 0x78 && (uint(magic[0])<<8|uint(magic[1]))%31 == 0:
		return "zlib"
	case bytes.Equal(magic, []byte("PK\x03\x04")):
		return "zip"
	}
	return "none"
}
