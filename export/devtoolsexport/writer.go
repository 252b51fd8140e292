package devtoolsexport

import (
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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

const hex = "0123456789ABCDEF"

// quote writes s as a JSON string the way V8's heap snapshot writer does:
// printable ASCII as it is, '"' and '\\' escaped, \b \f \n \r \t, and every
// other character as \uXXXX (upper-case hex; a pair of surrogates above
// U+FFFF, where V8 keeps only the low 16 bits). SQLite's text is UTF-8; a
// byte that is not valid UTF-8 is written as U+FFFD, which is what the
// importer makes of it.
func (w *writer) quote(s []byte) {
	b := append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			r, n := rune(c), 1
			if c >= utf8.RuneSelf {
				r, n = utf8.DecodeRune(s[i:])
			}
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				b = appendU(appendU(b, r1), r2)
			} else {
				b = appendU(b, r)
			}
			i += n
			start = i
			continue
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	w.buf = append(b, '"')
	w.more()
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
