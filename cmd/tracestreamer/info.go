package main

import (
	"context"
	"fmt"
	"io"

	"tracestreamer/inspect"
)

const infoUsage = `usage: tracestreamer info IN_OR_DB...

For a trace file: its format, compression, size and what it holds (heap
snapshots and timelines, CPU profiles, records, events by phase), read once
without writing a database. For a tracestreamer database: the version that
wrote it, its sources, time range, tables with their row counts and indexes.
`

// runInfo is `tracestreamer info`.
func runInfo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "tracestreamer: info: no file given\n%s", infoUsage)
		return 2
	}
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Fprint(stdout, infoUsage)
			return 0
		}
	}
	for i, path := range args {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		var err error
		if path != "-" && inspect.IsDatabase(path) {
			var d *inspect.Database
			if d, err = inspect.ReadDatabase(ctx, path); err == nil {
				err = d.Write(stdout)
			}
		} else {
			var t *inspect.Trace
			if t, err = inspect.ReadTrace(ctx, path, stdin); err == nil {
				err = t.Write(stdout)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "tracestreamer: info: interrupted")
				return 130
			}
			fmt.Fprintf(stderr, "tracestreamer: info: %v\n", err)
			return 1
		}
	}
	return 0
}
