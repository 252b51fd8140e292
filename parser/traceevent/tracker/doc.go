// Package tracker holds the Trace Event importer's trackers: the state built
// from events in processing order — processes and threads, slices on thread
// stacks and async tracks, legacy async events, flows, counters, instants and
// metadata, object instances and snapshots, memory dumps, markers, stack
// frames and CPU profile samples (docs/format/traceevent.md). Each tracker
// exposes what it made as plain Go values and counts of what it could not
// use.
//
// Trackers must not write rows, know tables or SQL, or report to the stat
// table: the importer (package traceevent) reads their results and counts and
// writes them. internal/archtest keeps the imports honest.
package tracker
