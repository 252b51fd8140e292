package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"tracestreamer/ingest"
	"tracestreamer/inspect"
	"tracestreamer/internal/scratch"
	"tracestreamer/query"
	"tracestreamer/store"
)

const queryUsage = `usage: tracestreamer query [--format F] DB|TRACE [SQL... | -f FILE...]

Runs SQL statements (separated by semicolons) on a tracestreamer database,
read-only, and prints each result. Without SQL or -f the statements are read
from standard input. A trace file instead of a database is converted to a
temporary database first (removed afterwards).

flags:
  --format F   table (the default on a terminal), tsv (the default otherwise),
               csv, json (an array of objects per result) or ndjson
  -f FILE      read statements from FILE (- for standard input); repeatable

NULL and blobs: table NULL and x'0a1b' (text that could be taken for either is
quoted); csv an empty field and \x0a1b (an empty text is ""); tsv \N and
\x0a1b (text escaped as PostgreSQL's COPY does); json null and
{"blob_hex":"0a1b"}.

exit status: 0 success, 1 an SQL error or a refused statement (the message
says FILE:LINE:COLUMN and which statement), 2 usage error, 130 interrupted
`

// runQuery is `tracestreamer query`.
func runQuery(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	format := query.TSV
	if isTerminal(stdout) {
		format = query.Table
	}
	var input string
	var scripts []query.Script
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "tracestreamer: query: %s\n%s", msg, queryUsage)
		return 2
	}
	nArg := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help" || a == "-help":
			fmt.Fprint(stdout, queryUsage)
			return 0
		case a == "--format" || a == "-format" || strings.HasPrefix(a, "--format="):
			name, ok := strings.CutPrefix(a, "--format=")
			if !ok {
				if i+1 >= len(args) {
					return usage(a + " needs a format")
				}
				i++
				name = args[i]
			}
			f, err := query.ParseFormat(name)
			if err != nil {
				return usage(err.Error())
			}
			format = f
		case a == "-f" || a == "--file":
			if i+1 >= len(args) {
				return usage(a + " needs a file")
			}
			i++
			var b []byte
			var err error
			if args[i] == "-" {
				b, err = io.ReadAll(stdin)
			} else {
				b, err = os.ReadFile(args[i])
			}
			if err != nil {
				fmt.Fprintf(stderr, "tracestreamer: query: %v\n", err)
				return 1
			}
			scripts = append(scripts, query.Script{Name: args[i], SQL: string(b)})
		case strings.HasPrefix(a, "-") && a != "-":
			return usage("unknown flag " + a)
		case input == "":
			input = a
		default:
			nArg++
			scripts = append(scripts, query.Script{Name: fmt.Sprintf("SQL argument %d", nArg), SQL: a})
		}
	}
	if input == "" {
		return usage("no database or trace given")
	}
	if len(scripts) == 0 {
		if f, ok := stdin.(*os.File); stdin == nil || ok && isTerminal(f) {
			return usage("no SQL given")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "tracestreamer: query: %v\n", err)
			return 1
		}
		scripts = append(scripts, query.Script{Name: "standard input", SQL: string(b)})
	}
	db, cleanup, code := databaseOf(ctx, input, stdin, stderr)
	if code != 0 {
		return code
	}
	defer cleanup()
	r, err := store.OpenReader(db)
	if err != nil {
		fmt.Fprintf(stderr, "tracestreamer: query: %s: %v\n", input, err)
		return 1
	}
	defer r.Close()
	err = query.Run(ctx, r, scripts, format, stdout)
	var qe *query.Error
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "tracestreamer: query: interrupted")
		return 130
	case errors.As(err, &qe):
		fmt.Fprintf(stderr, "tracestreamer: query: %v\n", err)
		return 1
	default:
		fmt.Fprintf(stderr, "tracestreamer: query: %s: %v\n", input, err)
		return 1
	}
}

// databaseOf returns the database to read for input: input itself when it is
// a SQLite database, else a temporary database converted from it (quietly,
// warnings on stderr), which cleanup removes.
func databaseOf(ctx context.Context, input string, stdin io.Reader, stderr io.Writer) (db string, cleanup func(), code int) {
	if input != "-" {
		if _, err := os.Stat(input); err != nil {
			fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
			return "", nil, 1
		}
		if inspect.IsDatabase(input) {
			return input, func() {}, 0
		}
	}
	dir, err := scratch.Dir("")
	if err != nil {
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		return "", nil, 1
	}
	cleanup = func() { os.RemoveAll(dir) }
	db = filepath.Join(dir, "trace.db")
	_, err = ingest.Run(ctx, []string{input}, ingest.Options{Output: db, Warnings: stderr, Stdin: stdin})
	if err != nil {
		cleanup()
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "tracestreamer: interrupted")
			return "", nil, 130
		}
		fmt.Fprintf(stderr, "tracestreamer: %v\n", err)
		return "", nil, 1
	}
	return db, cleanup, 0
}
