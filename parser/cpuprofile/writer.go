package cpuprofile

import (
	"strconv"

	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/tables"
)

// Writer writes the CPU profiles of a run: js_cpu_profiler_node,
// js_cpu_profiler_sample (run ids continue across profiles) and one
// js_cpu_profile row per profile, which tells which rows belong to it.
type Writer struct {
	nodes                   tables.JSCPUProfilerNodeWriter
	samples                 tables.JSCPUProfilerSampleWriter
	profiles                tables.JSCPUProfileWriter
	times                   tables.JSCPUProfilerNodeTimeWriter
	dict                    *tables.Dict
	rng                     *rows.Range
	nextSample, nextProfile int64
	nodeRows                int64
}

// NewWriter returns the CPU profile writer of a run.
func NewWriter(sink rows.Sink, t *schema.Tables, dict *tables.Dict, rng *rows.Range) *Writer {
	return &Writer{nodes: tables.NewJSCPUProfilerNode(sink, t), samples: tables.NewJSCPUProfilerSample(sink, t),
		profiles: tables.NewJSCPUProfile(sink, t), times: tables.NewJSCPUProfilerNodeTime(sink, t),
		dict: dict, rng: rng}
}

// NextID returns the id the next profile will get.
func (w *Writer) NextID() int64 { return w.nextProfile }

// Write writes p and returns its profile id. conv maps the profile's times (ns
// on its own clock) to the database's clock; compat selects the reference's
// sample timing (CompatRuns) instead of V8's (Runs). Sample times extend the
// trace range.
func (w *Writer) Write(p *Profile, sourceID int64, compat bool, conv func(int64) int64) int64 {
	var children []byte // one node's child ids, joined with ","
	for _, n := range p.Nodes {
		children = children[:0]
		for i, c := range n.Children {
			if i > 0 {
				children = append(children, ',')
			}
			children = strconv.AppendInt(children, c, 10)
		}
		w.nodes.Append(&tables.JSCPUProfilerNode{
			FunctionID:    n.ID,
			FunctionIndex: w.dict.ID(n.FunctionName), // before the URL's: data_dict ids follow first use
			ScriptID:      n.ScriptID,
			URLIndex:      w.dict.ID(n.URL),
			LineNumber:    n.LineNumber,
			ColumnNumber:  n.ColumnNumber,
			HitCount:      n.HitCount,
			Children:      string(children),
			ParentID:      n.Parent,
		})
	}
	runs := p.Runs()
	if compat {
		runs = p.CompatRuns()
	}
	firstSample := w.nextSample
	start, end := conv(p.StartTime), conv(p.StartTime)
	for i, r := range runs {
		s, e := conv(r.Start), conv(r.End)
		w.samples.Append(&tables.JSCPUProfilerSample{ID: w.nextSample, FunctionID: r.NodeID, StartTime: s, EndTime: e,
			Dur: r.End - r.Start})
		w.nextSample++
		w.rng.Add(s)
		w.rng.Add(e)
		if i == 0 {
			start = s
		}
		end = e
	}
	id := w.nextProfile
	w.profiles.Append(&tables.JSCPUProfile{ID: id, SourceID: sourceID, FirstNodeRowid: w.nodeRows + 1,
		NodeCount: int64(len(p.Nodes)), FirstSampleID: firstSample, SampleCount: int64(len(runs)), StartTime: start,
		EndTime: end})
	for i, t := range p.NodeTimes(runs) {
		outer := int64(0)
		if t.Outermost {
			outer = 1
		}
		w.times.Append(&tables.JSCPUProfilerNodeTime{ProfileID: id, NodeRowid: w.nodeRows + 1 + int64(i),
			FunctionID: p.Nodes[i].ID, SelfTime: t.Self, TotalTime: t.Total, SelfSamples: t.Samples, Outermost: outer})
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
