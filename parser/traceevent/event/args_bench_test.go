package event

import (
	"reflect"
	"testing"

	"tracestreamer/parser/traceevent/tokenizer"
)

// BenchmarkArgs flattens the arguments of every element of the bundled
// captures with one long-lived decoder, as the second pass's workers do.
func BenchmarkArgs(b *testing.B) {
	els, _ := captureElements(b)
	var d Decoder
	var args [][]byte
	var size int64
	for _, raw := range els {
		ev, err := d.Decode(&tokenizer.Element{Raw: raw})
		if err != nil || ev.Args == nil {
			continue
		}
		args = append(args, ev.Args)
		size += int64(len(ev.Args))
	}
	b.SetBytes(size)
	var list []Arg
	n := 0
	for b.Loop() {
		for _, a := range args {
			var err error
			if list, err = AppendArgs(list[:0], a, &d); err != nil {
				b.Fatal(err)
			}
			n += len(list)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/arg")
}

// TestFastArgsCaptures checks that the fast flattener gives the general
// one's arguments for every element of the bundled captures, and that it
// takes nearly all of them.
func TestFastArgsCaptures(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the captures")
	}
	els, _ := captureElements(t)
	var d Decoder
	fast, total := 0, 0
	for i, raw := range els {
		ev, err := d.Decode(&tokenizer.Element{Raw: raw})
		if err != nil || ev.Args == nil {
			continue
		}
		args := ev.Args
		total++
		f := flattener{raw: args, out: new([]Arg)}
		if _, ok := f.fastValue(0, "", 0); ok {
			fast++
		}
		got, err1 := appendArgs(nil, args, nil, true)
		want, err2 := appendArgs(nil, args, nil, false)
		if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("element %d %s:\nfast %+v %v\ngeneral %+v %v", i, args, got, err1, want, err2)
		}
	}
	if fast < total*99/100 {
		t.Errorf("fast flattener took %d of %d argument objects", fast, total)
	}
}
