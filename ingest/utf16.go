package ingest

import (
	"bufio"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// utf16Reader transcodes UTF-16 text (after its byte order mark) to UTF-8, as
// a stream (Trace Event files may come as UTF-16, docs/format/traceevent.md#detection).
// Lone surrogates become U+FFFD; an odd last byte is dropped.
type utf16Reader struct {
	r         *bufio.Reader
	bigEndian bool
	out       []byte // transcoded bytes not yet returned
	high      rune   // a high surrogate waiting for its low half, or 0
	err       error
}

func newUTF16Reader(r io.Reader, bigEndian bool) *utf16Reader {
	return &utf16Reader{r: bufio.NewReaderSize(r, 64<<10), bigEndian: bigEndian}
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			if u.high != 0 {
				u.out = utf8.AppendRune(u.out, utf8.RuneError)
				u.high = 0
				continue
			}
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill transcodes the next block of input into out.
func (u *utf16Reader) fill() {
	var pair [2]byte
	for i := 0; i < 16<<10; i++ {
		if _, err := io.ReadFull(u.r, pair[:]); err != nil {
			if err == io.ErrUnexpectedEOF {
				err = io.EOF // an odd last byte
			}
			u.err = err
			return
		}
		c := rune(pair[0]) | rune(pair[1])<<8
		if u.bigEndian {
			c = rune(pair[1]) | rune(pair[0])<<8
		}
		switch {
		case u.high != 0 && c >= 0xDC00 && c <= 0xDFFF:
			u.out = utf8.AppendRune(u.out, utf16.DecodeRune(u.high, c))
			u.high = 0
			continue
		case u.high != 0:
			u.out = utf8.AppendRune(u.out, utf8.RuneError)
			u.high = 0
		}
		switch {
		case c >= 0xD800 && c <= 0xDBFF:
			u.high = c
		case c >= 0xDC00 && c <= 0xDFFF:
			u.out = utf8.AppendRune(u.out, utf8.RuneError)
		default:
			u.out = utf8.AppendRune(u.out, c)
		}
	}
}
