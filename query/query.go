// Package query runs SQL statements over a database and prints each result as
// an aligned table, CSV, TSV, JSON or NDJSON, with NULLs and blobs told apart
// from text in every format.
//
// It must not change a database: it reads through store's read-only
// connection and refuses, before it runs, every statement SQLite does not
// call read-only (sqlite3_stmt_readonly). It must not convert inputs either;
// the command hands it a database.
package query

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"tracestreamer/store"
)

// Format is how results are printed.
type Format string

// The formats.
const (
	Table  Format = "table"  // aligned columns, numbers to the right, "(N rows)" after each result
	CSV    Format = "csv"    // RFC 4180 with a header; NULL is an empty field, an empty text ""
	TSV    Format = "tsv"    // PostgreSQL's text format with a header: NULL is \N, \t \n \r \\ escaped
	JSON   Format = "json"   // one array of objects per result
	NDJSON Format = "ndjson" // one object per line
)

// Formats lists the formats in the order the help names them.
var Formats = []Format{Table, CSV, TSV, JSON, NDJSON}

// ParseFormat returns the format called name.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats {
		if string(f) == strings.ToLower(name) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (table, csv, tsv, json or ndjson)", name)
}

// Script is SQL text holding one or more statements, and where it came from.
type Script struct {
	Name string // a file name, or a description such as "SQL argument 1"
	SQL  string
}

// Error is a statement that failed or was refused: SQLite's message and
// where the statement (or the token SQLite names) is in its script.
type Error struct {
	Script    string
	Statement int // 1-based, counted in its script
	Line, Col int // 1-based; Col counts bytes
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: statement %d: %s", e.Script, e.Line, e.Col, e.Statement, e.Msg)
}

// ReadOnlyMessage is the message of a statement refused because it would
// change the database.
const ReadOnlyMessage = "refused: the statement would change the database, and query only reads (the database is opened read-only)"

// Run runs the statements of each script in order, printing each result to w
// in format f. It stops at the first statement that fails (an *Error) and
// when ctx is done (ctx.Err()).
func Run(ctx context.Context, r *store.Reader, scripts []Script, f Format, w io.Writer) error {
	// sqlite3_interrupt stops only a statement that is running: keep
	// interrupting until Run returns, which waits for the goroutine to end
	// (the reader may be closed once Run has returned).
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			r.Interrupt()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	defer func() {
		close(done)
		<-exited
	}()
	out, err := newWriter(f, w)
	if err != nil {
		return err
	}
	results := 0
	for _, s := range scripts {
		n := 0
		for off := 0; off < len(s.SQL); {
			if err := ctx.Err(); err != nil {
				return err
			}
			q, tail, err := r.Prepare(s.SQL[off:])
			start := off + leadingSpace(s.SQL[off:])
			fail := func(at int, msg string) error {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				line, col := position(s.SQL, at)
				return &Error{Script: s.Name, Statement: n, Line: line, Col: col, Msg: msg}
			}
			if err != nil {
				n++
				at := start
				if se, ok := err.(*store.SQLError); ok {
					if se.Offset >= 0 {
						at = off + se.Offset
					}
					return fail(at, se.Msg)
				}
				return fail(at, err.Error())
			}
			off += tail
			if q == nil {
				continue // only spaces or comments
			}
			n++
			if !q.ReadOnly() {
				q.Close()
				return fail(start, ReadOnlyMessage)
			}
			names, _ := q.Columns()
			if len(names) > 0 {
				if err := out.begin(names, results); err != nil {
					q.Close()
					return err
				}
				results++
			}
			vals := make([]Value, len(names))
			for q.Next() {
				for i := range vals {
					vals[i] = read(q, i)
				}
				if err := out.row(vals); err != nil {
					q.Close()
					return err
				}
			}
			if err := q.Err(); err != nil {
				return fail(start, strings.TrimPrefix(err.Error(), "sqlite: step: "))
			}
			if len(names) > 0 {
				if err := out.end(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// leadingSpace is the length of the white space at the start of s.
func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n\f\v"))
}

// position returns the line and column (1-based, in bytes) of offset off in s.
func position(s string, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	before := s[:off]
	line = strings.Count(before, "\n") + 1
	col = off - (strings.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Kind is the storage class of a value.
type Kind = store.Kind

// Value is one value of a result row. Text and Blob are copies.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Text  string // KindText; KindBlob: the bytes
}

func read(q *store.Rows, i int) Value {
	switch k := q.Kind(i); k {
	case store.KindInt:
		return Value{Kind: k, Int: q.Int(i)}
	case store.KindFloat:
		return Value{Kind: k, Float: q.Float(i)}
	case store.KindText:
		return Value{Kind: k, Text: string(q.Bytes(i))}
	case store.KindBlob:
		return Value{Kind: k, Text: string(q.Blob(i))}
	default:
		return Value{Kind: store.KindNull}
	}
}
