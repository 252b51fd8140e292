package cpuprofile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/tables"
)

// Invalid profiles of the shapes that once cost time quadratic in their size
// (issue 28): each is generated at a given size.
var hostileShapes = []string{"broken-first", "cut", "minimal", "legacy-deep", "arkts-names"}

// genHostile returns a profile of the shape, of about size bytes (legacy-deep
// has a fixed size: 65 538 levels, one more than the decoder accepts).
func genHostile(shape string, size int) []byte {
	var b bytes.Buffer
	switch shape {
	case "legacy-deep":
		const depth = 1<<16 + 2
		b.WriteString(`{"head":`)
		for i := 1; i <= depth; i++ {
			fmt.Fprintf(&b, `{"functionName":"f%d","scriptId":"1","url":"file:///a.js","lineNumber":3,"columnNumber":4,"hitCount":1,"id":%d,"children":[`, i, i)
		}
		for i := 0; i < depth; i++ {
			b.WriteString(`]}`)
		}
		b.WriteString(`,"startTime":1,"endTime":2,"samples":[],"timestamps":[]}`)
		return b.Bytes()
	}
	b.WriteString(`{"tid":1,"startTime":1000,"endTime":900000000,"nodes":[`)
	ids := 0
	for i := 1; b.Len() < size; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		ids = i
		switch shape {
		case "minimal":
			fmt.Fprintf(&b, `{"id":%d,"callFrame":{"functionName":"","scriptId":"0"}}`, i)
		case "arkts-names":
			// Every 16th name has what the ArkTS runtime leaves unescaped.
			name, module := fmt.Sprintf("f%d", i), ""
			if i%16 == 0 {
				name, module = fmt.Sprintf(`say "f%d"`, i), `,"moduleName":"C:\m"`
			}
			fmt.Fprintf(&b, `{"id":%d,"callFrame":{"functionName":"%s"%s,"scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1,"children":[]}`,
				i, name, module)
		default:
			sep := ","
			if i == 1 && shape == "broken-first" {
				sep = " " // a missing comma in the first node
			}
			fmt.Fprintf(&b, `{"id":%d%s"callFrame":{"functionName":"f%d","scriptId":"1","url":"file:///app/a.js","lineNumber":%d,"columnNumber":4},"hitCount":1,"children":[]}`,
				i, sep, i, i%1000)
		}
	}
	b.WriteString(`],"samples":[`)
	for i := 1; i <= ids; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", i)
	}
	b.WriteString(`],"timeDeltas":[`)
	for i := 1; i <= ids; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString("100")
	}
	b.WriteString(`]}`)
	if shape == "cut" || shape == "minimal" {
		return b.Bytes()[:b.Len()-b.Len()/100] // the last 1 % is missing
	}
	return b.Bytes()
}

// TestRepairLinear: the repair (repairReader) looks at each byte of the
// text a bounded number of times, whatever the shape; a profile that cannot
// be repaired is given up, one that can is repaired completely, as the
// whole-text Repair does.
func TestRepairLinear(t *testing.T) {
	size := 8 << 20
	if testing.Short() {
		size = 1 << 20
	}
	for _, shape := range hostileShapes {
		t.Run(shape, func(t *testing.T) {
			b := genHostile(shape, size)
			rr := newRepairReader(context.Background(), bytes.NewReader(b))
			if _, err := io.Copy(io.Discard, rr); err != nil {
				t.Fatal(err)
			}
			if rr.looked > 3*int64(len(b)) {
				t.Errorf("the repair looked at %d bytes of a %d-byte text", rr.looked, len(b))
			}
			fixed := rr.fixed
			if rr.gaveUp {
				fixed = 0
			}
			if _, want, _ := Repair(context.Background(), b); fixed != want {
				t.Errorf("the repair escaped %d names, Repair %d", fixed, want)
			}
			p, repaired, err := ParseRepairing(context.Background(), b)
			switch shape {
			case "arkts-names":
				if err != nil {
					t.Fatal(err)
				}
				// Every 16th node has two names to escape.
				if want := len(p.Nodes) / 16 * 2; repaired != want || fixed != want {
					t.Errorf("repaired %d (Repair: %d) names, want %d", repaired, fixed, want)
				}
				if n := p.Nodes[15]; n.FunctionName != `say "f16"` {
					t.Errorf("node 16 is called %q", n.FunctionName)
				}
			default:
				if err == nil {
					t.Fatalf("a %s profile parsed", shape)
				}
				if fixed != 0 {
					t.Errorf("%d names repaired in a profile that needs none", fixed)
				}
			}
		})
	}
}

// TestParseCancelled: a cancelled context stops the decoder and the repair
// with the context's error.
func TestParseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, shape := range hostileShapes {
		b := genHostile(shape, 1<<20)
		if _, _, err := ParseRepairing(ctx, b); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want %v", shape, err, context.Canceled)
		}
	}
}

// TestWriteHostile writes the generated profiles to $CPUPROFILE_HOSTILE_DIR
// (for measuring the command on them; skipped without it), at the sizes in
// $CPUPROFILE_HOSTILE_MB (default 1,2,4,8,64).
func TestWriteHostile(t *testing.T) {
	dir := os.Getenv("CPUPROFILE_HOSTILE_DIR")
	if dir == "" {
		t.Skip("CPUPROFILE_HOSTILE_DIR not set")
	}
	sizes := os.Getenv("CPUPROFILE_HOSTILE_MB")
	if sizes == "" {
		sizes = "1,2,4,8,64"
	}
	for _, shape := range hostileShapes {
		for _, mb := range strings.Split(sizes, ",") {
			var n int
			fmt.Sscan(mb, &n)
			name := fmt.Sprintf("%s-%dMB.cpuprofile", shape, n)
			if shape == "legacy-deep" {
				name = shape + ".cpuprofile"
			}
			if err := os.WriteFile(filepath.Join(dir, name), genHostile(shape, n<<20), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestWriteChildren: js_cpu_profiler_node.children joins a node's child ids
// with ",", for a node of none, one, many (a million, as a 4 MB list of
// "2," gives: 210 bytes of memory each, before) or ids beyond int32.
func TestWriteChildren(t *testing.T) {
	million := make([]int64, 1_000_000)
	for i := range million {
		million[i] = 2
	}
	for _, tc := range []struct {
		name     string
		children []int64
		want     string
	}{
		{"none", nil, ""},
		{"empty", []int64{}, ""},
		{"one", []int64{7}, "7"},
		{"several", []int64{2, 3, -4, 0}, "2,3,-4,0"},
		{"large ids", []int64{1 << 53, -1 << 63}, "9007199254740992,-9223372036854775808"},
		{"a million", million, strings.Repeat("2,", len(million)-1) + "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ts := rows.NewMemory(), schema.New()
			w := NewWriter(m, ts, tables.NewDict(m, ts), &rows.Range{})
			w.Write(&Profile{Nodes: []Node{{ID: 1, Children: tc.children}}}, 0, false, func(v int64) int64 { return v })
			w.Flush()
			nodes := m.Rows["js_cpu_profiler_node"]
			if len(nodes) != 1 {
				t.Fatalf("%d node rows, want 1", len(nodes))
			}
			if got := nodes[0][7].Text; got != tc.want {
				t.Errorf("children %.40q (%d bytes), want %.40q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
		})
	}
}
