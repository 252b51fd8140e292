package cpuprofile

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"tracestreamer/internal/testutil"
)

// streamCases are texts on which the streaming functions must do exactly
// what the in-memory ones do: valid, repairable and broken profiles, and
// ArkTS layouts that Repair gives up on.
func streamCases() [][]byte {
	cases := []string{
		refProfile,
		`{"head":{"functionName":"(root)","id":1,"children":[{"functionName":"f","id":2,"lineNumber":3}]},"startTime":1.5,"endTime":2,"samples":[2,1],"timestamps":[1500001,1500003]}`,
		`{"nodes":[{"id":1,"callFrame":{"functionName":"a"b","scriptId":"0","url":""}}],"startTime":0,"samples":[1,1],"timeDeltas":[1,-1]}`,
		`{"nodes":[{"id":1,"callFrame":{"functionName":"a"b"}}],"startTime":0}`,
		`{"nodes":[{"id":1,"callFrame":{"functionName":"a\"b","scriptId":"0"}}],"startTime":0}`,
		// Escaped in the first, a name without scriptId at the end: Repair gives up.
		`{"nodes":[{"id":1,"callFrame":{"functionName":"a"b","scriptId":"0"}},{"id":2,"callFrame":{"functionName":"c"}}],"startTime":0}`,
		// A module name, a backslash, a separator split by nothing.
		`{"nodes":[{"id":1,"callFrame":{"functionName":"x\y","moduleName":"m"","scriptId":"0"}},{"id":2,"callFrame":{"functionName":"","moduleName":"","scriptId":"0"}}],"startTime":0,"samples":[2],"timeDeltas":[3]}`,
		// The first name to escape comes after the parse fails: not repaired.
		`{"nodes":[{"id":1 "callFrame":{"functionName":"a"b","scriptId":"0"}}],"startTime":0}`,
		`{"nodes":[],"startTime":0} x`,
		`{"nodes":[],"startTime":0}` + strings.Repeat(" ", 100000),
		`{"nodes":[],"startTime":0,"x":"` + strings.Repeat("y", 200000) + `"}`,
		`{"nodes":[],"startTime":0,"x":"` + strings.Repeat("y", 200000),
		`{"startTime":1,"samples":[],"timeDeltas":[]}`,
		`{"nodes":[],"startTime":0,"` + strings.Repeat("k", 100000) + `":{"a":1}}`,
		`{"nodes":[],"startTime":0,"` + strings.Repeat("k", 100000) + `":x}`,
		`{"nodes":[{"id":1},{"id":1}],"startTime":0}`,
		`"callFrame":{"functionName":"`,
		``,
		` `,
	}
	var out [][]byte
	for _, c := range cases {
		out = append(out, []byte(c))
	}
	for _, shape := range hostileShapes {
		g := genHostile(shape, 200000)
		out = append(out, g, g[:len(g)/2])
	}
	return out
}

// readers are the ways a text is handed over: whole, a byte at a time, in
// halves of what is asked.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"plain", func(r io.Reader) io.Reader { return r }},
	{"one byte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
}

// TestRepairReaderSameAsRepair: the streaming repair gives Repair's text,
// count and first offset, and gives up where it does.
func TestRepairReaderSameAsRepair(t *testing.T) {
	for i, text := range streamCases() {
		want, wantFixed, wantFirst := Repair(context.Background(), text)
		for _, rd := range readers {
			rr := newRepairReader(context.Background(), rd.wrap(bytes.NewReader(text)))
			got, err := io.ReadAll(rr)
			if err != nil {
				t.Fatalf("case %d, %s: %v", i, rd.name, err)
			}
			fixed, first := rr.fixed, rr.first
			if rr.gaveUp {
				got, fixed, first = text, 0, 0
			}
			if !bytes.Equal(got, want) || fixed != wantFixed || first != int64(wantFirst) {
				t.Errorf("case %d (%.60q…), %s: %d fixed from %d, want %d from %d; same text %v",
					i, text, rd.name, fixed, first, wantFixed, wantFirst, bytes.Equal(got, want))
			}
		}
	}
}

// TestParseReaderSameAsParse: ParseRepairingReader gives ParseRepairing's
// profile, count and error, the text read again or kept.
func TestParseReaderSameAsParse(t *testing.T) {
	for i, text := range streamCases() {
		sameAsParse(t, fmt.Sprintf("case %d", i), text)
	}
}

func sameAsParse(t *testing.T, name string, text []byte) {
	t.Helper()
	ctx := context.Background()
	want, wantN, wantErr := ParseRepairing(ctx, text)
	for _, rd := range readers {
		for _, reopen := range []bool{true, false} {
			var open func() (io.ReadCloser, error)
			if reopen {
				open = func() (io.ReadCloser, error) { return io.NopCloser(rd.wrap(bytes.NewReader(text))), nil }
			}
			got, n, err := ParseRepairingReader(ctx, rd.wrap(bytes.NewReader(text)), open)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || n != wantN || !reflect.DeepEqual(got, want) {
				t.Errorf("%s (%.60q…), %s, reopen %v: %d repaired, error %v; want %d, %v; same profile %v",
					name, text, rd.name, reopen, n, err, wantN, wantErr, reflect.DeepEqual(got, want))
			}
		}
	}
}

// TestParseReaderReadError: a read error is returned as itself, as
// io.ReadAll gave it, whatever the text held before it.
func TestParseReaderReadError(t *testing.T) {
	bad := errors.New("gzip: invalid checksum")
	for _, text := range []string{refProfile, `{"nodes":[`, `x`} {
		r := io.MultiReader(strings.NewReader(text), iotest.ErrReader(bad))
		_, _, err := ParseRepairingReader(context.Background(), r, nil)
		var re *ReadError
		if !errors.As(err, &re) || re.Err != bad {
			t.Errorf("%.20q: error %v, want a ReadError of %v", text, err, bad)
		}
	}
}

// FuzzParseReader: the streaming parse does what the in-memory one does.
func FuzzParseReader(f *testing.F) {
	for _, c := range streamCases() {
		if len(c) < 4096 {
			f.Add(c)
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		testutil.CountExec("FuzzParseReader")
		want, wantFixed, wantFirst := Repair(context.Background(), text)
		rr := newRepairReader(context.Background(), iotest.HalfReader(bytes.NewReader(text)))
		got, err := io.ReadAll(rr)
		if err != nil {
			t.Fatal(err)
		}
		if rr.gaveUp {
			got, rr.fixed, rr.first = text, 0, 0
		}
		if !bytes.Equal(got, want) || rr.fixed != wantFixed || rr.first != int64(wantFirst) {
			t.Fatalf("repair: %d from %d, want %d from %d", rr.fixed, rr.first, wantFixed, wantFirst)
		}
		sameAsParse(t, "fuzz", text)
	})
}

// bombSize is the length of the run of one byte inside the profiles of
// TestParseReaderBounded: their text is that long, their profile small.
const bombSize = 300 << 20

// writeBomb writes head, n bytes c and tail gzip-compressed to a file,
// holding none of it whole.
func writeBomb(t *testing.T, head string, c byte, n int64, tail string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bomb.cpuprofile.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.Write([]byte(head))
	chunk := bytes.Repeat([]byte{c}, 1<<20)
	for left := n; left > 0; left -= int64(len(chunk)) {
		zw.Write(chunk[:min(left, int64(len(chunk)))])
	}
	zw.Write([]byte(tail))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// openGzip returns the text of a gzip file, from its start.
func openGzip(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, f}, nil
}

// TestParseReaderBounded: a gzip file of a few hundred KB whose text is
// 300 MB of white space, of one skipped string or number, or of one member
// name is parsed (or repaired, or
// refused at the right offset) allocating far less than its text; read with
// io.ReadAll it cost over 300 MB.
func TestParseReaderBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 MB texts")
	}
	const node = `{"id":1,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1,"children":[]}`
	const arkNode = `{"id":1,"callFrame":{"functionName":"say "hi"","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1,"children":[]}`
	tests := []struct {
		name       string
		head       string
		c          byte
		tail       string
		reopen     bool
		nodes      int
		repaired   int
		wantErr    string
		wantSample []int64
	}{
		{"white space", `{"nodes":[` + node + `],`, ' ', `"startTime":0,"endTime":9,"samples":[1,1],"timeDeltas":[1,2]}`, true, 1, 0, "", []int64{1, 1}},
		{"skipped string", `{"nodes":[` + node + `],"meta":"`, 'y', `","startTime":0,"samples":[1],"timeDeltas":[1]}`, true, 1, 0, "", []int64{1}},
		{"long member name", `{"nodes":[` + node + `],"`, 'k', `":{"x":[1,2]},"startTime":0,"samples":[1],"timeDeltas":[1]}`, true, 1, 0, "", []int64{1}},
		{"skipped number", `{"nodes":[` + node + `],"n":1`, '0', `,"startTime":0,"samples":[1],"timeDeltas":[1]}`, true, 1, 0, "", []int64{1}},
		{"repaired, read again", `{"nodes":[` + arkNode + `],`, '\n', `"startTime":0,"samples":[1],"timeDeltas":[1]}`, true, 1, 1, "", []int64{1}},
		{"repaired, kept deflated", `{"nodes":[` + arkNode + `],`, '\n', `"startTime":0,"samples":[1],"timeDeltas":[1]}`, false, 1, 1, "", []int64{1}},
		{"missing comma", `{"nodes":[` + node + `]`, '\t', `"startTime":0}`, true, 0, 0,
			fmt.Sprintf("offset %d: expected ',' or closing bracket, found '\"'", len(`{"nodes":[`+node+`]`)+bombSize), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeBomb(t, tt.head, tt.c, bombSize, tt.tail)
			in, err := openGzip(path)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var reopen func() (io.ReadCloser, error)
			if tt.reopen {
				reopen = func() (io.ReadCloser, error) { return openGzip(path) }
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, repaired, err := ParseRepairingReader(context.Background(), in, reopen)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			// What was allocated bounds how much the heap grew at its peak.
			t.Logf("%d MB of text: %.1f MB allocated, %.1f MB of heap in use after", bombSize>>20, float64(alloc)/(1<<20), float64(after.HeapAlloc)/(1<<20))
			if alloc > 64<<20 {
				t.Errorf("allocated %d bytes for a %d-byte text", alloc, bombSize)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Nodes) != tt.nodes || repaired != tt.repaired || !reflect.DeepEqual(p.Samples, tt.wantSample) {
				t.Errorf("%d nodes, %d repaired, samples %v; want %d, %d, %v", len(p.Nodes), repaired, p.Samples, tt.nodes, tt.repaired, tt.wantSample)
			}
			if tt.repaired > 0 && p.Nodes[0].FunctionName != `say "hi"` {
				t.Errorf("repaired name %q", p.Nodes[0].FunctionName)
			}
		})
	}
}
