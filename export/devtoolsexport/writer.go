package devtoolsexport

import (
	"io"
	"strconv"

	"tracestreamer/parser/jsonscan"
)

// writer appends JSON text to a buffer that it hands to the file whenever it
// holds 256 KiB.
type writer struct {
	w   io.Writer
	buf []byte
	n   int64 // bytes written so far
	err error
}

const bufSize = 256 << 10

func newWriter(w io.Writer) *writer { return &writer{w: w, buf: make([]byte, 0, bufSize+4096)} }

// more hands the buffer to the file when it is full.
func (w *writer) more() {
	if len(w.buf) >= bufSize {
		w.flush()
	}
}

func (w *writer) flush() error {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.w.Write(w.buf)
		w.n += int64(len(w.buf))
	}
	w.buf = w.buf[:0]
	return w.err
}

func (w *writer) str(s string) { w.buf = append(w.buf, s...); w.more() }

func (w *writer) int(v int64) { w.buf = strconv.AppendInt(w.buf, v, 10) }

// micros writes ns as µs: an integer, or a decimal fraction with the
// nanoseconds (the importer reads µs to the nanosecond).
func (w *writer) micros(ns int64) {
	neg := ns < 0
	if neg {
		w.buf = append(w.buf, '-')
		ns = -ns // (math.MinInt64 ns is not a time the importer writes)
	}
	w.buf = strconv.AppendInt(w.buf, ns/1000, 10)
	if f := ns % 1000; f != 0 {
		d := []byte{'.', byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		for d[len(d)-1] == '0' {
			d = d[:len(d)-1]
		}
		w.buf = append(w.buf, d...)
	}
}

// quote writes s as a JSON string the way V8's heap snapshot writer does
// (jsonscan.EscapeNonASCII). SQLite's text is UTF-8; a byte that is not valid
// UTF-8 is written as U+FFFD, which is what the importer makes of it.
func (w *writer) quote(s []byte) {
	w.buf = jsonscan.AppendStringEscaping(w.buf, s, jsonscan.EscapeNonASCII)
	w.more()
}
