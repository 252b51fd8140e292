package heapfile

import (
	"strconv"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// Files numbers the heap files (snapshots, timelines, dumps) of a run,
// whatever input they come from, and writes their js_heap_files rows and the
// comparisons between them.
type Files struct {
	out       *Output
	sink      rows.Sink
	log       *stat.Log
	tablesDef *schema.Tables
	tables    []*schema.Table // those a dropped file's rows are removed from
	files     tables.JSHeapFilesWriter
	diff      *tables.JSHeapClassDiffWriter // with the analysis only
	next      int64
	// prev is the run's last analysed file, for comparisons: consecutive
	// heap files of a run are compared whatever input they come from (a
	// .rawheap dump is always a file of its own), as leaks compare them.
	prev   *heapgraph.Objects
	prevID int64
}

// New returns the heap files of a run; each kept file is counted in log
// (js_memory, received).
func New(sink rows.Sink, t *schema.Tables, log *stat.Log, opts Options) *Files {
	f := &Files{
		out:       NewOutput(sink, t, opts),
		sink:      sink,
		log:       log,
		tablesDef: t,
		tables: []*schema.Table{t.JSHeapNodes, t.JSHeapEdges, t.JSHeapInfo, t.JSHeapLocation,
			t.JSHeapSample, t.JSHeapString, t.JSHeapTraceFunctionInfo, t.JSHeapTraceNode},
		files: tables.NewJSHeapFiles(sink, t),
	}
	if opts.Analyse {
		f.tables = append(f.tables, t.JSHeapNodeStats, t.JSHeapClass)
		diff := tables.NewJSHeapClassDiff(sink, t)
		f.diff = &diff
	}
	return f
}

// CompareLeaks makes the analysis compare the given heap files of the run for
// leaks the way memlab does (js_heap_leak, js_heap_leak_path,
// js_heap_leak_cluster). It does nothing without the analysis.
func (f *Files) CompareLeaks(files LeakFiles) {
	if f.out.stats == nil {
		return
	}
	f.out.leaks = newLeakState(f.sink, f.tablesDef, files)
	f.tables = append(f.tables, f.tablesDef.JSHeapLeak, f.tablesDef.JSHeapLeakPath, f.tablesDef.JSHeapLeakCluster)
}

// NextID returns the id the next heap file will get.
func (f *Files) NextID() int64 { return f.next }

// Place names a decoded heap file, given its id and summary, and gives its
// start and end time.
type Place func(id int64, s Summary) (name string, start, end int64)

// Read reads a heap file from dec and keeps it under the name and times
// place gives, or, when dec fails, drops its rows and returns the error (the
// file id is not used up). warn receives the problems dec and the Writer
// find; the inconsistencies the Writer counts by kind go to the run's log,
// under where (the input, and where in it).
func (f *Files) Read(where string, dec Decoder, warn Warner, place Place) (Summary, error) {
	file := f.Begin(where, warn)
	s, err := file.Decode(dec)
	if err != nil {
		file.Drop()
		return s, err
	}
	name, start, end := place(file.id, s)
	file.Keep(name, start, end)
	return s, nil
}

// File is a heap file being read: Begin, Decode, then Keep or Drop. No other
// file may begin until it is kept or dropped.
type File struct {
	files   *Files
	id      int64
	mark    rows.Mark
	warn    Warner
	report  Reporter
	sum     Summary
	objects *heapgraph.Objects
}

// Begin starts the next heap file: its rows are marked, to be removed again
// if it is dropped. where names the input (and where in it) in the warnings
// of the inconsistencies counted in the run's log.
func (f *Files) Begin(where string, warn Warner) *File {
	mark := f.sink.Mark(f.tables)
	h := &File{files: f, id: f.next, mark: mark, warn: warn}
	if f.log != nil {
		h.report = func(e stat.Event, t stat.Type, n int64, msg string) {
			if msg == "" {
				f.log.Add(e, t, n)
				return
			}
			f.log.Report(e, t, n, where, msg)
		}
	}
	return h
}

// ID returns the file's id (js_heap_files.id once kept).
func (h *File) ID() int64 { return h.id }

// Decode runs dec and writes the file's rows (Output.Decode). It may run on
// another goroutine than Begin and Keep, one file at a time.
func (h *File) Decode(dec Decoder) (Summary, error) {
	w, err := h.files.out.decodeFile(h.id, dec, h.warn, h.report)
	h.sum, h.objects = w.sum, w.objects
	return w.sum, err
}

// Drop removes the rows of the file. Its id is not used up.
func (h *File) Drop() { h.files.sink.Rollback(h.mark) }

// Keep writes the js_heap_files row of the decoded file, compares it with the
// run's previous one, and counts it.
func (h *File) Keep(name string, start, end int64) {
	f := h.files
	id := h.id
	f.files.Append(&tables.JSHeapFiles{ID: id, FileName: name, StartTime: start, EndTime: end, SelfSize: h.sum.SelfSize})
	f.next++
	if f.out.leaks != nil {
		f.out.leaks.added(id)
	}
	if h.objects != nil {
		if f.prev != nil {
			for _, d := range heapgraph.Diff(f.prev, h.objects) {
				f.diff.Append(&tables.JSHeapClassDiff{BaseFileID: f.prevID, FileID: id, Name: d.Name,
					AddedCount: d.Added, RemovedCount: d.Removed, CountDelta: d.Added - d.Removed,
					AddedSize: d.AddedSize, RemovedSize: d.RemovedSize, SizeDelta: d.AddedSize - d.RemovedSize})
			}
		}
		f.prev, f.prevID = h.objects, id
	}
	if f.log != nil {
		f.log.Add(stat.JSMemory, stat.Received, 1)
	}
}

// SnapshotName returns the reference's name of heap file id in snapshot mode.
func SnapshotName(id int64) string { return "Snapshot" + strconv.FormatInt(id, 10) }

// TimelineName is the reference's name of a heap timeline.
const TimelineName = "Timeline"

// Flush hands pending rows to the sink.
func (f *Files) Flush() {
	f.out.Flush()
	f.files.Flush()
	if f.diff != nil {
		f.diff.Flush()
	}
}
