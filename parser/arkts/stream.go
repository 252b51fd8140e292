package arkts

import (
	"io"

	"tracestreamer/heapfile"
	"tracestreamer/parser/heapsnapshot"
)

// heapStream feeds the text of one heap snapshot, chunk by chunk, to a
// heapsnapshot decoder writing a heapfile.File on its own goroutine. At most a few chunks wait
// in between, so memory stays bounded whatever the snapshot's size.
type heapStream struct {
	file       *heapfile.File
	firstChunk int64 // record time (BOOTTIME ns) of the first chunk
	lastChunk  int64
	afterStart bool // a timeline start marker preceded the first chunk
	broken     bool // an invalid message arrived while the stream was open

	ch   chan []byte
	free chan []byte
	done chan heapResult
}

type heapResult struct {
	res heapfile.Summary
	err error
}

const streamQueue = 4

func startHeapStream(file *heapfile.File, bufs *heapsnapshot.Buffers) *heapStream {
	s := &heapStream{file: file, ch: make(chan []byte, streamQueue),
		free: make(chan []byte, streamQueue+2), done: make(chan heapResult, 1)}
	go func() {
		res, err := file.Decode(bufs.Decoder(&pipeReader{s: s}))
		for b := range s.ch { // drain what a failed decode did not read
			s.recycle(b)
		}
		s.done <- heapResult{res, err}
	}()
	return s
}

// buffer returns an empty buffer for the next chunk's text.
func (s *heapStream) buffer() []byte {
	select {
	case b := <-s.free:
		return b[:0]
	default:
		return nil
	}
}

func (s *heapStream) recycle(b []byte) {
	select {
	case s.free <- b:
	default:
	}
}

// send queues one chunk of text; the stream owns b afterwards.
func (s *heapStream) send(b []byte) { s.ch <- b }

// finish ends the text and waits for the decoder.
func (s *heapStream) finish() heapResult {
	close(s.ch)
	return <-s.done
}

// pipeReader is the decoder's side of a heapStream.
type pipeReader struct {
	s   *heapStream
	cur []byte
	pos int
}

func (r *pipeReader) Read(p []byte) (int, error) {
	for r.pos >= len(r.cur) {
		if r.cur != nil {
			r.s.recycle(r.cur)
			r.cur = nil
		}
		b, ok := <-r.s.ch
		if !ok {
			return 0, io.EOF
		}
		r.cur, r.pos = b, 0
	}
	n := copy(p, r.cur[r.pos:])
	r.pos += n
	return n, nil
}
