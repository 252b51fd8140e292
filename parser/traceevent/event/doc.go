// Package event is the Trace Event importer's event model: Event (the common
// fields of one traceEvents element, decoded), its decoders (a fast path for
// the usual shapes and a general one that tolerates duplicate keys and
// trailing commas), the argument flattening of docs/format/traceevent.md, the
// compact binary record an event is kept in while it is sorted, and the
// Orderer that gives each event its processing-order key.
//
// Elements are decoded by our own decoder (fastdecode.go, falling back to
// jsonscan), not by github.com/bytedance/sonic: on the 158 000 elements of
// the bundled real captures (BenchmarkElements: Chromium busy page and
// startup, node I/O program and short script; each element to its Event and
// record), ours takes 1050–1135 ns/element (179–193 MB/s of elements), sonic
// finding the members and the importer's field decoding giving them meaning
// 1930–2065 ns/element (98–105 MB/s), and sonic decoding strings and
// numbers itself, still short of the importer's conversions,
// 1860–1900 ns/element (107–109 MB/s): sonic is 1.7–1.9 times slower on
// this work (2-core machine, other jobs running; go test -bench Elements).
// Sonic validates and skips every nested value (args is most of an
// element's bytes) in full, where the fast decoder jumps over strings and
// checks only what the general decoder would refuse; sonic also keeps the
// last of duplicate keys silently, which the importer must count.
//
// It must not keep state across events other than interned strings and the
// Orderer's per-thread glue, nor know tables, rows or stat rows: what an event
// means for the trace is the trackers' business (package tracker).
package event
