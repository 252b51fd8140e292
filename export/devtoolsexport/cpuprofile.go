package devtoolsexport

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"tracestreamer/store"
)

// run is a row of js_cpu_profiler_sample: consecutive samples of one node.
type run struct{ node, start, end int64 }

// writeProfile writes CPU profile id as a .cpuprofile in the current format
// (docs/format/cpuprofile.md#writing-profiles-back-out). The database keeps
// runs of samples, not the samples, so each run becomes samples that the
// importer turns back into the same run: one at its start, and as many more
// at the same time as its node had samples beyond its runs
// (js_cpu_profiler_node_time.self_samples), so that hit counts and sample
// counts stay; the last run's end is the profile's endTime.
func (e *exporter) writeProfile(w *writer, id int64) error {
	var firstNode, nodes, firstSample, samples, start int64
	var found bool
	err := e.each(`SELECT first_node_rowid, node_count, first_sample_id, sample_count, start_time FROM js_cpu_profile
		WHERE id = `+strconv.FormatInt(id, 10), func(q *store.Rows) error {
		firstNode, nodes, firstSample, samples, start, found = q.Int(0), q.Int(1), q.Int(2), q.Int(3), q.Int(4), true
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return errors.New("no such profile")
	}
	nodeRows := fmt.Sprintf("rowid BETWEEN %d AND %d", firstNode, firstNode+nodes-1)

	// Samples per node, where the database has them.
	selfSamples := map[int64]int64{}
	hasTimes, err := e.r.QueryInt(`SELECT count(*) FROM sqlite_master WHERE name = 'js_cpu_profiler_node_time'`)
	if err != nil {
		return err
	}
	if hasTimes > 0 {
		err = e.each(`SELECT function_id, self_samples FROM js_cpu_profiler_node_time WHERE profile_id = `+
			strconv.FormatInt(id, 10), func(q *store.Rows) error {
			selfSamples[q.Int(0)] += q.Int(1)
			return nil
		})
		if err != nil {
			return err
		}
	}
	runs, err := e.runs(firstSample, samples)
	if err != nil {
		return err
	}
	times := placeSamples(runs, selfSamples)

	// Nodes a children list names: the others keep their parent as a
	// "parent" member.
	listed := map[int64]bool{}
	err = e.each(`SELECT children FROM js_cpu_profiler_node WHERE `+nodeRows+` ORDER BY rowid`, func(q *store.Rows) error {
		return eachChild(q.Bytes(0), func(c int64) { listed[c] = true })
	})
	if err != nil {
		return err
	}

	w.str(`{"nodes":[`)
	first := true
	err = e.each(`SELECT n.function_id, f.data, n.script_id, u.data, n.line_number, n.column_number, n.hit_count,
		n.children, n.parent_id FROM js_cpu_profiler_node n LEFT JOIN data_dict f ON f.id = n.function_index
		LEFT JOIN data_dict u ON u.id = n.url_index WHERE n.`+nodeRows+` ORDER BY n.rowid`, func(q *store.Rows) error {
		if !first {
			w.str(",\n")
		}
		first = false
		node := q.Int(0)
		w.str(`{"id":`)
		w.int(node)
		w.str(`,"callFrame":{"functionName":`)
		w.quote(q.Bytes(1))
		w.str(`,"scriptId":`)
		w.quote(q.Bytes(2))
		w.str(`,"url":`)
		w.quote(q.Bytes(3))
		w.str(`,"lineNumber":`)
		w.int(q.Int(4))
		w.str(`,"columnNumber":`)
		w.int(q.Int(5))
		w.str(`},"hitCount":`)
		w.int(q.Int(6))
		if ch := q.Bytes(7); len(ch) > 0 {
			w.str(`,"children":[`)
			w.buf = append(w.buf, ch...)
			w.str(`]`)
		}
		if p := q.Int(8); p != 0 && !listed[node] {
			w.str(`,"parent":`)
			w.int(p)
		}
		w.str(`}`)
		return w.err
	})
	if err != nil {
		return err
	}
	end := start
	if len(runs) > 0 {
		start, end = runs[0].start, runs[len(runs)-1].end
	}
	w.str("],\n\"startTime\":")
	w.micros(start)
	w.str(`,"endTime":`)
	w.micros(end)
	w.str(",\n\"samples\":[")
	for i, t := range times {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.int(t.node)
		w.more()
	}
	w.str("],\n\"timeDeltas\":[")
	prev := start
	for i, t := range times {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.micros(t.at - prev)
		prev = t.at
		w.more()
	}
	w.str("]}\n")
	return w.err
}

// runs reads the profile's runs, in id order.
func (e *exporter) runs(firstSample, samples int64) ([]run, error) {
	var runs []run
	err := e.each(fmt.Sprintf(`SELECT function_id, start_time, end_time FROM js_cpu_profiler_sample
		WHERE id BETWEEN %d AND %d ORDER BY id`, firstSample, firstSample+samples-1), func(q *store.Rows) error {
		runs = append(runs, run{q.Int(0), q.Int(1), q.Int(2)})
		return nil
	})
	return runs, err
}

// eachChild calls fn with each id of a children list ("2,3,4").
func eachChild(list []byte, fn func(int64)) error {
	for len(list) > 0 {
		i := slices.Index(list, ',')
		if i < 0 {
			i = len(list)
		}
		c, err := strconv.ParseInt(string(list[:i]), 10, 64)
		if err != nil {
			return fmt.Errorf("children %q: %w", list, err)
		}
		fn(c)
		list = list[min(i+1, len(list)):]
	}
	return nil
}

// sample is a sample to write: its node and time (ns).
type sample struct{ node, at int64 }

// placeSamples turns runs back into samples that the importer makes the same
// runs of (docs/format/cpuprofile.md#sample-runs): each run starts with a
// sample at its start, which ends the run before it; a node's samples beyond
// its runs (selfSamples) are placed at the start of its first run, 0 µs
// apart, except one kept for the last run's end when the last run's node has
// one. The last run ends one sampling interval (the median positive delta)
// after its last sample, or at endTime when that comes first: with a sample
// at its end, or an interval at least as long as it, that is its end. When
// neither holds, a sample is added at its end (its node then has one sample
// more than it had).
func placeSamples(runs []run, selfSamples map[int64]int64) []sample {
	if len(runs) == 0 {
		return nil
	}
	nRuns := map[int64]int64{}
	for _, r := range runs {
		nRuns[r.node]++
	}
	extra := map[int64]int64{}
	for node, n := range nRuns {
		extra[node] = max(0, selfSamples[node]-n)
	}
	last := runs[len(runs)-1]
	atEnd := extra[last.node] > 0 && last.end > last.start
	if atEnd {
		extra[last.node]--
	} else if last.end > last.start {
		var deltas []int64
		for _, r := range runs[:len(runs)-1] {
			if r.end > r.start {
				deltas = append(deltas, r.end-r.start)
			}
		}
		slices.Sort(deltas)
		if len(deltas) == 0 || deltas[len(deltas)/2] < last.end-last.start {
			atEnd = true
		}
	}
	var out []sample
	seen := map[int64]bool{}
	for _, r := range runs {
		out = append(out, sample{r.node, r.start})
		if !seen[r.node] {
			seen[r.node] = true
			for range extra[r.node] {
				out = append(out, sample{r.node, r.start})
			}
		}
	}
	if atEnd {
		out = append(out, sample{last.node, last.end})
	}
	return out
}
