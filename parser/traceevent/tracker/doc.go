// Package tracker holds the Trace Event importer's trackers: the state built
// from events in processing order — processes and threads, slices on thread
// stacks and async tracks, legacy async events, flows, counters, instants and
// metadata, object instances and snapshots, memory dumps, markers, stack
// frames and CPU profile samples (docs/format/traceevent.md). Each tracker
// exposes what it made as plain Go values, returns what the caller needs to
// decide (the slice an event made or closed, whether an event was used), and
// counts what it could not use as it finds it, naming the stat cell (a typed
// stat.Event and stat.Type) to the Stats it was given, with the event's
// offset. A tracker owns the numbering of its rows: rows final when made are
// handed over by its Take, which forgets them; slices, final only when
// closed, by Slices.Take.
//
// Trackers must not write rows, know tables or SQL: the importer (package
// traceevent) writes their results. They may import stat only for its typed
// keys. internal/archtest keeps the imports honest.
package tracker
