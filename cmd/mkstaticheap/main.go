// Command mkstaticheap writes ArkTS static-runtime heap dumps (.rawheap
// "3.0.0", ArkTS 1.2) from DevTools/V8 heap snapshots, the way the static
// runtime's dumper writes them, for tests and examples
// (docs/format/rawheap.md#static-dumps-300). Several inputs are dumps of one
// process: an object has the same id in each, as the runtime numbers them.
//
// Usage:
//
//	mkstaticheap [-max N [-focus NAMES]] IN.heapsnapshot[.gz] OUT.rawheap [IN OUT]...
//	mkstaticheap [-max N [-focus NAMES]] -hybrid -dyn DYN.heapsnapshot IN.heapsnapshot[.gz] OUT.rawheap
//	mkstaticheap -cut -max N [-focus NAMES] IN.heapsnapshot[.gz] OUT.heapsnapshot
//
// With -hybrid the dump is the static half of a hybrid pair (language 2) and
// carries cross-VM references to objects of the V8 heap -dyn, the heap the
// pair's dynamic dump was made from; a dynamic node id is the V8 id. With
// -cut it writes the part of the heap -max keeps as a heap snapshot, from
// which both halves of a small pair can be made.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"tracestreamer/parser/rawheap/rawheaptest"
)

func main() {
	max := flag.Int("max", 0, "keep at most N objects, the first found from the roots (0: all)")
	hybrid := flag.Bool("hybrid", false, "write the static half of a hybrid pair")
	dyn := flag.String("dyn", "", "with -hybrid: the V8 heap the pair's dynamic dump was made from")
	focus := flag.String("focus", "", "comma-separated V8 constructor names whose objects (and their paths from a root) -max keeps")
	xrefs := flag.Int("xrefs", 24, "with -hybrid: how many cross-VM references to write")
	cut := flag.Bool("cut", false, "write a heap snapshot of the objects -max keeps (the input of both runtimes' generators for a pair), not a dump")
	ts := flag.Uint64("timestamp", 1795000000000, "header timestamp, ms since the epoch")
	flag.Parse()
	if flag.NArg() < 2 || flag.NArg()%2 != 0 || flag.NArg() > 2 && (*cut || *hybrid) {
		fmt.Fprintln(os.Stderr, "usage: mkstaticheap [-max N [-focus NAMES]] [-hybrid -dyn DYN.heapsnapshot] IN.heapsnapshot[.gz] OUT.rawheap [IN OUT]...")
		os.Exit(2)
	}
	if err := run(flag.Args(), *max, *focus, *cut, *hybrid, *dyn, *xrefs, *ts); err != nil {
		fmt.Fprintln(os.Stderr, "mkstaticheap:", err)
		os.Exit(1)
	}
}

func readHeap(path string) (*rawheaptest.V8Heap, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	h, err := rawheaptest.ReadV8Heap(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

func run(args []string, max int, focus string, cut, hybrid bool, dynPath string, nx int, ts uint64) error {
	var heaps []*rawheaptest.V8Heap
	for i := 0; i < len(args); i += 2 {
		h, err := readHeap(args[i])
		if err != nil {
			return err
		}
		heaps = append(heaps, h)
	}
	o := rawheaptest.StaticOptions{MaxObjects: max, Focus: strings.Split(focus, ","), Hybrid: hybrid, Timestamp: ts, RecordTime: 86_400_000}
	if len(heaps) > 1 {
		// The dumps of one process: one numbering of objects.
		o.Session = rawheaptest.NewSession(heaps, o)
		for i, h := range heaps {
			b, _ := rawheaptest.WriteStatic(h, o)
			if err := os.WriteFile(args[2*i+1], b, 0o644); err != nil {
				return err
			}
			o.Timestamp += 60_000
		}
		return nil
	}
	h, out := heaps[0], args[1]
	if cut {
		b, err := rawheaptest.CutV8Heap(h, max, strings.Split(focus, ","))
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	}
	if hybrid {
		if dynPath == "" {
			return errors.New("-hybrid needs -dyn")
		}
		dh, err := readHeap(dynPath)
		if err != nil {
			return err
		}
		// A first pass finds the static objects; the references join
		// objects of the same name on both sides.
		_, objs := rawheaptest.WriteStatic(h, o)
		o.XRefs = rawheaptest.PairXRefs(h, objs, dh, nx)
	}
	b, _ := rawheaptest.WriteStatic(h, o)
	return os.WriteFile(out, b, 0o644)
}
