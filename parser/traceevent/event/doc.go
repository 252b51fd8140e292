// Package event is the Trace Event importer's event model: Event (the common
// fields of one traceEvents element, decoded), its decoders (a fast path for
// the usual shapes and a general one that tolerates duplicate keys and
// trailing commas), the argument flattening of docs/format/traceevent.md, the
// compact binary record an event is kept in while it is sorted, and the
// Orderer that gives each event its processing-order key.
//
// Elements are decoded by our own decoder (fastdecode.go, falling back to
// jsonscan), not by github.com/bytedance/sonic (v1.15.5): on the 158 000
// elements of the bundled real captures (BenchmarkElements: Chromium busy
// page and startup, node I/O program and short script; each element to its
// Event and record), in two sets of runs on this 2-core machine with other
// jobs running, ours took 581–719 and 1050–1135 ns/element (283–350 and
// 179–193 MB/s of elements); sonic finding the members, with the importer's
// field decoding giving them meaning, 1223–1668 and 1930–2065 ns/element
// (122–166 and 98–105 MB/s); sonic decoding strings and numbers itself,
// still short of the importer's conversions, 1054–1527 and 1860–1900
// ns/element (133–193 and 107–109 MB/s). Sonic is about twice as slow on
// this work: most of its time goes to its own decoding and skipping of each
// member (its profile), before the conversions the importer needs anyway,
// and it keeps the last of duplicate keys silently, which the importer
// must count.
//
// It must not keep state across events other than interned strings and the
// Orderer's per-thread glue, nor know tables, rows or stat rows: what an event
// means for the trace is the trackers' business (package tracker).
package event
