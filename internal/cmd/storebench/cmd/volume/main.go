// Command volume writes a whole heap snapshot's worth of rows — by default
// the 435 MB benchmark snapshot's 5 M js_heap_nodes and 17 M js_heap_edges
// rows — with one writer, the way a conversion ends (COMMIT, fsync, rename),
// and prints one line: writer, rows, insert / commit / total seconds, rows/s,
// peak RSS and the file's size. Run one writer per process so that the peak
// RSS is that writer's (volume.sh runs them interleaved under /usr/bin/time).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"tracestreamer/internal/cmd/storebench"
	"tracestreamer/rows"
)

func main() {
	kind := flag.String("w", "store", "writer: store, sql-multi, sql-one, zombiezen, zombiezen-skip")
	nodes := flag.Int("nodes", 5_000_000, "js_heap_nodes rows")
	edges := flag.Int("edges", 17_000_000, "js_heap_edges rows")
	strs := flag.Int("strings", 0, "js_heap_string rows")
	out := flag.String("o", "", "output database (default: storebench-volume-WRITER.db in the temporary folder); removed unless -keep")
	keep := flag.Bool("keep", false, "keep the output")
	header := flag.Bool("header", false, "print the column names first")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(os.TempDir(), "storebench-volume-"+*kind+".db")
	}
	if *header {
		fmt.Printf("%-15s %10s %8s %8s %8s %10s %7s %7s\n", "writer", "rows", "insert", "commit", "total", "rows/s", "RSS MB", "file MB")
	}
	if err := run(*kind, *out, *nodes, *edges, *strs, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "volume:", err)
		os.Exit(1)
	}
}

func run(kind, out string, nodes, edges, strs int, keep bool) error {
	start := time.Now()
	w, err := storebench.Open(kind, out)
	if err != nil {
		return err
	}
	b := &rows.Batch{}
	for _, part := range []struct {
		gen string
		n   int
	}{{"nodes", nodes}, {"edges", edges}, {"strings", strs}} {
		g, _ := storebench.GenByName(part.gen)
		for first := 0; first < part.n; first += storebench.BatchRows {
			g.Fill(b, first, min(storebench.BatchRows, part.n-first))
			if err := w.Insert(b); err != nil {
				w.Close()
				return err
			}
		}
	}
	inserted := time.Since(start)
	if err := w.Commit(); err != nil {
		return err
	}
	total := time.Since(start)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // Maxrss in KiB on Linux
	fi, err := os.Stat(out)
	if err != nil {
		return err
	}
	if !keep {
		os.Remove(out)
	}
	n := nodes + edges + strs
	fmt.Printf("%-15s %10d %8.2f %8.2f %8.2f %10.0f %7.0f %7.0f\n", kind, n, inserted.Seconds(),
		(total - inserted).Seconds(), total.Seconds(), float64(n)/total.Seconds(),
		float64(ru.Maxrss)*1024/1e6, float64(fi.Size())/1e6)
	return nil
}
