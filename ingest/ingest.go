// Package ingest runs a conversion: it recognises each input, drives the
// format's parser, and writes every table of the output database (including the
// generic ones: stat, meta, trace_range, data_dict, …) through the store.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tracestreamer/heapfile"
	"tracestreamer/internal/outfile"
	"tracestreamer/internal/scratch"
	"tracestreamer/parser/arkts"
	"tracestreamer/parser/cpuprofile"
	"tracestreamer/parser/traceevent"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/store"
	"tracestreamer/tables"
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
	NoAnalysis   bool   // skip the heap graph analysis (js_heap_node_stats, js_heap_class, …)
	// Leaks names the heap files compared for leaks (nil: the first three of
	// the run); NoLeaks skips the comparison. Both need the analysis.
	Leaks   *heapfile.LeakFiles
	NoLeaks bool
	// Index builds schema.Indexes on the tables that have rows (--index).
	Index bool
	// Stdin is read for the input "-" (the command passes os.Stdin).
	Stdin io.Reader
	// SortBudget is the memory, in bytes, for sorting the events of a Trace
	// Event file before they spill to temporary files (0: the default).
	SortBudget int64
	// MaxEvent is the largest Trace Event element kept, in bytes; strings
	// are cut at half of it (0: the tokenizer's defaults).
	MaxEvent int
	// MaxThreads, MaxPending and MaxCounters bound the Trace Event state
	// kept per thread, per slice waiting for its end and per counter series
	// (0: the importer's defaults).
	MaxThreads, MaxPending, MaxCounters int
	// BeforeInput, if set, is called with the format of each input
	// ("htrace", "heapsnapshot", "cpuprofile", "traceevent") before it is
	// read (the command sets the garbage collector's pace with it).
	BeforeInput func(format string)
	// InsertOnly writes every row through SQLite's INSERT instead of building
	// the tables' b-trees (store.Start's insertOnly): tests compare the two writers.
	InsertOnly bool
	// Warnings, if set, receives the problems met and the run's summary of
	// them. Nothing more is written to it once ctx is cancelled before the
	// output is committed (an interrupted run leaves no output to explain);
	// the summary of a run whose output was committed is always written.
	Warnings io.Writer
	// ddl, if set, replaces the statements that make the schema (tests).
	ddl []string
	// ctxHook, if set, wraps the run's own context (tests: they count the
	// checks its readers make).
	ctxHook func(context.Context) context.Context
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
	dict   *tables.Dict
	rng    rows.Range
	heap   *heapfile.Files
	// scratchDir is where temporary files go: beside the output.
	scratchDir string
	cpu        *cpuprofile.Writer
	arkts      *arkts.Parser
	trace      *traceevent.Importer // made when the first Trace Event file is read
	bytes      int64
	clocks     []clockRow
	// sources describes each input (table source).
	sources []source
	// standalone counts the heap files and CPU profiles read from standalone
	// files (outside an htrace capture).
	standalone struct{ snapshots, timelines, profiles int }
	// pairs maps the dynamic half of each hybrid .rawheap pair to its static
	// half; paired marks the static halves (rawheap_static.go).
	pairs  map[string]string
	paired map[string]bool
}

// source is a row of table source.
type source struct {
	path, format, compression string
	bytes                     int64
	sha256                    string
	heapFiles, cpuProfiles    []int64
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
	dest, err := outfile.Target(opts.Output, inputs...)
	if err != nil {
		return nil, err
	}
	// Temporary files and spill folders of runs that were killed (their
	// process is gone) are removed from the two places runs make them.
	for _, dir := range []string{filepath.Dir(dest), os.TempDir()} {
		for _, p := range scratch.Clean(dir) {
			if opts.Warnings != nil {
				fmt.Fprintf(opts.Warnings, "tracestreamer: removed %s, left behind by a run that was killed\n", p)
			}
		}
	}
	if opts.Progress == nil {
		opts.Progress = &Progress{}
	}
	infos := statInputs(inputs)
	for _, info := range infos {
		if info != nil {
			opts.Progress.total.Add(info.Size())
		}
	}
	// The run's own context is also cancelled when the writer fails (the
	// schema could not be made, a batch could not be written): the inputs
	// are not read to the end for a file that cannot be written.
	parent := ctx
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if opts.ctxHook != nil {
		ctx = opts.ctxHook(ctx)
	}
	var warnings io.Writer
	var cw *ctxWriter
	if opts.Warnings != nil {
		cw = &ctxWriter{ctx: ctx, w: opts.Warnings}
		warnings = cw
	}
	r := &run{opts: opts, tables: schema.New(), log: stat.NewLog(warnings)}
	var omit []*schema.Table
	if opts.NoMeta {
		omit = append(omit, r.tables.Meta)
	}
	// The schema is made on the writer's goroutine while the first input
	// is read; r.db is used directly only once the sink is closed.
	ddl := r.tables.DDL(omit...)
	if opts.ddl != nil {
		ddl = opts.ddl
	}
	db, sink, err := store.Start(dest, ddl, 32, opts.InsertOnly, outputPageSize(inputs, infos))
	if err != nil {
		return nil, err
	}
	r.db, r.sink = db, sink
	go func() {
		select {
		case <-sink.Failed():
			if err := sink.Err(); !errors.Is(err, store.ErrAborted) {
				stop(writerError(opts.Output, err)) // the readers stop
			}
		case <-ctx.Done():
		}
	}()
	r.dict = tables.NewDict(r.sink, r.tables)
	// The analysis's shelf goes beside the database, as the store's page
	// file does.
	r.scratchDir = filepath.Dir(dest)
	r.heap = heapfile.New(r.sink, r.tables, r.log, heapfile.Options{Analyse: !opts.NoAnalysis,
		ScratchDir: r.scratchDir, Stop: ctx.Done()})
	if !opts.NoLeaks {
		files := heapfile.DefaultLeakFiles
		if opts.Leaks != nil {
			files = *opts.Leaks
		}
		r.heap.CompareLeaks(files)
	}
	r.cpu = cpuprofile.NewWriter(r.sink, r.tables, r.dict, &r.rng)
	r.arkts = arkts.New(arkts.Env{Sink: r.sink, Tables: r.tables, Range: &r.rng, Log: r.log, Heap: r.heap, CPU: r.cpu},
		arkts.Options{CompatTiming: opts.CompatTiming})

	opts.Progress.setPhase(PhaseReading)
	err = r.inputs(ctx, inputs)
	// Each phase after the reading looks at ctx first: an interrupted run
	// stops there and leaves nothing.
	if err == nil {
		err = ctx.Err()
	}
	opts.Progress.setPhase(PhaseProcessing)
	if err == nil && r.trace != nil {
		err = r.trace.FinishContext(ctx)
	}
	if err == nil {
		r.heap.Flush()
		r.cpu.Flush()
		r.generic()
	}
	opts.Progress.setPhase(PhaseWriting)
	if err != nil {
		// The run is given up: the rows still queued would only be written
		// into a file that is removed.
		r.sink.Abort()
	} else if cerr := r.sink.Close(); cerr != nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && r.db.Count(r.tables.Flow) > 0 {
		if err = r.linkFlowChains(ctx); err != nil {
			err = fmt.Errorf("linking the slices of flows: %w", err)
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && !r.usable() {
		err = fmt.Errorf("%s: %w: no heap snapshot, CPU profile, trace or ArkTS config record could be read",
			strings.Join(inputs, ", "), ErrNothingUsable)
	}
	if err == nil && opts.Index {
		err = r.createIndexes(ctx)
	}
	if err != nil {
		// A writer's error is the run's, however it came back (the watcher's
		// cancel, or Close when the input ended first), unless the run was
		// interrupted.
		if werr := r.sink.Err(); werr != nil && !errors.Is(werr, store.ErrAborted) && parent.Err() == nil {
			err = writerError(opts.Output, werr)
		}
		db.Abort()
		return nil, err
	}
	sum := &Summary{Output: opts.Output, Rows: map[string]int64{}, Bytes: r.bytes, Problems: r.log.Problems()}
	for _, t := range r.tables.All() {
		if slices.Contains(omit, t) {
			continue
		}
		sum.Tables = append(sum.Tables, t.Name)
		sum.Rows[t.Name] = db.Count(t)
	}
	opts.Progress.setPhase(PhaseCommitting)
	if err := db.CommitUnless(ctx.Done()); err != nil {
		if errors.Is(err, store.ErrStopped) {
			return nil, ctx.Err()
		}
		return nil, err
	}
	// The output is written: its summary is printed even if the run is
	// cancelled now.
	if cw != nil {
		cw.disarm()
	}
	r.log.Summary()
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// inputs reads every input in order. All are recognised first, so that an
// input of an unknown kind stops the run before anything is converted.
//
// Every input is read once: a regular file is opened again to be converted,
// but a pipe, a device or standard input ("-") cannot give its bytes twice, so
// it stays open from recognition to conversion.
func (r *run) inputs(ctx context.Context, inputs []string) error {
	kept := make([]*counted, len(inputs))
	defer func() {
		for _, c := range kept {
			if c != nil {
				c.o.close()
				c.hash.close()
			}
		}
	}()
	heads := make([][]byte, len(inputs))
	for i, in := range inputs {
		c, err := r.open(ctx, in, !reopenable(in))
		if err != nil {
			return err
		}
		heads[i] = c.o.head
		if c.o.format == formatUnknown {
			c.o.close()
			return fmt.Errorf("%s: unsupported input: not an htrace file, heap snapshot, CPU profile, Trace Event JSON or ArkTS .rawheap "+
				"(a .rawheap of ArkWeb or JSVM is V8's own format, which is not read) (it starts with %q)",
				in, printable(c.o.head, 16))
		}
		if reopenable(in) {
			c.o.close()
		} else {
			kept[i] = c
		}
	}
	r.findPairs(inputs, heads)
	for i, in := range inputs {
		c := kept[i]
		if c == nil {
			var err error
			if c, err = r.open(ctx, in, true); err != nil {
				return err
			}
		}
		kept[i] = nil
		err := r.input(ctx, in, c)
		c.o.close()
		if err != nil {
			return err
		}
	}
	return nil
}

// guard runs the parser of one input. A panic there (a bug, whatever the
// input), or on a goroutine of the parser that reports it as
// traceevent.ErrInternal, becomes a warning naming the input and how far it was read, counted
// in stat under the format's event; the rows written before it are kept and
// the run goes on with the next input.
func (r *run) guard(path string, f format, read *int64, parse func() error) (err error) {
	event := formatNamed(f).event
	defer func() {
		if p := recover(); p != nil {
			r.log.Warn(event, stat.InvalidData, path,
				"internal error after %d bytes (please report it); the rest of this input is skipped: %v", *read, p)
			err = nil
		}
	}()
	err = parse()
	if errors.Is(err, traceevent.ErrInternal) {
		// A panic on one of the Trace Event importer's own goroutines,
		// recovered there: the same as one here.
		r.log.Warn(event, stat.InvalidData, path, "%v; the rest of this input is skipped", err)
		return nil
	}
	return err
}

// reopenable reports whether path is a regular file, which gives the same
// bytes when opened again.
func reopenable(path string) bool {
	info, err := os.Stat(path)
	return path != "-" && err == nil && info.Mode().IsRegular()
}

// counted is an opened input whose bytes are hashed and counted as they are read.
type counted struct {
	o    *opened
	hash *asyncHash
	n    int64
}

// open opens an input; with convert unset it is only being recognised and
// will be opened again, so its bytes are neither hashed nor counted as read.
func (r *run) open(ctx context.Context, path string, convert bool) (*counted, error) {
	c := &counted{hash: &asyncHash{}}
	o, err := open(ctx, path, r.opts.Stdin, func(f io.Reader) io.Reader {
		if !convert {
			return ctxReader{ctx, f}
		}
		return countingReader{r: io.TeeReader(ctxReader{ctx, f}, c.hash), p: r.opts.Progress, n: &c.n}
	})
	c.o = o
	return c, err
}

// input converts one opened input.
func (r *run) input(ctx context.Context, path string, c *counted) error {
	o, h := c.o, c.hash
	defer h.close()
	src := source{path: path, format: string(o.format), compression: o.compression}
	if r.opts.BeforeInput != nil {
		r.opts.BeforeInput(string(o.format))
	}
	id := int64(len(r.sources))
	heap0, cpu0 := r.heap.NextID(), r.cpu.NextID()
	err := r.guard(path, o.format, &c.n, func() error {
		return formatNamed(o.format).read(r, ctx, inputFile{path: path, o: o, source: id})
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if o.compression == "zip" {
		if src.sha256, err = fileSHA256(path); err != nil {
			return err
		}
		if info, err := os.Stat(path); err == nil {
			c.n = info.Size()
		}
	} else {
		io.Copy(io.Discard, o.r) // hash what the parser left unread
		src.sha256 = hex.EncodeToString(h.Sum())
	}
	src.bytes = c.n
	r.bytes += c.n
	for f := heap0; f < r.heap.NextID(); f++ {
		src.heapFiles = append(src.heapFiles, f)
	}
	for p := cpu0; p < r.cpu.NextID(); p++ {
		src.cpuProfiles = append(src.cpuProfiles, p)
	}
	r.sources = append(r.sources, src)
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func printable(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// createIndexes builds schema.Indexes on the tables that have rows, and
// the statistics SQLite's planner needs to use them (ANALYZE): without
// them it takes an index on (file_id, id) for one on file_id alone, which
// holds every row of a one-snapshot database, and scans it in the wrong loop
// (the README's retainer path: 36 s instead of well under a second on the
// 5 M-node snapshot). SQLite sorts each index's keys in runs that spill to its
// own temporary files (unlinked when opened), not to memory as the writer's
// temp_store does: the 17 M edges of that snapshot would take a GB.
func (r *run) createIndexes(ctx context.Context) error {
	if err := r.db.Exec("PRAGMA temp_store = FILE"); err != nil {
		return err
	}
	for _, ix := range schema.Indexes {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := slices.IndexFunc(r.tables.All(), func(t *schema.Table) bool { return t.Name == ix.Table })
		if i < 0 || r.db.Count(r.tables.All()[i]) == 0 {
			continue
		}
		if err := r.db.Exec(ix.CreateSQL() + "; ANALYZE " + ix.Name); err != nil {
			return fmt.Errorf("index %s: %w", ix.Name, err)
		}
	}
	return nil
}

// writerError is the run's error when writing the output failed.
func writerError(output string, err error) error { return fmt.Errorf("writing %s: %w", output, err) }
