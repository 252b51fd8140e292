package heapfile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"tracestreamer/analysis/heapgraph"
	"tracestreamer/analysis/leaks"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/tables"
)

// LeakFiles names the heap files of a run compared for leaks: a baseline, a
// target and a final file, by heap file id, in that order.
type LeakFiles struct{ Baseline, Target, Final int64 }

// DefaultLeakFiles are the first three heap files of a run.
var DefaultLeakFiles = LeakFiles{0, 1, 2}

// ParseLeakFiles reads "B,T,F" (three heap file ids, increasing).
func ParseLeakFiles(s string) (LeakFiles, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return LeakFiles{}, fmt.Errorf("want three heap file ids B,T,F, not %q", s)
	}
	var ids [3]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || v < 0 {
			return LeakFiles{}, fmt.Errorf("%q is not a heap file id", p)
		}
		ids[i] = v
	}
	if ids[0] >= ids[1] || ids[1] >= ids[2] {
		return LeakFiles{}, fmt.Errorf("the baseline, target and final heap files must come in that order: %q", s)
	}
	return LeakFiles{ids[0], ids[1], ids[2]}, nil
}

// leakState keeps what the comparison needs from the baseline and the target
// (their node ids, sorted once the target comes) until the final file is
// analysed, and writes the leaks' rows.
type leakState struct {
	files              LeakFiles
	baseIDs, targetIDs []int64

	leak    tables.JSHeapLeakWriter
	path    tables.JSHeapLeakPathWriter
	cluster tables.JSHeapLeakClusterWriter
}

func newLeakState(sink rows.Sink, t *schema.Tables, files LeakFiles) *leakState {
	return &leakState{files: files, leak: tables.NewJSHeapLeak(sink, t), path: tables.NewJSHeapLeakPath(sink, t),
		cluster: tables.NewJSHeapLeakCluster(sink, t)}
}

func (l *leakState) appenders() []*rows.Appender {
	return []*rows.Appender{l.leak.Appender(), l.path.Appender(), l.cluster.Appender()}
}

// isFinal reports whether the file is the final one of a comparison that can
// be made (the baseline and the target were analysed).
func (l *leakState) isFinal(fileID int64) bool {
	return fileID == l.files.Final && l.baseIDs != nil && l.targetIDs != nil
}

// analysed is told of each analysed file; it keeps the ids of the baseline
// and the target, and compares the final file with them (warning, to warn,
// of leaks the clustering could not compare).
func (l *leakState) analysed(fileID int64, g *heapgraph.Graph, r *heapgraph.Result, warn Warner) {
	switch fileID {
	case l.files.Baseline:
		// Kept as the graph has them until a target comes: most runs
		// have a single heap file, and sorting a copy of its ids cost
		// 0.1-0.3 s and 40 MB at 5 M nodes.
		l.baseIDs = g.ID
	case l.files.Target:
		// Sorted copies now, as the comparison will want them (the
		// graphs' arrays are shared with the files' Objects).
		l.baseIDs, l.targetIDs = sortedIDs(l.baseIDs), sortedIDs(g.ID)
	case l.files.Final:
		if l.isFinal(fileID) {
			rep := leaks.Find(g, r, l.baseIDs, l.targetIDs)
			if rep.Unclustered > 0 {
				warn("leak clustering stopped comparing traces after %d comparisons: %d of %d leaks "+
					"each start a cluster (shared only with leaks of the same trace)",
					leaks.MaxComparisons, rep.Unclustered, len(rep.Leaks))
			}
			l.write(fileID, g, r, rep)
		}
	}
}

// added is told of each heap file kept: once the final one is, the ids of the
// other two are not needed any more. (A final file dropped after its decoding,
// its rows rolled back, leaves them for the file that gets its id next.)
func (l *leakState) added(fileID int64) {
	if fileID == l.files.Final {
		l.baseIDs, l.targetIDs = nil, nil
	}
}

// sortedIDs sorts a copy: ids are the array of a graph, which the file's
// Objects share.
func sortedIDs(ids []int64) []int64 {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}

// write appends the rows of a comparison's report.
func (l *leakState) write(fileID int64, g *heapgraph.Graph, r *heapgraph.Result, rep *leaks.Report) {
	typeName := func(v uint32) string {
		if t := int(g.Type[v]); t < len(g.NodeTypes) {
			return g.NodeTypes[t]
		}
		return strconv.Itoa(int(g.Type[v]))
	}
	edgeType := func(e uint32) string {
		if t := int(g.EdgeType[e]); t < len(g.EdgeTypes) {
			return g.EdgeTypes[t]
		}
		return strconv.Itoa(int(g.EdgeType[e]))
	}
	var p []leaks.Step
	for i, lk := range rep.Leaks {
		v := lk.Node
		p = rep.Path(i, p)
		l.leak.Append(&tables.JSHeapLeak{FileID: fileID, NodeIndex: int64(v), ID: g.ID[v], Type: typeName(v),
			Name: leaks.NodeName(g, v), SelfSize: int64(g.Self[v]), RetainedSize: int64(r.Retained[v]),
			ClusterID: int64(lk.Cluster), PathLength: int64(len(p)), BaselineFileID: l.files.Baseline,
			TargetFileID: l.files.Target})
		for depth, s := range p {
			var et, en rows.Text
			if s.Edge != heapgraph.NoNode {
				et, en = rows.S(edgeType(s.Edge)), rows.S(leaks.EdgeName(g, s.Edge))
			}
			l.path.Append(&tables.JSHeapLeakPath{FileID: fileID, LeakID: g.ID[v], Depth: int64(depth),
				NodeID: g.ID[s.Node], Type: typeName(s.Node), Name: leaks.NodeName(g, s.Node),
				Class: r.Classes[r.Class[s.Node]].Name, EdgeType: et, EdgeName: en})
		}
	}
	for c, cl := range rep.Clusters {
		first := rep.Leaks[cl.Leaks[0]]
		p = rep.Path(cl.Leaks[0], p)
		l.cluster.Append(&tables.JSHeapLeakCluster{FileID: fileID, ClusterID: int64(c), LeakCount: int64(len(cl.Leaks)),
			RetainedSize: int64(cl.Retained), LeakID: g.ID[first.Node], Path: traceText(g, p, typeName, edgeType)})
	}
}

// traceText renders a trace on one line the way memlab prints one:
// "[name] (type) @id --edge (edge type)---> [name] (type) @id …".
func traceText(g *heapgraph.Graph, p []leaks.Step, typeName func(uint32) string, edgeType func(uint32) string) string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 {
			fmt.Fprintf(&b, " --%s (%s)---> ", leaks.EdgeName(g, s.Edge), edgeType(s.Edge))
		}
		fmt.Fprintf(&b, "[%s] (%s) @%d", leaks.NodeName(g, s.Node), typeName(s.Node), g.ID[s.Node])
	}
	return b.String()
}
