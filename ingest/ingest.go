// Package ingest runs a conversion: it recognises each input, drives the
// format's parser, and writes every table of the output database (including the
// generic ones: stat, meta, trace_range, data_dict, …) through the store.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"tracestreamer/parser/arkts"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/store"
)

// Version is the tool version written to meta.tool_version.
const Version = "0.1.0"

// PublishDate is written to meta.tool_publish_time.
const PublishDate = "2026/11/22"

// Options configure a run.
type Options struct {
	Output       string // database path
	NoMeta       bool   // omit the meta table (-nm)
	CompatTiming bool   // reference CPU sample timing
	Warnings     io.Writer
	// Progress, if set, is updated as the inputs are read.
	Progress *Progress
}

// Summary describes a finished run.
type Summary struct {
	Output   string
	Rows     map[string]int64 // rows per table
	Tables   []string         // table names in creation order
	Bytes    int64            // input bytes read
	Problems int64            // counted problems (see table stat)
	Elapsed  time.Duration
}

// ErrNothingUsable is wrapped by Run's error when no input yielded data.
var ErrNothingUsable = errors.New("nothing usable in the input")

// run is the state of one conversion.
type run struct {
	opts   Options
	tables *schema.Tables
	db     *store.DB
	sink   *store.Async
	log    *stat.Log
	dict   *rows.Dict
	rng    rows.Range
	arkts  *arkts.Parser
	bytes  int64
	clocks []clockRow
	// sources names each input, for meta.source_name.
	sources []string
}

type clockRow struct {
	id int
	ts uint64
}

// Run converts the inputs into one database at opts.Output. The database only
// appears there when the run succeeds; ctx cancellation aborts the run and
// leaves no file behind.
func Run(ctx context.Context, inputs []string, opts Options) (*Summary, error) {
	start := time.Now()
	if opts.Output == "" {
		return nil, errors.New("no output database given (-o)")
	}
	if len(inputs) == 0 {
		return nil, errors.New("no input given")
	}
	if err := checkPaths(inputs, opts.Output); err != nil {
		return nil, err
	}
	if opts.Progress == nil {
		opts.Progress = &Progress{}
	}
	for _, in := range inputs {
		if info, err := os.Stat(in); err == nil {
			opts.Progress.total.Add(info.Size())
		}
	}
	r := &run{opts: opts, tables: schema.New(), log: stat.NewLog(opts.Warnings)}
	var created []*schema.Table
	for _, t := range r.tables.All() {
		if !(opts.NoMeta && t == r.tables.Meta) {
			created = append(created, t)
		}
	}
	db, err := store.Create(opts.Output, created)
	if err != nil {
		return nil, err
	}
	r.db = db
	r.sink = store.NewAsync(db, 32)
	r.dict = rows.NewDict(r.sink, r.tables.DataDict)
	r.arkts = arkts.New(arkts.Env{Sink: r.sink, Tables: r.tables, Dict: r.dict, Range: &r.rng, Log: r.log},
		arkts.Options{CompatTiming: opts.CompatTiming})

	err = r.inputs(ctx, inputs)
	if err == nil {
		r.arkts.Finish()
		r.generic()
	}
	if cerr := r.sink.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil && r.arkts.Files() == 0 && r.db.Count(r.tables.JSCPUProfilerNode) == 0 &&
		r.db.Count(r.tables.JSConfig) == 0 {
		err = fmt.Errorf("%s: %w: no ArkTS heap file, CPU profile or config record could be read", inputs[0], ErrNothingUsable)
	}
	if err != nil {
		db.Abort()
		return nil, err
	}
	sum := &Summary{Output: opts.Output, Rows: map[string]int64{}, Bytes: r.bytes, Problems: r.log.Problems()}
	for _, t := range created {
		sum.Tables = append(sum.Tables, t.Name)
		sum.Rows[t.Name] = db.Count(t)
	}
	if err := db.Commit(); err != nil {
		return nil, err
	}
	r.log.Summary()
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// checkPaths refuses an output that is one of the inputs.
func checkPaths(inputs []string, output string) error {
	outInfo, err := os.Stat(output)
	if err != nil {
		return nil // does not exist yet
	}
	for _, in := range inputs {
		if info, err := os.Stat(in); err == nil && os.SameFile(info, outInfo) {
			return fmt.Errorf("output %s is the input %s; refusing to overwrite it", output, in)
		}
		if abs1, err1 := filepath.Abs(in); err1 == nil {
			if abs2, err2 := filepath.Abs(output); err2 == nil && abs1 == abs2 {
				return fmt.Errorf("output %s is the input %s; refusing to overwrite it", output, in)
			}
		}
	}
	return nil
}

func (r *run) inputs(ctx context.Context, inputs []string) error {
	for _, in := range inputs {
		if err := r.input(ctx, in); err != nil {
			return err
		}
	}
	return nil
}

// input reads one input file.
func (r *run) input(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open input: %w", err)
	}
	defer f.Close()
	r.sources = append(r.sources, path)
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	in := countingReader{r: f, p: r.opts.Progress}
	switch detect(head) {
	case formatHTrace:
		return r.htrace(ctx, in, path)
	}
	return fmt.Errorf("%s: unsupported input: not an htrace file (it starts with %q)", path, printable(head, 16))
}

func printable(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
