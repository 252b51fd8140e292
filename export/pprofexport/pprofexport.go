// Package pprofexport writes the CPU profiles of a tracestreamer database as a
// pprof profile (github.com/google/pprof/profile), so that `go tool pprof`
// shows them: top lists, flame graphs, source views.
package pprofexport

import (
	"database/sql"
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	_ "modernc.org/sqlite" // database/sql driver
)

// Write reads the CPU profiles of the database at dbPath (all of them, or only
// profileID when it is ≥ 0) and writes one gzip-compressed pprof profile to w.
// Each sample run becomes a pprof sample whose value is its duration in ns,
// with the call stack from the run's node up to (not including) the root.
func Write(w io.Writer, dbPath string, profileID int64) error {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := build(db, profileID)
	if err != nil {
		return fmt.Errorf("%s: %w", dbPath, err)
	}
	return p.Write(w)
}

type cpuProfile struct {
	id, firstNode, nodes, firstSample, samples, start, end int64
}

func build(db *sql.DB, only int64) (*profile.Profile, error) {
	rs, err := db.Query(`SELECT id, first_node_rowid, node_count, first_sample_id, sample_count, start_time, end_time
		FROM js_cpu_profile ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("no CPU profile table (not a tracestreamer database?): %w", err)
	}
	var profs []cpuProfile
	for rs.Next() {
		var c cpuProfile
		if err := rs.Scan(&c.id, &c.firstNode, &c.nodes, &c.firstSample, &c.samples, &c.start, &c.end); err != nil {
			rs.Close()
			return nil, err
		}
		if only < 0 || c.id == only {
			profs = append(profs, c)
		}
	}
	rs.Close()
	switch {
	case len(profs) == 0 && only >= 0:
		return nil, fmt.Errorf("no CPU profile %d in the database", only)
	case len(profs) == 0:
		return nil, fmt.Errorf("the database holds no CPU profile")
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		TimeNanos:  profs[0].start,
	}
	funcs := map[[2]string]*profile.Function{}
	for _, c := range profs {
		if err := addProfile(db, p, c, funcs, len(profs) > 1); err != nil {
			return nil, err
		}
		p.DurationNanos = max(p.DurationNanos, c.end-profs[0].start)
	}
	return p, p.CheckValid()
}

type node struct {
	parent int64
	loc    *profile.Location
}

func addProfile(db *sql.DB, p *profile.Profile, c cpuProfile, funcs map[[2]string]*profile.Function, label bool) error {
	rs, err := db.Query(`SELECT n.function_id, n.parent_id, f.data, u.data, n.line_number, n.column_number
		FROM js_cpu_profiler_node n JOIN data_dict f ON f.id = n.function_index JOIN data_dict u ON u.id = n.url_index
		WHERE n.rowid BETWEEN ? AND ?`, c.firstNode, c.firstNode+c.nodes-1)
	if err != nil {
		return err
	}
	nodes := map[int64]*node{}
	for rs.Next() {
		var id, parent, line, col int64
		var name, url string
		if err := rs.Scan(&id, &parent, &name, &url, &line, &col); err != nil {
			rs.Close()
			return err
		}
		if name == "" {
			name = "(anonymous)"
		}
		fn := funcs[[2]string{name, url}]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: url,
				StartLine: line + 1}
			funcs[[2]string{name, url}] = fn
			p.Function = append(p.Function, fn)
		}
		loc := &profile.Location{ID: uint64(len(p.Location) + 1),
			Line: []profile.Line{{Function: fn, Line: line + 1, Column: col + 1}}}
		p.Location = append(p.Location, loc)
		nodes[id] = &node{parent: parent, loc: loc}
	}
	rs.Close()
	rs, err = db.Query(`SELECT function_id, dur FROM js_cpu_profiler_sample WHERE id BETWEEN ? AND ?`,
		c.firstSample, c.firstSample+c.samples-1)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var id, dur int64
		if err := rs.Scan(&id, &dur); err != nil {
			return err
		}
		var stack []*profile.Location
		for n, depth := nodes[id], 0; n != nil && n.parent != 0 && depth < 1<<16; n, depth = nodes[n.parent], depth+1 {
			stack = append(stack, n.loc) // the root itself (parent 0) is left out
		}
		if len(stack) == 0 {
			continue
		}
		s := &profile.Sample{Location: stack, Value: []int64{dur}}
		if label {
			s.NumLabel = map[string][]int64{"profile": {c.id}}
		}
		p.Sample = append(p.Sample, s)
	}
	return rs.Err()
}
