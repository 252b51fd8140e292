// Command mkrawheap writes ArkTS .rawheap files the way the runtime's writer
// does, from a V8 heap snapshot captured with node and the runtime's
// metadata.json (scripts/rawheap/metadata.sh makes it): test data for the
// .rawheap decoder (docs/format/rawheap.md).
//
//	mkrawheap -meta metadata.json -version 2.0.0 [-header] [-roots] [-hash] [-napi] [-max N -focus A,B] IN.heapsnapshot[.gz] OUT.rawheap
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"tracestreamer/parser/rawheap/rawheaptest"
)

func main() {
	meta := flag.String("meta", "", "the runtime's metadata.json")
	version := flag.String("version", "1.0.0", `layout: "1.0.0", "2.0.0", or "2024" (V1 without version or timestamp)`)
	ts := flag.Uint64("timestamp", 1764000000000000, "header timestamp (the runtime's system clock)")
	header := flag.Bool("header", false, "write the space, heap and VM type header fields (since 2026-04)")
	roots := flag.Bool("roots", false, "write the handle-root groups and the global-ref group (since 2026-02)")
	hash := flag.Bool("hash", false, "put JS objects' hashes in their ids' high bits (JsLeakWatcher)")
	sections := flag.Int("sections", 2, "object sections of a 2024 dump")
	maxObjects := flag.Int("max", 0, "keep this many of the V8 heap's objects (0: all), those a breadth-first walk from the root reaches first")
	copies := flag.Int("copies", 1, "write the heap this many times, at addresses and ids of their own (a big dump)")
	focus := flag.String("focus", "", "comma-separated names of objects kept first, with their path from the root")
	napi := flag.Bool("napi", false, "add wrapped NAPI objects (JS_WRAPPED_NAPI_OBJECT) with their native pointers (rawheaptest.NapiObjects)")
	flag.Parse()
	if flag.NArg() != 2 || *meta == "" {
		fmt.Fprintln(os.Stderr, "usage: mkrawheap -meta metadata.json [-version V] [flags] IN.heapsnapshot[.gz] OUT.rawheap")
		os.Exit(2)
	}
	var sub rawheaptest.Subset
	sub.Max = *maxObjects
	if *focus != "" {
		sub.Focus = strings.Split(*focus, ",")
	}
	if err := run(*meta, flag.Arg(0), flag.Arg(1), sub, *napi, rawheaptest.Options{Version: *version, Timestamp: *ts,
		HeaderFields: *header, RootGroups: *roots, Hash: *hash, Sections: *sections, Copies: *copies}); err != nil {
		fmt.Fprintln(os.Stderr, "mkrawheap:", err)
		os.Exit(1)
	}
}

func run(metaPath, in, out string, sub rawheaptest.Subset, napi bool, opt rawheaptest.Options) error {
	meta, err := os.ReadFile(metaPath)
	if err != nil {
		return err
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(in, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		r = zr
	}
	h, err := rawheaptest.FromV8(r, meta, sub)
	if err != nil {
		return err
	}
	if napi {
		h.AddNapi(rawheaptest.NapiObjects)
	}
	if opt.Version == "2024" {
		opt.Version, opt.Timestamp = "", 0
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := h.Write(o, opt); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
