// Package event is the Trace Event importer's event model: Event (the common
// fields of one traceEvents element, decoded), its decoders (a fast path for
// the usual shapes and a general one that tolerates duplicate keys and
// trailing commas), the argument flattening of docs/format/traceevent.md, the
// compact binary record an event is kept in while it is sorted, and the
// Orderer that gives each event its processing-order key.
//
// It must not keep state across events other than interned strings and the
// Orderer's per-thread glue, nor know tables, rows or stat rows: what an event
// means for the trace is the trackers' business (package tracker).
package event
