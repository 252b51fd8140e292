// Command benchrun is `make bench`: it generates large inputs (once, into a
// git-ignored cache: heap snapshots, timelines and CPU profiles with node, a
// Chrome trace with its own generator), converts each with the tracestreamer binary, and
// prints input size, wall time, MB/s, rows/s and peak RSS next to the bare
// insert time: the same number of rows per table written by the same store code
// without any parsing, so the ratio shows what parsing costs on top of writing.
// Heap inputs run twice, with the default heap analysis and with
// --no-analysis, side by side. Then the scaling table: snapshots of 1×, 2× and
// 4× the benchmark snapshot's size (generated once), default and
// --no-analysis, wall and peak RSS. Last, the cores table: the real-mix
// trace, a 29 MB one, the snapshot htrace and an ArkTS .rawheap made of the
// snapshot (cmd/mkrawheap) with --threads 1, 2 and every core, wall, CPU,
// peak RSS and database size, beside Perfetto's trace_processor_shell -e,
// the reference trace_streamer and rawheap_translator when their bundles
// are unpacked under -peers, and this machine's own 2-thread
// ceiling (two independent units of arithmetic and of map lookups at
// GOMAXPROCS 2 against 1), measured before and after them. With -base DIR,
// each of the cores table's tracestreamer runs follows the same run of the
// build in DIR: a change's before and after in the same minutes.
// scripts/cores packs and runs the cores table on a machine without Go.
package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"

	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/store"
)

type benchCase struct {
	name   string
	raw    string   // node output
	gen    []string // node command generating raw (raw path appended)
	wrap   []string // mkhtrace flag for raw
	htrace string   // the input converted; raw itself when wrap is empty
	// genGo, if set, generates raw instead of node.
	genGo func(path string) error
	// export, if set, also times `tracestreamer export -parquet` of the database.
	export bool
	// heap inputs are converted with --no-analysis too.
	heap bool
	// genArg, if set, follows the output path in the gen command.
	genArg string
}

// realTraceSize is the size of the real-mix Chrome trace, trace-real: the
// one issue 27's figures were measured on.
const realTraceSize = 519e6

// snapshotGen returns the node command that generates the benchmark snapshot
// (its record count appended: 400 000 for 1×).
func snapshotGen() []string {
	return []string{"node", "--max-old-space-size=16384", "testdata/bench/gen-snapshot.js"}
}

func main() {
	bin := flag.String("bin", "bin", "directory with tracestreamer and mkhtrace")
	base := flag.String("base", "", "directory with another build's tracestreamer, run before each run of the cores table")
	cache := flag.String("cache", ".cache/bench", "directory for generated inputs")
	only := flag.String("only", "", "run only the cases whose name contains this (cores: the cores table alone; cores/NAME: its inputs whose name contains NAME)")
	peers := flag.String("peers", ".cache/peers", "directory where the peers' bundles are unpacked (shared/tools/README.md)")
	genOnly := flag.String("gentrace", "", "only write the generated Chrome trace to this file (size: -trace-mb)")
	traceMB := flag.Int("trace-mb", 500, "size of the generated Chrome trace in MB")
	genReal := flag.String("gentrace-real", "", "only write the realistic Chrome trace (real captures of testdata tiled) to this file (size: -trace-mb)")
	onlyCeiling := flag.Int("ceiling", 0, "only measure this machine's 2-thread ceiling, this many rounds")
	flag.Parse()
	if *onlyCeiling > 0 {
		fmt.Printf("2-thread ceiling (wall at GOMAXPROCS 2 / 1 of two independent units): %v\n", measureCeiling(*onlyCeiling))
		return
	}
	if *genReal != "" {
		if err := genRealTrace(*genReal, ".", int64(*traceMB)*1e6); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(1)
		}
		return
	}
	if *genOnly != "" {
		if err := genTrace(*genOnly, int64(*traceMB)*1e6); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *base, *cache, *peers, *only); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func run(bin, base, cache, peers, only string) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	cases := []benchCase{
		{name: "snapshot", heap: true, raw: "snapshot.heapsnapshot", gen: snapshotGen(),
			wrap: []string{"-snapshot"}, htrace: "snapshot.htrace", export: true},
		{name: "timeline", heap: true, raw: "timeline.heaptimeline", gen: []string{"node", "--max-old-space-size=8192", "testdata/bench/gen-timeline.js"},
			wrap: []string{"-timeline"}, htrace: "timeline.htrace"},
		{name: "cpuprofile", raw: "profile.cpuprofile", gen: []string{"node", "testdata/bench/gen-cpuprofile.js"},
			wrap: []string{"-cpuprofile"}, htrace: "cpuprofile.htrace"},
		{name: "trace", raw: "trace.json", htrace: "trace.json",
			genGo: func(path string) error { return genTrace(path, 500e6) }, export: true},
		{name: "trace-real", raw: "trace-real.json", htrace: "trace-real.json",
			genGo: func(path string) error { return genRealTrace(path, ".", realTraceSize) }},
	}
	fmt.Printf("%-11s %7s %7s %6s %10s %9s %7s | %-21s | %7s %5s\n", "input", "MB", "wall s", "MB/s",
		"rows", "rows/s", "RSS MB", "--no-analysis s, MB", "bare s", "ratio")
	for _, c := range cases {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		in := filepath.Join(cache, c.htrace)
		if err := ensure(c, cache, bin); err != nil {
			return err
		}
		out := filepath.Join(cache, c.name+".db")
		info, err := os.Stat(in)
		if err != nil {
			return err
		}
		raw := "-"
		if c.heap {
			wall, rss, err := convert(bin, []string{"--no-analysis"}, in, out)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			raw = fmt.Sprintf("%6.2f s %5.0f MB", wall.Seconds(), float64(rss)/1e6)
		}
		wall, rss, err := convert(bin, nil, in, out)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		counts, err := tableCounts(out)
		if err != nil {
			return err
		}
		var total int64
		for _, n := range counts {
			total += n.rows
		}
		bare, err := bareInsert(counts, filepath.Join(cache, c.name+"-bare.db"))
		if err != nil {
			return err
		}
		mb := float64(info.Size()) / 1e6
		fmt.Printf("%-11s %7.1f %7.2f %6.1f %10d %9.0f %7.0f | %-21s | %7.2f %5.2f\n", c.name, mb, wall.Seconds(),
			mb/wall.Seconds(), total, float64(total)/wall.Seconds(), float64(rss)/1e6, raw, bare.Seconds(),
			wall.Seconds()/bare.Seconds())
		if c.export {
			if err := timeExport(bin, out, filepath.Join(cache, c.name+".parquet")); err != nil {
				return err
			}
		}
		os.Remove(out)
	}
	if only == "" || strings.Contains("scaling", only) {
		if err := scaling(bin, cache); err != nil {
			return err
		}
	}
	return cores(bin, base, cache, peers, only)
}

// convert runs one conversion and returns its wall time and peak RSS.
func convert(bin string, args []string, in, out string) (time.Duration, int64, error) {
	cmd := exec.Command(filepath.Join(bin, "tracestreamer"), append(append([]string{"-q"}, args...), in, "-o", out)...)
	cmd.Stderr = os.Stderr
	f, err := measure(cmd, out)
	return f.wall, f.rss, err
}

// scaling converts snapshots of 1×, 2× and 4× the benchmark snapshot's
// records, with and without the analysis, and prints how wall time and peak
// RSS grow.
func scaling(bin, cache string) error {
	fmt.Printf("\nscaling (heap snapshot htrace; default = with the heap analysis)\n")
	fmt.Printf("%-6s %8s %9s %9s %12s %9s %9s %12s %8s\n", "size", "MB", "nodes M", "default s", "default MB",
		"raw s", "raw MB", "default/raw", "MB/s")
	for _, k := range []int{1, 2, 4} {
		c := benchCase{raw: fmt.Sprintf("snapshot-%dx.heapsnapshot", k), wrap: []string{"-snapshot"},
			htrace: fmt.Sprintf("snapshot-%dx.htrace", k),
			gen:    snapshotGen(), genArg: fmt.Sprint(400000 * k)}
		if k == 1 {
			c.raw, c.htrace, c.genArg = "snapshot.heapsnapshot", "snapshot.htrace", ""
		}
		if err := ensure(c, cache, bin); err != nil {
			return err
		}
		in := filepath.Join(cache, c.htrace)
		out := filepath.Join(cache, "scaling.db")
		info, err := os.Stat(in)
		if err != nil {
			return err
		}
		rawWall, rawRSS, err := convert(bin, []string{"--no-analysis"}, in, out)
		if err != nil {
			return fmt.Errorf("scaling %d×: %w", k, err)
		}
		wall, rss, err := convert(bin, nil, in, out)
		if err != nil {
			return fmt.Errorf("scaling %d×: %w", k, err)
		}
		var nodes int64
		if db, err := sql.Open("sqlite", "file:"+out+"?mode=ro"); err == nil {
			db.QueryRow("SELECT count(*) FROM js_heap_nodes").Scan(&nodes)
			db.Close()
		}
		os.Remove(out)
		mb := float64(info.Size()) / 1e6
		fmt.Printf("%-6s %8.0f %9.2f %9.2f %12.0f %9.2f %9.0f %12.2f %8.1f\n", fmt.Sprintf("%d×", k), mb,
			float64(nodes)/1e6, wall.Seconds(), float64(rss)/1e6, rawWall.Seconds(), float64(rawRSS)/1e6,
			wall.Seconds()/rawWall.Seconds(), mb/wall.Seconds())
	}
	return nil
}

// timeExport exports a database to a fresh Parquet dataset; the command
// prints its rows and rows/s, this its peak RSS.
func timeExport(bin, db, dir string) error {
	os.RemoveAll(dir)
	defer os.RemoveAll(dir)
	cmd := exec.Command(filepath.Join(bin, "tracestreamer"), "export", "-parquet", dir, db)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Print("  export -parquet: ")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("export %s: %w", db, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		fmt.Printf("  export peak RSS %.0f MB\n", float64(ru.Maxrss*1024)/1e6)
	}
	return nil
}

// ensure generates the raw capture with node and wraps it into an htrace file,
// unless both exist already.
func ensure(c benchCase, cache, bin string) error {
	in := filepath.Join(cache, c.htrace)
	if _, err := os.Stat(in); err == nil {
		return nil
	}
	raw := filepath.Join(cache, c.raw)
	if c.genGo != nil {
		fmt.Fprintf(os.Stderr, "generating %s…\n", raw)
		return c.genGo(raw)
	}
	if _, err := os.Stat(raw); err != nil {
		if _, err := exec.LookPath("node"); err != nil {
			return errors.New("node is needed to generate the benchmark inputs")
		}
		fmt.Fprintf(os.Stderr, "generating %s with node…\n", raw)
		args := append(append([]string{}, c.gen[1:]...), raw)
		if c.genArg != "" {
			args = append(args, c.genArg)
		}
		cmd := exec.Command(c.gen[0], args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("generate %s: %w", raw, err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "mkhtrace"), append(c.wrap, raw, "-o", in)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("wrap %s: %w", raw, err)
	}
	return nil
}

type tableCount struct {
	table   *schema.Table
	rows    int64
	intAvg  []int64 // average absolute value of each INT column
	textLen []int   // average length of each TEXT column
}

// tableCounts reads how many rows each table of a result has, and how long its
// texts are on average.
func tableCounts(path string) ([]tableCount, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out []tableCount
	for _, t := range schema.New().All() {
		tc := tableCount{table: t}
		if err := db.QueryRow("SELECT count(*) FROM " + t.Name).Scan(&tc.rows); err != nil {
			return nil, err
		}
		for _, c := range t.Columns {
			var avg sql.NullFloat64
			if c.Type.IsText() {
				db.QueryRow("SELECT avg(length(" + schema.Quote(c.Name) + ")) FROM " + t.Name).Scan(&avg)
				tc.textLen = append(tc.textLen, int(avg.Float64+0.5))
			} else {
				db.QueryRow("SELECT avg(abs(" + schema.Quote(c.Name) + ")) FROM " + t.Name).Scan(&avg)
				tc.intAvg = append(tc.intAvg, int64(avg.Float64+0.5))
			}
		}
		if tc.rows > 0 {
			out = append(out, tc)
		}
	}
	return out, nil
}

// bareInsert writes the same numbers of rows with the store, no parsing. Each
// INT value cycles through 0..2×(the column's average), so that values take
// about the space the real ones do in SQLite's records.
func bareInsert(counts []tableCount, path string) (time.Duration, error) {
	ts := schema.New()
	os.Remove(path) // as convert does
	syscall.Sync()
	start := time.Now()
	db, err := store.Create(path, ts.DDL())
	if err != nil {
		return 0, err
	}
	sink := store.NewAsync(db, 32)
	for _, tc := range counts {
		app := rows.NewAppender(sink, tc.table)
		ints := make([]int64, tc.table.NumInt())
		texts := make([]string, len(tc.textLen))
		for i, n := range tc.textLen {
			texts[i] = strings.Repeat("x", n)
		}
		for r := int64(0); r < tc.rows; r++ {
			for i := range ints {
				ints[i] = (r * 7919) % (2*tc.intAvg[i] + 1)
			}
			app.Row(ints, texts...)
		}
		app.Flush()
	}
	if err := sink.Close(); err != nil {
		db.Abort()
		return 0, err
	}
	if err := db.Commit(); err != nil {
		return 0, err
	}
	d := time.Since(start)
	os.Remove(path)
	return d, nil
}
