package cpuprofile

import (
	"strconv"
	"strings"

	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Writer writes the CPU profiles of a run: js_cpu_profiler_node,
// js_cpu_profiler_sample (run ids continue across profiles) and one
// js_cpu_profile row per profile, which tells which rows belong to it.
type Writer struct {
	nodes, samples, profiles, times *rows.Appender
	dict                            *rows.Dict
	rng                             *rows.Range
	nextSample, nextProfile         int64
	nodeRows                        int64
}

// NewWriter returns the CPU profile writer of a run.
func NewWriter(sink rows.Sink, t *schema.Tables, dict *rows.Dict, rng *rows.Range) *Writer {
	return &Writer{nodes: rows.NewAppender(sink, t.JSCPUProfilerNode),
		samples:  rows.NewAppender(sink, t.JSCPUProfilerSample),
		profiles: rows.NewAppender(sink, t.JSCPUProfile), times: rows.NewAppender(sink, t.JSCPUProfilerNodeTime),
		dict: dict, rng: rng}
}

// NextID returns the id the next profile will get.
func (w *Writer) NextID() int64 { return w.nextProfile }

// Write writes p and returns its profile id. conv maps the profile's times (ns
// on its own clock) to the database's clock; compat selects the reference's
// sample timing (CompatRuns) instead of V8's (Runs). Sample times extend the
// trace range.
func (w *Writer) Write(p *Profile, sourceID int64, compat bool, conv func(int64) int64) int64 {
	var children []string
	for _, n := range p.Nodes {
		children = children[:0]
		for _, c := range n.Children {
			children = append(children, strconv.FormatInt(c, 10))
		}
		w.nodes.Row([]int64{n.ID, w.dict.ID(n.FunctionName), w.dict.ID(n.URL), n.LineNumber,
			n.ColumnNumber, n.HitCount, n.Parent}, n.ScriptID, strings.Join(children, ","))
	}
	runs := p.Runs()
	if compat {
		runs = p.CompatRuns()
	}
	firstSample := w.nextSample
	start, end := conv(p.StartTime), conv(p.StartTime)
	for i, r := range runs {
		s, e := conv(r.Start), conv(r.End)
		w.samples.Ints(w.nextSample, r.NodeID, s, e, r.End-r.Start)
		w.nextSample++
		w.rng.Add(s)
		w.rng.Add(e)
		if i == 0 {
			start = s
		}
		end = e
	}
	id := w.nextProfile
	w.profiles.Ints(id, sourceID, w.nodeRows+1, int64(len(p.Nodes)), firstSample, int64(len(runs)), start, end)
	for i, t := range p.NodeTimes(runs) {
		outer := int64(0)
		if t.Outermost {
			outer = 1
		}
		w.times.Ints(id, w.nodeRows+1+int64(i), p.Nodes[i].ID, t.Self, t.Total, t.Samples, outer)
	}
	w.nextProfile++
	w.nodeRows += int64(len(p.Nodes))
	return id
}

// Flush hands pending rows to the sink.
func (w *Writer) Flush() {
	w.nodes.Flush()
	w.samples.Flush()
	w.profiles.Flush()
	w.times.Flush()
}
