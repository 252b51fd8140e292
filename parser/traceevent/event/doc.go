// Package event is the Trace Event importer's event model: Event (the common
// fields of one traceEvents element, decoded), its decoders (a fast path for
// the usual shapes and a general one that tolerates duplicate keys and
// trailing commas), the argument flattening of docs/format/traceevent.md, the
// compact binary record an event is kept in while it is sorted, and the
// Orderer that gives each event its processing-order key.
//
// Elements are decoded by our own decoder (fastdecode.go, falling back to
// jsonscan): 581–719 ns an element on the bundled real captures
// (BenchmarkElements), about half of what github.com/bytedance/sonic takes for
// the same work (docs/performance.md), and duplicate keys are seen, which the
// importer must count.
//
// It must not keep state across events other than interned strings and the
// Orderer's per-thread glue, nor know tables, rows or stat rows: what an event
// means for the trace is the trackers' business (package tracker).
package event
