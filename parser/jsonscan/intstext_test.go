package jsonscan

import (
	"bytes"
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// intRead is the outcome of one read of up to n elements of an array: its
// values, whether the array ended, its error and the offset after it.
type intRead struct {
	Vals []int64
	Done bool
	Err  string
	End  int64
}

// readArray reads the integer array doc holds, per elements at a time, with
// ReadIntsLenient from d; with a limit, it takes each read's text with
// IntsText where it can and reads it from a Decoder of its own
// (NewBytesAt), as parser/heapsnapshot does, with the More(false) after it
// that takes the text's last comma. IntsText must not grow the buffer,
// whatever the limit.
func readArray(d *Decoder, per, limit int) ([]intRead, NonIntegers, error) {
	var bad NonIntegers
	if err := d.Expect('['); err != nil {
		return []intRead{{Err: err.Error(), End: d.Offset()}}, bad, nil
	}
	var out []intRead
	first := true
	for len(out) < 1000 {
		vals := make([]int64, per)
		if limit > 0 {
			start, size := d.Offset(), len(d.buf)
			text, ok := d.IntsText(nil, per, first, limit)
			if len(d.buf) != size {
				return nil, bad, fmt.Errorf("IntsText grew the buffer from %d to %d bytes", size, len(d.buf))
			}
			if ok {
				sub, f := NewBytesAt(text, start), first
				n, done, err := sub.ReadIntsLenient(vals, &f, &bad)
				r := intRead{Vals: vals[:n], End: sub.Offset()}
				if err != nil {
					r.Err = err.Error()
					return append(out, r), bad, nil
				}
				if done || n != per {
					return nil, bad, fmt.Errorf("read %d of the %d elements of the text %q, done %v", n, per, text, done)
				}
				out, first = append(out, r), false
				if more, err := sub.More(false); err != nil {
					return append(out, intRead{Vals: []int64{}, Err: err.Error(), End: sub.Offset()}), bad, nil
				} else if !more || !sub.AtEOF() {
					return nil, bad, fmt.Errorf("no comma at the end of the %d elements of the text %q", per, text)
				}
				continue
			}
		}
		n, done, err := d.ReadIntsLenient(vals, &first, &bad)
		r := intRead{Vals: vals[:n], Done: done, End: d.Offset()}
		if err != nil {
			r.Err = err.Error()
		}
		if out = append(out, r); done || err != nil {
			break
		}
	}
	return out, bad, nil
}

// checkIntsText reads doc per elements at a time through a buffer of size
// bytes, from the stream and through IntsText's texts of up to limit bytes,
// and compares the two.
func checkIntsText(t *testing.T, doc []byte, per, size, limit int) {
	t.Helper()
	want, wantBad, _ := readArray(NewReader(bytes.NewReader(doc), size), per, 0)
	got, gotBad, err := readArray(NewReader(iotest.HalfReader(bytes.NewReader(doc)), size), per, limit)
	if err != nil {
		t.Fatalf("%q, %d at a time: %v", doc, per, err)
	}
	if !reflect.DeepEqual(got, want) || gotBad != wantBad {
		t.Fatalf("%q, %d at a time through %d bytes:\nwith IntsText %+v %+v\nfrom the stream %+v %+v",
			doc, per, size, got, gotBad, want, wantBad)
	}
}

// TestIntsText: the elements read from the text IntsText takes off the
// stream are those read from the stream itself, errors and offsets
// included, whatever the elements and wherever the buffer ends.
func TestIntsText(t *testing.T) {
	long := "[" + strings.Repeat("12345,\n", 300) + "6]"
	for _, tt := range []struct {
		name, doc string
		texts     int // reads that IntsText takes, with 3 elements a read
		limit     int // of a text, if not 64 bytes
	}{
		{"plain", "[1,2,3,4,5,6,7]", 2, 0},
		{"spaced", "[ 1 , -2 ,\n3\n,4,5,6 ,7 ]", 2, 0},
		{"not integers", "[1.5,null,-0,12345678901234567890,3,1e2,true]", 2, 0},
		{"two commas", "[1,,2,3]", 1, 0},
		{"no comma", "[1 2,3,4,5]", 1, 0},
		{"no comma at the end of a read", "[1,2,3 4,5,6,7]", 1, 0},
		{"a string with commas", `[1,"a,b,c",2,3,4,5,6]`, 0, 0},
		{"a nested array", "[1,2,3,[4,5],6,7,8]", 1, 0},
		{"closed by a brace", "[1,2,3,4}", 1, 0},
		{"elements after the end", "[1,2],3,4,5,6,7]", 0, 0},
		{"a lone minus", "[-,1,2,3]", 1, 0},
		{"unterminated", "[1,2,3,4,5", 1, 0},
		{"long", long, 100, 0},
		// The first text is 20 bytes long (3 elements of 5 digits, each
		// with its comma, the first two with a \n too), the others 22 (they
		// start with the comma and \n before them).
		{"long texts", long, 0, 19},
		{"longer texts", long, 1, 21},
		{"texts as long as allowed", long, 100, 22},
	} {
		t.Run(tt.name, func(t *testing.T) {
			limit := cmp.Or(tt.limit, 64)
			for _, size := range []int{64, 256 << 10} {
				checkIntsText(t, []byte(tt.doc), 3, size, limit)
			}
			d := NewBytes([]byte(tt.doc))
			d.Expect('[')
			texts := 0
			for first := true; ; first = false {
				if _, ok := d.IntsText(nil, 3, first, limit); !ok {
					break
				}
				texts++
			}
			if texts != tt.texts {
				t.Errorf("IntsText took %d reads' text, want %d", texts, tt.texts)
			}
		})
	}
	// Texts of 140 bytes through a buffer of 64, under a limit of 1000:
	// read from the stream, the buffer not grown for them.
	checkIntsText(t, []byte(long), 20, 64, 1000)
}

func TestNthComma(t *testing.T) {
	for _, tt := range []struct {
		b          string
		k          int
		at, commas int
		stop       bool
	}{
		{"1,2,3", 2, 3, 0, false},
		{"12345678,1,2", 1, 8, 0, false},
		{"1234567,12345678,1", 2, 16, 0, false},
		{"1,2,3,4,5,6,7,8,9,10", 9, 17, 0, false},
		{"1,2,3", 3, -1, 2, false},
		{`1,2,"3,4`, 3, -1, 0, true},
		{`1,2,"3,4`, 2, 3, 0, false},
		{"1,2,3,4[5", 5, -1, 0, true},
		{"1,2,3,4]5,6,7,8", 5, -1, 0, true},
		{"{", 1, -1, 0, true},
		{"", 1, -1, 0, false},
	} {
		at, commas, stop := nthComma([]byte(tt.b), tt.k)
		if at != tt.at || commas != tt.commas || stop != tt.stop {
			t.Errorf("nthComma(%q, %d) = %d, %d, %v; want %d, %d, %v", tt.b, tt.k, at, commas, stop, tt.at, tt.commas, tt.stop)
		}
	}
}
