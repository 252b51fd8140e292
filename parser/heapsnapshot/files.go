package heapsnapshot

import (
	"strconv"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/tables"
)

// Files numbers the heap files (snapshots and timelines) of a run, whatever
// input they come from, and writes their js_heap_files rows. Its Output holds the
// appenders every file's rows go to.
type Files struct {
	Out       Output
	sink      rows.Sink
	tablesDef *schema.Tables
	tables    []*schema.Table // those a dropped file's rows are removed from
	files     tables.JSHeapFilesWriter
	diff      *tables.JSHeapClassDiffWriter // with the analysis only
	next      int64
	// prev is the last file of the current input, for comparisons.
	prev   *heapgraph.Objects
	prevID int64
}

// NewFiles returns the heap file writer of a run; with analyse set, every file's
// object graph is analysed (js_heap_node_stats, js_heap_class) and consecutive
// files of one input are compared (js_heap_class_diff).
func NewFiles(sink rows.Sink, t *schema.Tables, analyse bool) *Files {
	f := &Files{
		Out:       NewOutput(sink, t, analyse),
		sink:      sink,
		tablesDef: t,
		tables: []*schema.Table{t.JSHeapNodes, t.JSHeapEdges, t.JSHeapInfo, t.JSHeapLocation,
			t.JSHeapSample, t.JSHeapString, t.JSHeapTraceFunctionInfo, t.JSHeapTraceNode},
		files: tables.NewJSHeapFiles(sink, t),
	}
	if analyse {
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
	if f.Out.Stats == nil {
		return
	}
	f.Out.leaks = newLeakState(f.sink, f.tablesDef, files)
	f.tables = append(f.tables, f.tablesDef.JSHeapLeak, f.tablesDef.JSHeapLeakPath, f.tablesDef.JSHeapLeakCluster)
}

// BeginInput starts a new input: later files are not compared with earlier ones.
func (f *Files) BeginInput() { f.prev = nil }

// NextID returns the id the next heap file will get.
func (f *Files) NextID() int64 { return f.next }

// Begin marks the heap tables before a file's rows are written; Drop(mark)
// removes them again.
func (f *Files) Begin() rows.Mark { return f.sink.Mark(f.tables) }

// Drop removes the rows written since mark (pending rows must be discarded with
// Out.Discard first). The file id is not used up.
func (f *Files) Drop(mark rows.Mark) { f.sink.Rollback(mark) }

// Add writes the js_heap_files row of a decoded file and returns its id.
func (f *Files) Add(name string, start, end int64, res Result) int64 {
	id := f.next
	f.files.Append(&tables.JSHeapFiles{ID: id, FileName: name, StartTime: start, EndTime: end, SelfSize: res.SelfSize})
	f.next++
	if f.Out.leaks != nil {
		f.Out.leaks.added(id)
	}
	if res.Objects != nil {
		if f.prev != nil {
			for _, d := range heapgraph.Diff(f.prev, res.Objects) {
				f.diff.Append(&tables.JSHeapClassDiff{BaseFileID: f.prevID, FileID: id, Name: d.Name,
					AddedCount: d.Added, RemovedCount: d.Removed, CountDelta: d.Added - d.Removed,
					AddedSize: d.AddedSize, RemovedSize: d.RemovedSize, SizeDelta: d.AddedSize - d.RemovedSize})
			}
		}
		f.prev, f.prevID = res.Objects, id
	}
	return id
}

// SnapshotName returns the reference's name of heap file id in snapshot mode.
func SnapshotName(id int64) string { return "Snapshot" + strconv.FormatInt(id, 10) }

// TimelineName is the reference's name of a heap timeline.
const TimelineName = "Timeline"

// Flush hands pending rows to the sink.
func (f *Files) Flush() {
	f.Out.Flush()
	f.files.Flush()
	if f.diff != nil {
		f.diff.Flush()
	}
}
