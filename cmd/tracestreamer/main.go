// Command tracestreamer converts profiling and trace data into a SQLite
// database with the tables of OpenHarmony's trace_streamer: OpenHarmony
// hiprofiler .htrace files (the ArkTS plugin's JS heap snapshots, heap
// timelines and CPU profiles), standalone .heapsnapshot, .heaptimeline and
// .cpuprofile files, ArkTS .rawheap heap dumps and Chrome Trace Event JSON,
// recognised by content, several into one database. Its subcommands read
// such databases back: export (pprof, a Parquet dataset, DevTools files),
// query and info.
//
// Usage:
//
//	tracestreamer [flags] INPUT... -o OUT.db
//	tracestreamer export -pprof OUT.pb.gz [-profile N] DB
//	tracestreamer export -parquet DIR DB...
//	tracestreamer export -devtools DIR DB
//	tracestreamer query [--format F] DB|TRACE [SQL... | -f FILE...]
//	tracestreamer info IN_OR_DB...
//
// Exit status: 0 on success (warnings go to stderr and are counted in the stat
// table), 1 when the conversion failed or no input held usable data (no output
// file is then created and an existing one is left untouched), 2 for usage
// errors, 130 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tracestreamer/export/devtoolsexport"
	"tracestreamer/export/parquetexport"
	"tracestreamer/export/pprofexport"
	"tracestreamer/heapfile"
	"tracestreamer/ingest"
	"tracestreamer/internal/outfile"
	"tracestreamer/internal/scratch"
)

const usage = `usage: tracestreamer [flags] INPUT... -o OUT.db
       tracestreamer export -pprof OUT.pb.gz [-profile N] DB
       tracestreamer export -parquet DIR DB...
       tracestreamer export -devtools DIR DB
       tracestreamer query [--format F] DB|TRACE [SQL... | -f FILE...]
       tracestreamer info IN_OR_DB...

Converts OpenHarmony hiprofiler .htrace files (ArkTS heap snapshots, heap
timelines, CPU profiles), standalone .heapsnapshot/.heaptimeline/.cpuprofile
files and Chrome Trace Event JSON files into a SQLite database with
trace_streamer's tables. An INPUT may be a named pipe or - (standard input).

flags:
  -o, -e PATH       output database (written to a temporary file, renamed on success)
  -nm, --nometa     do not write the meta table
  --compat-timing   place CPU samples as the reference trace_streamer does
                    (ignores timeDeltas[0]; the last run ends at the last sample)
  --no-analysis     skip the heap analysis tables (dominators, retained sizes,
                    class summary, comparisons, leaks): faster, less memory
  --index           build indexes for the usual lookups (heap nodes, node stats
                    and strings by file and id, edges by from node, callstack by
                    thread and time, args by set): larger database, fast lookups
  --leaks B,T,F     heap files (js_heap_files ids) compared for leaks as memlab
                    does: baseline, target, final (default 0,1,2: the first
                    three heap files of the run); none: no comparison
  --sort-mem MB     memory for sorting a Trace Event file's events before
                    sorted runs spill to temporary files (default 64)
  --max-event MB    largest Trace Event element kept (default 64; a larger
                    one is skipped and counted); strings are cut at half of
                    it (counted): each costs several times its size in memory
  --max-threads N   threads of a Trace Event file kept (default 2000000);
                    events of further ones are dropped and counted
  --max-pending N   B/b slices waiting for their end kept (default 500000);
                    further ones are dropped and counted
  --max-counters N  counter series of a Trace Event file kept (default
                    1000000); samples of further ones are dropped and counted
  --threads N, -tn N
                    cores used at once (default: every core): caps the
                    workers of every stage (GOMAXPROCS)
  -q, --quiet       print no progress bar and no summary line
  --cpuprofile F, --memprofile F
                    write Go CPU / heap profiles of the run (for go tool pprof)
  --exectrace F     write a Go execution trace of the run (for go tool trace:
                    which goroutine waits for which)
  -v, --version     print the version and exit
  -h, --help        print this help and exit

export -pprof writes the CPU profiles of a database (all, or profile N of
table js_cpu_profile) as a gzip-compressed pprof profile for go tool pprof.
export -parquet adds databases to a Parquet dataset (DIR/<table>/trace=<id>/,
Hive layout) for DuckDB, Spark or Trino; a trace exported again replaces its
own partitions.
export -devtools writes every heap file of a database as DIR/Snapshot<id>.heapsnapshot
(DIR/Timeline<id>.heaptimeline with allocation tracking data) and every CPU
profile as DIR/Profile<id>.cpuprofile, the files Chrome DevTools, DevEco and
node read; it overwrites no file.
query runs read-only SQL on a database (or a trace, converted to a temporary
database) and prints each result as a table, CSV, TSV, JSON or NDJSON
(tracestreamer query -h).
info describes trace files (format, compression, size, what they hold) without
converting them, and databases (writer, sources, time range, tables).

exit status: 0 success (warnings on stderr), 1 conversion failed or nothing
usable in the input, 2 usage error, 130 interrupted
`

type config struct {
	inputs     []string
	opts       ingest.Options
	quiet      bool
	threads    int    // cores used at once (GOMAXPROCS); 0: every core
	cpuProfile string // write a Go CPU profile of the run here
	memProfile string // write a Go heap profile at the end of the run here
	execTrace  string // write a Go execution trace of the run here
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func parseArgs(args []string) (*config, error) {
	c := &config{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-o", "-e", "--out", "--export":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs a path"}
			}
			i++
			c.opts.Output = args[i]
		case "-nm", "--nometa":
			c.opts.NoMeta = true
		case "--compat-timing":
			c.opts.CompatTiming = true
		case "--no-analysis":
			c.opts.NoAnalysis = true
		case "--index":
			c.opts.Index = true
		case "--leaks":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs three heap file ids B,T,F or none"}
			}
			i++
			if args[i] == "none" {
				c.opts.NoLeaks = true
				break
			}
			files, err := heapfile.ParseLeakFiles(args[i])
			if err != nil {
				return nil, usageError{"--leaks: " + err.Error()}
			}
			c.opts.Leaks = &files
		case "--sort-mem":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs a size in MB"}
			}
			i++
			mb, err := strconv.ParseInt(args[i], 10, 64)
			if err != nil || mb < 1 {
				return nil, usageError{"--sort-mem needs a positive number of MB, not " + args[i]}
			}
			c.opts.SortBudget = mb << 20
		case "--max-event":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs a size in MB"}
			}
			i++
			mb, err := strconv.ParseInt(args[i], 10, 64)
			if err != nil || mb < 1 || mb > 1024 {
				return nil, usageError{"--max-event needs a number of MB from 1 to 1024, not " + args[i]}
			}
			c.opts.MaxEvent = int(mb << 20)
		case "--max-threads", "--max-pending", "--max-counters":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs a number"}
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 {
				return nil, usageError{a + " needs a positive number, not " + args[i]}
			}
			switch a {
			case "--max-threads":
				c.opts.MaxThreads = n
			case "--max-pending":
				c.opts.MaxPending = n
			default:
				c.opts.MaxCounters = n
			}
		case "--threads", "-tn":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs a number of threads"}
			}
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 {
				return nil, usageError{a + " needs a positive number, not " + args[i]}
			}
			c.threads = n
		case "-q", "--quiet":
			c.quiet = true
		case "--cpuprofile", "--memprofile", "--exectrace":
			if i+1 >= len(args) {
				return nil, usageError{a + " needs a path"}
			}
			i++
			switch a {
			case "--cpuprofile":
				c.cpuProfile = args[i]
			case "--memprofile":
				c.memProfile = args[i]
			default:
				c.execTrace = args[i]
			}
		case "-h", "--help", "-help":
			return nil, errHelp
		case "-v", "--version":
			return nil, errVersion
		case "-":
			c.inputs = append(c.inputs, a) // standard input
		default:
			if strings.HasPrefix(a, "-") {
				return nil, usageError{"unknown flag " + a}
			}
			c.inputs = append(c.inputs, a)
		}
	}
	if len(c.inputs) == 0 {
		return nil, usageError{"no input file given"}
	}
	if c.opts.Output == "" {
		return nil, usageError{"no output database given (-o OUT.db)"}
	}
	return c, nil
}

// gcPolicy returns what sets the collector's pace for each input, unless
// the user set GOGC. The heap analysis of snapshots builds large pointer-free
// arrays next to those of the snapshot, and collecting over them is cheap, so
// GOGC=10 keeps the peak down (435 MB snapshot: 0.67–0.71 → 0.53–0.67 GB;
// 104 MB timeline: 0.28 → 0.21 GB; same time); without the analysis GOGC=50
// (10 costs 4 % there). The Trace Event
// importer keeps little alive: GOGC=50 costs it no measurable time
// (519 MB real-mix trace, CPU 6.3–6.8 s either way) and keeps its peak down
// (259–268 → 217 MB), once past a floor of memory it may use before it
// collects at all (traceEventFloor, gcPace).
//
// Until the first input's format is known the floor applies to every run
// (at the run's own percentage past it): the runtime would otherwise collect
// at a 4 MB heap while the output's schema is made, and pace the next
// collection from there.
func gcPolicy(pace *gcPace, analysis bool) func(format string) {
	pace.set(pace.percent0, traceEventFloor)
	return func(format string) {
		switch {
		case format == "traceevent":
			pace.set(50, traceEventFloor)
		case analysis:
			pace.set(10, 0)
		default:
			pace.set(50, 0)
		}
	}
}

var (
	errHelp    = errors.New("help")
	errVersion = errors.New("version")
)

// defaultMemoryLimit is the Go runtime's soft memory limit unless GOMEMLIMIT
// sets one: near it the garbage collector runs more often instead of letting
// the heap grow to twice what is live, which is what bounds the peak of the
// inputs that keep much state (millions of threads or open slices). It is
// not a hard cap: a run that needs more gets more, slower.
const defaultMemoryLimit = 768 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	ctx, stop := interruptible(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptible returns a context that SIGINT or SIGTERM cancels, so that
// the run stops cleanly (exit 130, nothing left behind). Once it has, the
// signals' default action is back: a second one ends the process at once,
// as SIGKILL would (its temporary files are left, for the next run to
// remove), whatever the run was doing. (A SIGINT the process was started
// with ignored, as a script's background job is, stays ignored; one that
// comes before the signals are let go is caught and dropped.)
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
			signal.Stop(ch) // before the cancel: once stopping, a second signal kills
			cancel()
		case <-ctx.Done():
			signal.Stop(ch)
		}
	}()
	return ctx, cancel
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "export":
			return runExport(ctx, args[1:], stdout, stderr)
		case "query":
			return runQuery(ctx, args[1:], os.Stdin, stdout, stderr)
		case "info":
			return runInfo(ctx, args[1:], os.Stdin, stdout, stderr)
		}
	}
	c, err := parseArgs(args)
	if err == nil && os.Getenv("GOGC") == "" {
		// The pace of the run is undone when it returns (tests run several).
		pace := newGCPace()
		defer pace.restore()
		c.opts.BeforeInput = gcPolicy(pace, !c.opts.NoAnalysis)
	}
	switch {
	case errors.Is(err, errHelp):
		fmt.Fprint(stdout, usage)
		return 0
	case errors.Is(err, errVersion):
		fmt.Fprintf(stdout, "tracestreamer %s\n", ingest.Version)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "tracestreamer: %v\n%s", err, usage)
		return 2
	}
	if c.threads > 0 {
		// Every stage sizes its workers by GOMAXPROCS, so this caps them all.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.threads))
	}
	c.opts.Warnings = stderr
	c.opts.Stdin = os.Stdin
	// The progress line is ended before anything else is printed after it.
	stopProgress := func() {}
	if !c.quiet && isTerminal(stderr) {
		c.opts.Progress = &ingest.Progress{}
		c.opts.Warnings, stopProgress = showProgress(stderr, c.opts.Progress)
	}
	defer func() { stopProgress() }()
	// The profiles of the run may not replace an input, the output database
	// or anything but a regular file.
	// The CPU profile and the execution trace record the run (start, stop);
	// the heap profile is written at its end, only if the run was made.
	// Each file is made before the run, so that a path that cannot be
	// written fails at once.
	profiles := []struct {
		flag   string
		path   *string
		record recorder
	}{
		{"--cpuprofile", &c.cpuProfile, recorder{start: pprof.StartCPUProfile, stop: pprof.StopCPUProfile}},
		{"--memprofile", &c.memProfile, recorder{atEnd: pprof.WriteHeapProfile}},
		{"--exectrace", &c.execTrace, recorder{start: trace.Start, stop: trace.Stop}},
	}
	for _, pr := range profiles {
		p := pr.path
		if *p == "" {
			continue
		}
		target, err := outfile.Target(*p, c.inputs...)
		if err == nil && outfile.NotAnInput(*p, target, c.opts.Output) != nil {
			err = fmt.Errorf("%s %s is the output database; refusing to overwrite it", pr.flag, *p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
			return 1
		}
		*p = target
	}
	for i, a := range profiles {
		for _, b := range profiles[i+1:] {
			if *a.path != "" && sameFile(*a.path, *b.path) {
				fmt.Fprintf(stderr, "tracestreamer: %s and %s name the same file %s; one profile would replace the other\n%s",
					a.flag, b.flag, *a.path, usage)
				return 2
			}
		}
	}
	var ends []func(ran bool) error
	endRecordings := func(ran bool) error {
		var errs []error
		for _, end := range ends {
			errs = append(errs, end(ran))
		}
		ends = nil
		return errors.Join(errs...)
	}
	defer endRecordings(false) // the run was not made: a recording failed to start
	for _, r := range profiles {
		if *r.path == "" {
			continue
		}
		end, err := r.record.begin(r.flag, *r.path)
		if err != nil {
			fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
			return 1
		}
		ends = append(ends, end)
	}
	sum, err := ingest.Run(ctx, c.inputs, c.opts)
	stopProgress()
	stopProgress = func() {}
	if perr := endRecordings(true); perr != nil {
		// The database is written; the profile asked for is not.
		fmt.Fprintf(stderr, "tracestreamer: %v\n", perr)
		if err == nil {
			return 1
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "tracestreamer: interrupted; no output written")
			return 130
		}
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		return 1
	}
	if !c.quiet {
		fmt.Fprintln(stdout, summaryLine(sum))
	}
	return 0
}

// recorder is how one profile of the run is recorded: start and stop a
// recording into its file (a CPU profile, an execution trace), or write it
// at the run's end (the heap profile); either may be nil.
type recorder struct {
	start func(io.Writer) error
	stop  func()
	atEnd func(io.Writer) error
}

// begin creates path and starts the recording; the function it returns
// ends it and closes the file, writing what is written at the run's end
// only if ran (a run that was not made has no heap profile). Its errors
// name the flag and the path.
func (r recorder) begin(flag, path string) (func(ran bool) error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if r.start != nil {
		if err := r.start(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s %s: %w", flag, path, err)
		}
	}
	return func(ran bool) error {
		if r.stop != nil {
			r.stop()
		}
		var err error
		if ran && r.atEnd != nil {
			err = r.atEnd(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", flag, path, err)
		}
		return nil
	}, nil
}

// sameFile reports whether the resolved paths a and b name one file.
func sameFile(a, b string) bool {
	if b == "" {
		return false
	}
	if ia, err := os.Stat(a); err == nil {
		if ib, err := os.Stat(b); err == nil {
			return os.SameFile(ia, ib)
		}
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// summaryTables are the tables the summary line counts: the ArkTS tables
// and the main Trace Event tables.
var summaryTables = map[string]bool{"callstack": true, "instant": true, "process_measure": true,
	"flow": true, "stack_sample": true, "args": true}

// summaryLine is the one line printed after a run: rows of every non-empty
// ArkTS or main trace table, problems and time.
func summaryLine(s *ingest.Summary) string {
	var parts []string
	for _, t := range s.Tables {
		if (strings.HasPrefix(t, "js_") || summaryTables[t]) && s.Rows[t] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", t, s.Rows[t]))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no rows")
	}
	return fmt.Sprintf("%s: %s; %d problems (see table stat); %.2f s, %.1f MB read",
		s.Output, strings.Join(parts, ", "), s.Problems, s.Elapsed.Seconds(), float64(s.Bytes)/1e6)
}

// runExport is `tracestreamer export -pprof OUT.pb.gz [-profile N] DB`,
// `tracestreamer export -parquet DIR DB...` or `tracestreamer export -devtools DIR DB`.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("pprof", "", "write the CPU profiles as a pprof profile to this file")
	id := fs.Int64("profile", -1, "only this profile (js_cpu_profile.id); default all")
	dataset := fs.String("parquet", "", "add the databases to the Parquet dataset in this folder")
	devtools := fs.String("devtools", "", "write the heap files and CPU profiles as DevTools files into this folder")
	quiet := fs.Bool("q", false, "print no summary")
	verbose := fs.Bool("v", false, "print a line per table written")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dataset != "" && *out == "" && *devtools == "" && fs.NArg() > 0 {
		return runParquet(ctx, *dataset, fs.Args(), *quiet, *verbose, stdout, stderr)
	}
	if *devtools != "" && *out == "" && *dataset == "" && fs.NArg() == 1 {
		return runDevTools(ctx, *devtools, fs.Arg(0), *quiet, stdout, stderr)
	}
	if *out == "" || fs.NArg() != 1 || *dataset != "" || *devtools != "" {
		fmt.Fprintf(stderr, "tracestreamer: usage: tracestreamer export -pprof OUT.pb.gz [-profile N] DB\n"+
			"       tracestreamer export -parquet DIR DB...\n"+
			"       tracestreamer export -devtools DIR DB\n")
		return 2
	}
	db := fs.Arg(0)
	if _, err := os.Stat(db); err != nil {
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		return 1
	}
	target, err := outfile.Target(*out, db)
	if err != nil {
		fmt.Fprintf(stderr, "tracestreamer: export: %v\n", err)
		return 1
	}
	tmp, err := scratch.File(filepath.Dir(target), filepath.Base(target))
	if err != nil {
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		return 1
	}
	defer os.Remove(tmp.Name())
	err = pprofexport.Write(tmp, db, *id)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = scratch.Sync(tmp.Name())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err == nil {
		err = scratch.SyncDir(filepath.Dir(target))
	}
	if err != nil {
		fmt.Fprintf(stderr, "tracestreamer: export: %v\n", err)
		return 1
	}
	return 0
}

// runDevTools writes the heap files and CPU profiles of db into dir.
func runDevTools(ctx context.Context, dir, db string, quiet bool, stdout, stderr io.Writer) int {
	if _, err := os.Stat(db); err != nil {
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		return 1
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		fmt.Fprintf(stderr, "tracestreamer: export: %s is not a folder\n", dir)
		return 1
	}
	start := time.Now()
	files, err := devtoolsexport.Export(ctx, dir, db)
	if err != nil {
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		if ctx.Err() != nil {
			return 130
		}
		return 1
	}
	if !quiet {
		var bytes int64
		for _, f := range files {
			fmt.Fprintf(stdout, "%s: %.1f MB\n", f.Path, float64(f.Bytes)/1e6)
			bytes += f.Bytes
		}
		fmt.Fprintf(stdout, "%s: %d files, %.1f MB in %.2f s\n", db, len(files), float64(bytes)/1e6,
			time.Since(start).Seconds())
	}
	return 0
}

// runParquet adds each database to the Parquet dataset in dir.
func runParquet(ctx context.Context, dir string, dbs []string, quiet, verbose bool, stdout, stderr io.Writer) int {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		fmt.Fprintf(stderr, "tracestreamer: export: %s is not a folder\n", dir)
		return 1
	}
	for _, db := range dbs {
		if _, err := os.Stat(db); err != nil {
			fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
			return 1
		}
	}
	for _, db := range dbs {
		start := time.Now()
		sum, err := parquetexport.Export(ctx, dir, db, parquetexport.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
			if ctx.Err() != nil {
				return 130
			}
			return 1
		}
		if verbose {
			for _, t := range sum.Tables {
				fmt.Fprintf(stdout, "  %-28s %10d rows %9.1f MB %7.2f s\n", t.Name, t.Rows, float64(t.Bytes)/1e6,
					t.Elapsed.Seconds())
			}
		}
		if !quiet {
			var bytes int64
			for _, t := range sum.Tables {
				bytes += t.Bytes
			}
			d := time.Since(start)
			fmt.Fprintf(stdout, "%s: trace=%s, %d tables, %d rows, %.1f MB in %.2f s (%.2f M rows/s)\n", db, sum.Trace,
				len(sum.Tables), sum.Rows(), float64(bytes)/1e6, d.Seconds(), float64(sum.Rows())/d.Seconds()/1e6)
		}
	}
	return 0
}
