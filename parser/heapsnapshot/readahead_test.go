package heapsnapshot

import (
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tracestreamer/heapfile"
	"tracestreamer/parser/jsonscan"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// bigDoc is a snapshot whose arrays span many reads (and several of
// readAhead's blocks), with problems far into them: a repeated id, a
// negative self size, a value that is not an integer, an edge to no node,
// values left over after the last edge, a string that is not UTF-8;
// garbage, when given, replaces the target of edge garbage (by "x", or by
// two numbers without a comma with gap), and badString, string badString
// with a number.
func bigDoc(nodes, garbage, badString int, gap ...bool) string {
	var nb, eb, sb strings.Builder
	nb.WriteByte('[')
	for i := range nodes {
		if i > 0 {
			nb.WriteByte(',')
		}
		id, self := strconv.Itoa(2*i+1), strconv.Itoa(8*(i%50))
		switch i {
		case nodes * 2 / 3:
			id = "41" // node 20's id
		case nodes * 5 / 6:
			self = "-16"
		case nodes / 2:
			self = "1.5"
		}
		fmt.Fprintf(&nb, "%d,%d,%s,%s,2,0,0", 3+i%2, i%5, id, self)
	}
	nb.WriteByte(']')
	eb.WriteByte('[')
	for e := range 2 * nodes {
		if e > 0 {
			eb.WriteByte(',')
		}
		to := strconv.Itoa((e * 7919 % nodes) * 7)
		switch e {
		case nodes * 3 / 2:
			to = "15" // not a multiple of the node's 7 values
		case garbage:
			to = "x"
			if len(gap) > 0 {
				to = "7 14"
			}
		}
		fmt.Fprintf(&eb, "2,%d,%s", e%4, to)
	}
	eb.WriteString(",2,0]")
	sb.WriteByte('[')
	for i := range nodes / 2 {
		if i > 0 {
			sb.WriteByte(',')
		}
		switch i {
		case nodes / 3:
			sb.WriteString("\"not \xff UTF-8\"")
		case badString:
			sb.WriteString("7")
		default:
			fmt.Fprintf(&sb, "\"s%d\\n\"", i)
		}
	}
	sb.WriteByte(']')
	return doc{nodeCount: nodes, edgeCount: 2 * nodes, nodes: nb.String(), edges: eb.String(),
		strs: sb.String()}.String()
}

// TestReadAheadSameAsSerial: with more than one core the arrays' numbers are
// read on another goroutine, and with 8 or more by workers from the text
// that goroutine takes; the rows, the warnings (the offsets they name
// included) and the errors are those of reading them on the decoder's own.
func TestReadAheadSameAsSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const nodes = 30000 // 210 000 node values, 17 reads; 180 000 edge values
	for _, tt := range []struct {
		name    string
		text    string
		wantErr string
		spread  int // bytes a node value takes at most
	}{
		{"whole", bigDoc(nodes, -1, -1), "", 8},
		{"garbage in the edges", bigDoc(nodes, 40000, -1), "edges: offset", 8},
		{"no comma in the edges", bigDoc(nodes, 40000, -1, true), "edges: offset", 8},
		// The last value of a read (edge values 3e+2 = 10 × 12288 - 1).
		{"no comma after a read", bigDoc(nodes, 40959, -1, true), "edges: offset", 8},
		{"a number in the strings", bigDoc(nodes, -1, 9000), "strings: offset", 8},
		// Nodes of over 32 bytes a value (maxTextPerValue): read from the
		// stream on every core.
		{"spaced out", strings.ReplaceAll(bigDoc(nodes, -1, -1), ",2,0,0,", ",2,0,0,"+strings.Repeat(" ", 300)), "", 50},
	} {
		for _, analyse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/analyse=%v", tt.name, analyse), func(t *testing.T) {
				var got [3]*rows.Memory
				var warns [3][]string
				var errs [3]string
				for i, procs := range []int{1, 4, 8} {
					runtime.GOMAXPROCS(procs)
					got[i] = rows.NewMemory()
					o := heapfile.NewOutput(got[i], schema.New(), heapfile.Options{Analyse: analyse})
					_, err := o.Decode(1, Decoder(strings.NewReader(tt.text)), func(f string, a ...any) {
						warns[i] = append(warns[i], fmt.Sprintf(f, a...))
					})
					if err != nil {
						errs[i] = err.Error()
					}
					o.Flush()
				}
				for i, procs := range []int{4, 8} {
					if errs[0] != errs[i+1] || !strings.Contains(errs[0], tt.wantErr) || (tt.wantErr == "") != (errs[0] == "") {
						t.Fatalf("errors %q (1 core) and %q (%d cores), want one with %q", errs[0], errs[i+1], procs, tt.wantErr)
					}
					if !reflect.DeepEqual(warns[0], warns[i+1]) {
						t.Errorf("warnings differ:\n1 core:  %q\n%d cores: %q", warns[0], procs, warns[i+1])
					}
					if tt.wantErr == "" && !reflect.DeepEqual(got[0].Rows, got[i+1].Rows) {
						t.Errorf("rows differ on %d cores", procs)
					}
				}
				if tt.wantErr != "" {
					return // the rows of a failed file are the caller's to roll back
				}
				if n := len(got[1].Rows["js_heap_edges"]); n != 2*nodes {
					t.Errorf("%d edge rows, want %d", n, 2*nodes)
				}
				if s := got[1].Rows["js_heap_string"]; len(s) != nodes/2 || s[14999][2].Text != "s14999\n" {
					t.Errorf("%d string rows, want %d ending with \"s14999\\n\"", len(s), nodes/2)
				}
				all := strings.Join(warns[1], "\n")
				for _, want := range []string{
					"node 20000 has id 41, given ",
					"node 25000 has self size -16",
					"1 values that are not 64-bit integers were read as 0 (the first at offset ",
					"edge 45000 points to node offset 15, not a node",
					"2 values at the end of an array do not fill a tuple of 3; ignored",
					"string 10000 is not valid UTF-8; invalid bytes replaced by U+FFFD",
				} {
					if !strings.Contains(all, want) {
						t.Errorf("no warning with %q in\n%s", want, all)
					}
				}
				// The repeated id is named with the offset after the read that
				// holds it, far into the nodes array.
				m := regexp.MustCompile(`node 20000 has id 41, given \d+, near offset (\d+)`).FindStringSubmatch(all)
				if m == nil {
					t.Fatalf("no offset for the repeated id in\n%s", all)
				}
				at := strings.LastIndex(tt.text[:strings.Index(tt.text, `"edges"`)], ",41,")
				if off, _ := strconv.Atoi(m[1]); off < at || off > at+12288*tt.spread {
					t.Errorf("repeated id near offset %d, written at %d", off, at)
				}
			})
		}
	}
}

// TestReadAheadStopsOnPanic: a panic while the Writer takes a block (a bug)
// reaches the decoder's goroutine, and the reading goroutine is stopped and
// gone before tuples returns, with blocks still queued.
func TestReadAheadStopsOnPanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 300000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(i))
	}
	sb.WriteByte(']')
	before := runtime.NumGoroutine()
	d := &decoder{js: jsonscan.NewReader(strings.NewReader(sb.String()), 4096), ibuf: make([]int64, 3*4096)}
	var got any
	func() {
		defer func() { got = recover() }()
		seen := 0
		d.tuples(makeLayout(nil, edgeNames), func(_ layout, tp []int64) {
			if tp[0] != int64(3*seen) {
				t.Fatalf("tuple %d starts with %d", seen, tp[0])
			}
			if seen++; seen == 20000 { // in the second block
				panic("writer bug")
			}
		})
	}()
	if got != "writer bug" {
		t.Fatalf("recovered %v, want the writer's panic", got)
	}
	if d.piped {
		t.Error("still taking offsets from the blocks")
	}
	// The reader has closed its last channel when tuples returns; it may take
	// the runtime a moment to count it gone.
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			t.Fatalf("%d goroutines 1 s after the panic, %d before: the reader is still running",
				runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadAheadParsePanic: with workers, the blocks reach take in the order
// fill filled them, each once parsed; a panic of parse is raised when take
// would have had its block, after the blocks before it, and neither the
// reading goroutine nor the workers outlive readAhead.
func TestReadAheadParsePanic(t *testing.T) {
	type block struct{ i, parsed int }
	before := runtime.NumGoroutine()
	next := 0
	var taken []int
	var got any
	func() {
		defer func() { got = recover() }()
		readAhead(&decoder{}, true, 3, func() *block { return &block{} },
			func(b *block) bool {
				b.i, b.parsed = next, -1
				next++
				return next == 50
			},
			func(b *block) {
				if b.i == 20 {
					panic("parse bug")
				}
				time.Sleep(time.Duration(b.i%3) * time.Millisecond) // out of order
				b.parsed = b.i
			},
			func(b *block) (bool, error) {
				if b.parsed != b.i {
					t.Errorf("block %d taken before it was parsed", b.i)
				}
				taken = append(taken, b.i)
				return false, nil
			})
	}()
	if got != "parse bug" {
		t.Fatalf("recovered %v, want parse's panic", got)
	}
	if !slices.Equal(taken, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
		t.Errorf("took blocks %v, want 0 to 19 in order", taken)
	}
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			t.Fatalf("%d goroutines 1 s after the panic, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTextPanicOffset: a panic while a worker reads the values of a read
// of text names where that text starts, not how far the stream was read
// meanwhile (here forced by a read whose bounds lie past the block's text).
func TestTextPanicOffset(t *testing.T) {
	b := &intBlock{text: []byte("1,2,"), vals: make([]int64, 4),
		reads: []intRead{{text: true, first: true, start: 1000, lo: 0, hi: 4}, {text: true, start: 2000, lo: 4, hi: 10}}}
	var p any
	func() {
		defer func() { p = recover() }()
		b.parse(2)
	}()
	const want = "internal error at offset 2000 (please report it): runtime error: slice bounds out of range [:10] with capacity 4"
	if err := internalError(p, 5000); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if got := b.vals[:2]; got[0] != 1 || got[1] != 2 || b.reads[0].n != 2 {
		t.Errorf("the first read: values %v, n %d; want [1 2], 2", got, b.reads[0].n)
	}
}
