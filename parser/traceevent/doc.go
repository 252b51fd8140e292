// Package traceevent imports Chrome Trace Event Format files
// (docs/format/traceevent.md) into the output tables. It is the last stage of
// a pipeline modelled on Perfetto's JSON importer, each stage a package:
//
//	tokenizer  the container: traceEvents elements as raw JSON, one at a time
//	event      an element's fields decoded; the binary record; the sort key
//	extsort    records in processing order, spilling to disk past a budget
//	tracker    state built from events in order: threads, slices, flows, …
//	traceevent (this package) the pipeline, the dispatch of each event to its
//	           trackers, and the writers that turn tracker results into rows
//	           and problems into stat rows
//
// Only this package knows rows, schema and stat. It must not parse JSON
// itself (the stages below do) nor know SQL (the store does).
package traceevent
