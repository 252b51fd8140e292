package inspect

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"tracestreamer/store"
)

// Database is what info says about a database.
type Database struct {
	Path    string
	Bytes   int64
	Meta    [][2]string // table meta: name, value (writer, version, …)
	Sources [][]string  // table source: id, path, format, compression, bytes, heap_file_ids, cpu_profile_ids
	// Start and End are trace_range's; HasRange is false without a row.
	Start, End int64
	HasRange   bool
	Tables     []TableRows
	Views      []string
	Indexes    []string
}

// TableRows is a table and its row count.
type TableRows struct {
	Name string
	Rows int64
}

// ReadDatabase reads the description of the database at path. Counting the
// rows reads every table once (about a second for 20 M rows).
func ReadDatabase(ctx context.Context, path string) (*Database, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	r, err := store.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	stop := context.AfterFunc(ctx, r.Interrupt)
	defer stop()
	d := &Database{Path: path, Bytes: st.Size()}
	objects, err := strings2(r, "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	has := map[string]bool{}
	for _, o := range objects {
		switch o[0] {
		case "table":
			has[o[1]] = true
			n, err := r.QueryInt("SELECT count(*) FROM " + quoteIdent(o[1]))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			d.Tables = append(d.Tables, TableRows{o[1], n})
		case "view":
			d.Views = append(d.Views, o[1])
		case "index":
			d.Indexes = append(d.Indexes, o[1])
		}
	}
	if has["meta"] {
		rows, err := strings2(r, "SELECT name, value FROM meta ORDER BY rowid")
		if err != nil {
			return nil, err
		}
		for _, m := range rows {
			d.Meta = append(d.Meta, [2]string{m[0], m[1]})
		}
	}
	if has["source"] {
		d.Sources, err = strings2(r, "SELECT id, path, format, compression, bytes, heap_file_ids, cpu_profile_ids FROM source ORDER BY id")
		if err != nil {
			return nil, err
		}
	}
	if has["trace_range"] {
		q, err := r.Query("SELECT start_ts, end_ts FROM trace_range LIMIT 1")
		if err != nil {
			return nil, err
		}
		if q.Next() {
			d.Start, d.End, d.HasRange = q.Int(0), q.Int(1), true
			q.Close()
		}
		if err := q.Err(); err != nil {
			return nil, err
		}
	}
	return d, ctx.Err()
}

// strings2 runs sql and returns its rows as text (NULL as "").
func strings2(r *store.Reader, sql string) ([][]string, error) {
	q, err := r.Query(sql)
	if err != nil {
		return nil, err
	}
	names, _ := q.Columns()
	var out [][]string
	for q.Next() {
		row := make([]string, len(names))
		for i := range row {
			row[i] = string(q.Bytes(i))
		}
		out = append(out, row)
	}
	return out, q.Err()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// meta returns the meta value called name.
func (d *Database) meta(name string) string {
	for _, m := range d.Meta {
		if m[0] == name {
			return m[1]
		}
	}
	return ""
}

// Write prints the description.
func (d *Database) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "database\t%s\n", d.Path)
	fmt.Fprintf(tw, "size\t%s\n", size(d.Bytes))
	writer := "unknown (no meta table)"
	if tool := d.meta("parse_tool"); tool != "" {
		writer = tool + " " + d.meta("tool_version")
		if rt := d.meta("runtime"); rt != "" {
			writer += ", at " + rt
		}
	}
	fmt.Fprintf(tw, "written by\t%s\n", writer)
	if d.HasRange {
		fmt.Fprintf(tw, "time range\t%d .. %d ns (%.6f s)\n", d.Start, d.End, float64(d.End-d.Start)/1e9)
	}
	tw.Flush()
	if len(d.Sources) > 0 {
		fmt.Fprintf(w, "\nsources\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  id\tpath\tformat\tcompression\tbytes\theap files\tCPU profiles\n")
		for _, s := range d.Sources {
			fmt.Fprintf(tw, "  %s\n", strings.Join(s, "\t"))
		}
		tw.Flush()
	}
	empty := 0
	fmt.Fprintf(w, "\ntables with rows\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range d.Tables {
		if t.Rows == 0 {
			empty++
			continue
		}
		fmt.Fprintf(tw, "  %s\t%d\n", t.Name, t.Rows)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d tables (%d empty), %d views, %d indexes", len(d.Tables), empty, len(d.Views), len(d.Indexes))
	if len(d.Indexes) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(d.Indexes, ", "))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// Write prints the description.
func (t *Trace) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s\n", t.Path)
	fmt.Fprintf(tw, "format\t%s\n", t.Format)
	fmt.Fprintf(tw, "compression\t%s\n", t.Compression)
	fmt.Fprintf(tw, "size\t%s", size(t.Bytes))
	if t.Compression != "none" {
		fmt.Fprintf(tw, ", %s decompressed", size(t.Content))
	}
	fmt.Fprintf(tw, "\n")
	tw.Flush()
	if len(t.Holds) == 0 {
		_, err := fmt.Fprintf(w, "\nholds        (not counted by info for this format yet)\n")
		return err
	}
	fmt.Fprintf(w, "\nholds\n")
	// Every line has the note's cell, so that the notes line up; the
	// padding of an empty one is trimmed.
	var b strings.Builder
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, it := range t.Holds {
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", it.What, it.Count, it.Note)
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+line[len(strings.TrimRight(line, "\n")):]); err != nil {
			return err
		}
	}
	return nil
}

func size(n int64) string {
	return fmt.Sprintf("%.1f MB (%d bytes)", float64(n)/1e6, n)
}
