// Package parquetexport writes tracestreamer databases as one Parquet dataset
// that DuckDB, Spark, Trino and other engines query across traces:
//
//	DIR/<table>/trace=<id>/part-0.parquet
//	DIR/traces/trace=<id>/part-0.parquet
//
// a Hive-partitioned layout with one partition per trace and table. The
// trace id comes from the SHA-256 of the trace's inputs (table source), so
// exporting the same trace again replaces its partitions and never doubles
// its rows, and exporting another adds partitions without touching the rest.
// Every non-empty table and view of a database (but view js_heap_retainer)
// becomes a table of the dataset, with the database's column names, in its
// column order; INT columns
// become INT64, REAL DOUBLE, TEXT UTF-8 strings, all nullable (SQLite's NULL
// is Parquet's null). Rows stream through in row groups of about 64 MiB: no
// table is held in memory.
//
// A table's folder is its name with path separators made "_" (and "_"
// before a name of dots): no name leads out of DIR.
//
// It must not modify the databases it reads, nor remove anything in DIR but
// the part files of the partitions of the traces it writes (and their
// folders, when that leaves them empty).
//
// Parquet is written with github.com/parquet-go/parquet-go. Against
// github.com/apache/arrow-go/v18/parquet (pqarrow), writing 5 M rows of 7
// INT64 and 1 string column with Snappy on this 2-core machine: 1.9 M rows/s
// against 2.2 M rows/s, but a 18 MB test binary against 51 MB, and 27 s
// against 85 s to build with its dependencies from a clean cache (arrow-go
// brings gRPC, Thrift and flatbuffers along). Reading SQLite is the slower
// side of an export (store.Reader), so the smaller, faster-building library
// costs little.
package parquetexport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parquet-go/parquet-go"

	"tracestreamer/internal/scratch"
	"tracestreamer/schema"
	"tracestreamer/store"
)

// Options tune an export.
type Options struct {
	// RowGroupBytes is the uncompressed size a row group aims at (default
	// 64 MiB).
	RowGroupBytes int64
	// Now is the export time recorded in table traces (default time.Now).
	Now func() time.Time
}

// Summary tells what an export wrote.
type Summary struct {
	Trace  string // the trace id: the partition is trace=<Trace>
	Tables []Table
}

// Table is one table (or view) written.
type Table struct {
	Name    string
	Rows    int64
	Bytes   int64 // size of the part file
	Elapsed time.Duration
}

// Rows adds up the rows written.
func (s *Summary) Rows() int64 {
	var n int64
	for _, t := range s.Tables {
		n += t.Rows
	}
	return n
}

// Kind of a Parquet column.
type kind int

const (
	kInt kind = iota
	kFloat
	kText
)

type column struct {
	name string
	kind kind
}

// Export writes the database at dbPath into the dataset in dir (made if
// missing), replacing that trace's earlier partitions. The trace's part files
// are written under temporary names and put in place together at the end:
// an export that fails or is cancelled (ctx) leaves the dataset as it was.
func Export(ctx context.Context, dir, dbPath string, opts Options) (*Summary, error) {
	if opts.RowGroupBytes <= 0 {
		opts.RowGroupBytes = 64 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r, err := store.OpenReader(dbPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	defer r.Close()
	// A cancellation interrupts the statement being read, however long.
	stop := context.AfterFunc(ctx, r.Interrupt)
	defer stop()
	e := &exporter{ctx: ctx, r: r, dir: dir, db: dbPath, opts: opts, known: map[string]*schema.Table{},
		folders: map[string]string{}}
	for _, t := range schema.New().All() {
		e.known[t.Name] = t
	}
	err = e.run()
	if err == nil {
		err = e.commit()
	}
	if err != nil {
		e.abort()
		if ctx.Err() != nil {
			err = ctx.Err() // SQLite says "interrupted"
		}
		return nil, fmt.Errorf("export %s: %w", dbPath, err)
	}
	return &e.sum, nil
}

type exporter struct {
	ctx   context.Context
	r     *store.Reader
	dir   string
	db    string
	opts  Options
	known map[string]*schema.Table
	sum   Summary
	// pending are the part files written under temporary names, with the
	// partition folder each goes to.
	pending []pendingFile
	folders map[string]string // folder (lower case) → the table written there
}

type pendingFile struct{ tmp, part string }

func (e *exporter) run() error {
	info, err := e.traceInfo()
	if err != nil {
		return err
	}
	e.sum.Trace = info.id
	if err := os.MkdirAll(e.dir, 0o777); err != nil {
		return err
	}
	rels, err := e.relations()
	if err != nil {
		return err
	}
	for _, rel := range rels {
		if rel == "traces" || notExported[rel] {
			continue
		}
		start := time.Now()
		t, err := e.writeRelation(rel)
		t.Elapsed = time.Since(start)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if t.Rows > 0 {
			e.sum.Tables = append(e.sum.Tables, t)
		}
	}
	return e.writeTraces(info)
}

// notExported are the relations left out of a dataset: "traces" is the name
// of the dataset's own table of traces, and view js_heap_retainer only joins
// labels to js_heap_node_stats row by row (its retainer_edge_type and
// retainer_edge_name index js_heap_info and js_heap_string), which engines do
// much faster than SQLite without indexes (README: "Many traces").
var notExported = map[string]bool{"traces": true, "js_heap_retainer": true}

// relations lists the tables and views of the database in creation order.
func (e *exporter) relations() ([]string, error) {
	q, err := e.r.Query(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view')
		AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	var out []string
	for q.Next() {
		out = append(out, string(q.Bytes(0)))
	}
	return out, q.Err()
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// columns decides each column's Parquet kind: from tracestreamer's schema for
// its own tables (an INT column whose writers may store a REAL is checked),
// otherwise from the values themselves.
func (e *exporter) columns(rel string) ([]column, error) {
	q, err := e.r.Query("SELECT * FROM " + quote(rel) + " LIMIT 0")
	if err != nil {
		return nil, err
	}
	names, _ := q.Columns()
	q.Close()
	if slices.Contains(names, partitionKey) {
		return nil, fmt.Errorf("a column is named %q, the dataset's partition key", partitionKey)
	}
	cols := make([]column, len(names))
	var check []int
	t := e.known[rel]
	for i, n := range names {
		cols[i].name = n
		if c, ok := schemaColumn(t, n); ok && !c.MayHoldReal {
			switch c.Type {
			case schema.Int:
				cols[i].kind = kInt
			case schema.Real:
				cols[i].kind = kFloat
			default:
				cols[i].kind = kText
			}
			continue
		}
		check = append(check, i)
	}
	if len(check) == 0 {
		return cols, nil
	}
	// One pass over the values: a column with any text is text, else one
	// with any REAL is DOUBLE, else INT64.
	var sel []string
	for _, i := range check {
		c := quote(names[i])
		sel = append(sel, "max(typeof("+c+") IN ('text', 'blob'))", "max(typeof("+c+") = 'real')")
	}
	q, err = e.r.Query("SELECT " + strings.Join(sel, ", ") + " FROM " + quote(rel))
	if err != nil {
		return nil, err
	}
	defer q.Close()
	if !q.Next() {
		return nil, errors.Join(q.Err(), errors.New("no result from the type scan"))
	}
	for k, i := range check {
		switch {
		case q.Int(2*k) == 1:
			cols[i].kind = kText
		case q.Int(2*k+1) == 1:
			cols[i].kind = kFloat
		default:
			cols[i].kind = kInt
		}
	}
	return cols, nil
}

func schemaColumn(t *schema.Table, name string) (schema.Column, bool) {
	if t == nil {
		return schema.Column{}, false
	}
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return schema.Column{}, false
}

// parquetSchema builds the file schema: the columns in order, all optional.
// (parquet.Group orders columns by name; a struct type keeps its order.)
func parquetSchema(rel string, cols []column) *parquet.Schema {
	fields := make([]reflect.StructField, len(cols))
	names := columnNames(cols)
	for i, c := range cols {
		var typ reflect.Type
		switch c.kind {
		case kInt:
			typ = reflect.TypeFor[*int64]()
		case kFloat:
			typ = reflect.TypeFor[*float64]()
		default:
			typ = reflect.TypeFor[*string]()
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: typ,
			Tag: reflect.StructTag(`parquet:` + strconv.Quote(names[i]+",optional"))}
	}
	return parquet.NewSchema(rel, parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Elem().Interface()))
}

// columnNames are the columns' names in Parquet: SQLite's, but a comma,
// which the schema's field tags cannot hold, becomes "_", a name that is
// empty or "-" (a field tag's "skip") gets "_" before it, and a name taken
// already gets "_2", "_3", … after it (tracestreamer's own tables need none
// of this; a foreign view's expression columns may).
func columnNames(cols []column) []string {
	names := make([]string, len(cols))
	used := map[string]bool{}
	for i, c := range cols {
		name := strings.ReplaceAll(c.name, ",", "_")
		if name == "" || name == "-" {
			name = "_" + name
		}
		base := name
		for k := 2; used[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		used[name] = true
		names[i] = name
	}
	return names
}

// partitionKey names the Hive partition column: DIR/<table>/trace=<id>/.
const partitionKey = "trace"

// partition returns the folder of a table's partition of a trace.
func (e *exporter) partition(rel, trace string) string {
	return filepath.Join(e.dir, folderName(rel), partitionKey+"="+trace)
}

// folderName is a table's folder in the dataset: its name, with path
// separators made "_" and a leading "_" before a name of dots, so that no
// table name leads outside the dataset.
func folderName(rel string) string {
	name := strings.NewReplacer("/", "_", `\`, "_").Replace(rel)
	if strings.Trim(name, ".") == "" {
		name = "_" + name
	}
	return name
}

// commit puts the files written in place of the trace's partitions: each is
// renamed over its partition's part file (an atomic replacement), then the
// part files of the trace's other partitions (tables this export did not
// write) are removed.
func (e *exporter) commit() error {
	written := map[string]bool{}
	for i, p := range e.pending {
		if err := os.Rename(p.tmp, filepath.Join(p.part, "part-0.parquet")); err != nil {
			return err
		}
		e.pending[i].tmp = ""
		written[p.part] = true
		if err := scratch.SyncDir(p.part); err != nil {
			return err
		}
	}
	e.pending = nil
	return e.removeTrace(e.sum.Trace, written)
}

// abort removes the files written (and the partition folders made for them,
// when that leaves them empty).
func (e *exporter) abort() {
	for _, p := range e.pending {
		if p.tmp != "" {
			os.Remove(p.tmp)
		}
		os.Remove(p.part) // only if empty
	}
	e.pending = nil
}

// removeTrace deletes the part files of the trace's partitions but the
// part-0 files of those in keep.
func (e *exporter) removeTrace(trace string, keep map[string]bool) error {
	tables, err := os.ReadDir(e.dir)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if !t.IsDir() {
			continue
		}
		part := filepath.Join(e.dir, t.Name(), partitionKey+"="+trace)
		files, err := filepath.Glob(filepath.Join(part, "part-*.parquet"))
		if err != nil {
			return err
		}
		for _, f := range files {
			if keep[part] && filepath.Base(f) == "part-0.parquet" {
				continue
			}
			if err := os.Remove(f); err != nil {
				return err
			}
		}
		os.Remove(part) // only if empty
	}
	return nil
}

// writeRelation streams one table or view into its partition file.
func (e *exporter) writeRelation(rel string) (Table, error) {
	t := Table{Name: rel}
	empty, err := e.r.QueryInt("SELECT NOT EXISTS (SELECT 1 FROM " + quote(rel) + ")")
	if err != nil || empty == 1 {
		return t, err
	}
	cols, err := e.columns(rel)
	if err != nil {
		return t, err
	}
	q, err := e.r.Query("SELECT * FROM " + quote(rel))
	if err != nil {
		return t, err
	}
	defer q.Close()
	err = e.writeFile(rel, parquetSchema(rel, cols), len(cols), func(w *parquet.GenericWriter[any]) (int64, error) {
		return copyRows(e.ctx, q, cols, w, rel, e.opts.RowGroupBytes)
	}, &t)
	return t, err
}

// writeFile writes a partition's part file to a temporary file in the
// partition's folder, which commit renames into place. Temporary files that
// an export killed outright (SIGKILL) left in that folder are removed first.
func (e *exporter) writeFile(rel string, s *parquet.Schema, ncols int,
	fill func(*parquet.GenericWriter[any]) (int64, error), t *Table) error {
	folder := strings.ToLower(folderName(rel)) // as a case-insensitive file system sees it
	if other, ok := e.folders[folder]; ok {
		return fmt.Errorf("tables %q and %q would share the folder %s", other, rel, folderName(rel))
	}
	e.folders[folder] = rel
	part := e.partition(rel, e.sum.Trace)
	if err := os.MkdirAll(part, 0o777); err != nil {
		return err
	}
	scratch.Clean(part)
	f, err := scratch.File(part, "part-0.parquet")
	if err != nil {
		return err
	}
	e.pending = append(e.pending, pendingFile{tmp: f.Name(), part: part})
	rowsPerGroup := max(1024, e.opts.RowGroupBytes/int64(8*max(1, ncols)))
	w := parquet.NewGenericWriter[any](f, s, parquet.Compression(&fastSnappy{}),
		parquet.MaxRowsPerRowGroup(rowsPerGroup), parquet.CreatedBy("tracestreamer", "", ""))
	n, err := fill(w)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.Sync()
	}
	if st, serr := f.Stat(); err == nil && serr == nil {
		t.Bytes = st.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	t.Rows = n
	return nil
}

// batchRows is how many rows go to the writer at once, fewer when their text
// passes maxBatchText.
const (
	batchRows    = 4096
	maxBatchText = 16 << 20
)

// copyRows streams the query's rows to the writer in batches. This goroutine
// only steps SQLite and copies each value's raw bits; the writer's goroutine
// makes the Parquet values and encodes them, so that the two halves of the
// work share the two cores (making the values here left the writer idle a
// third of the time: 1.75 M rows/s on an edge table, against 2.4 M rows/s).
func copyRows(ctx context.Context, q *store.Rows, cols []column, w *parquet.GenericWriter[any], rel string,
	rowGroupBytes int64) (int64, error) {
	const (
		vNull = iota
		vInt
		vFloat
		vText
	)
	type batch struct {
		n    int
		kind []byte  // per value, row by row: vNull, vInt, vFloat or vText
		val  []int64 // the integer, the float's bits, or the end of the text in text
		text []byte
		rows []parquet.Row // the writer's, reused
	}
	ncols := len(cols)
	free := make(chan *batch, 3)
	full := make(chan *batch, 2)
	for range 3 {
		free <- &batch{kind: make([]byte, batchRows*ncols), val: make([]int64, batchRows*ncols)}
	}
	werr := make(chan error, 1)
	var failed atomic.Bool // the writer met an error: the reader stops
	go func() {
		var err error
		var groupBytes int64
		for b := range full {
			if err == nil {
				for len(b.rows) < b.n {
					b.rows = append(b.rows, make(parquet.Row, ncols))
				}
				pos := 0
				for r := range b.n {
					row := b.rows[r][:ncols]
					for i := range ncols {
						v := b.val[r*ncols+i]
						switch b.kind[r*ncols+i] {
						case vNull:
							row[i] = parquet.NullValue().Level(0, 0, i)
						case vInt:
							row[i] = parquet.Int64Value(v).Level(0, 1, i)
						case vFloat:
							row[i] = parquet.DoubleValue(math.Float64frombits(uint64(v))).Level(0, 1, i)
						default:
							row[i] = parquet.ByteArrayValue(b.text[pos:v:v]).Level(0, 1, i)
							pos = int(v)
						}
					}
					b.rows[r] = row
				}
				_, err = w.WriteRows(b.rows[:b.n])
				// A row group ends once its values (8 bytes each, text at its
				// length) pass rowGroupBytes: the writer holds a group's pages
				// until it ends.
				if groupBytes += int64(8*b.n*ncols + len(b.text)); err == nil && groupBytes >= rowGroupBytes {
					err, groupBytes = w.Flush(), 0
				}
				if err != nil {
					failed.Store(true)
				}
			}
			free <- b
		}
		werr <- err
	}()
	var n int64
	var err error
	b := <-free
	b.n, b.text = 0, b.text[:0]
	for q.Next() {
		kind, val := b.kind[b.n*ncols:(b.n+1)*ncols], b.val[b.n*ncols:(b.n+1)*ncols]
		for i, c := range cols {
			switch k := q.Kind(i); {
			case k == store.KindNull:
				kind[i] = vNull
			case c.kind == kInt && k == store.KindInt:
				kind[i], val[i] = vInt, q.Int(i)
			case c.kind == kFloat && (k == store.KindInt || k == store.KindFloat):
				kind[i], val[i] = vFloat, int64(math.Float64bits(q.Float(i)))
			case c.kind == kText:
				if k == store.KindFloat {
					// The shortest text that reads back as the same double
					// (SQLite's own text for a REAL depends on its version).
					b.text = strconv.AppendFloat(b.text, q.Float(i), 'g', -1, 64)
				} else {
					b.text = append(b.text, q.Bytes(i)...)
				}
				kind[i], val[i] = vText, int64(len(b.text))
			default:
				err = fmt.Errorf("row %d: column %s holds a %s value, its Parquet column is %s (please report it)",
					n+1, c.name, kindName(k), [...]string{"INT64", "DOUBLE", "STRING"}[c.kind])
			}
		}
		if err != nil {
			break
		}
		b.n++
		n++
		if b.n == batchRows || len(b.text) >= maxBatchText {
			full <- b
			b = <-free
			b.n, b.text = 0, b.text[:0]
			if err = ctx.Err(); err != nil || failed.Load() {
				break
			}
		}
	}
	if err == nil {
		err = q.Err()
	}
	full <- b
	close(full)
	if werr := <-werr; err == nil {
		err = werr
	}
	if err != nil {
		return n, fmt.Errorf("%s: %w", rel, err)
	}
	return n, nil
}

func kindName(k store.Kind) string {
	switch k {
	case store.KindInt:
		return "INTEGER"
	case store.KindFloat:
		return "REAL"
	case store.KindText:
		return "TEXT"
	case store.KindBlob:
		return "BLOB"
	}
	return "NULL"
}

// traceInfo is what table traces records of a database.
type traceInfo struct {
	id      string
	sha256  string
	sources []source
	formats []string
	start   *int64
	end     *int64
	meta    map[string]string
}

type source struct {
	Path        string `json:"path"`
	Format      string `json:"format"`
	Compression string `json:"compression"`
	Bytes       int64  `json:"bytes"`
	SHA256      string `json:"sha256"`
}

// traceInfo reads the database's inputs, time range and meta rows. The trace
// id is the start of a SHA-256 over the inputs' SHA-256s in order (over the
// database file itself when it records no input).
func (e *exporter) traceInfo() (*traceInfo, error) {
	info := &traceInfo{meta: map[string]string{}}
	has := func(table string) bool {
		n, err := e.r.QueryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'")
		return err == nil && n > 0
	}
	h := sha256.New()
	if has("source") {
		q, err := e.r.Query("SELECT path, format, compression, bytes, sha256 FROM source ORDER BY id")
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for q.Next() {
			s := source{Path: string(q.Bytes(0)), Format: string(q.Bytes(1)), Compression: string(q.Bytes(2)),
				Bytes: q.Int(3), SHA256: string(q.Bytes(4))}
			info.sources = append(info.sources, s)
			fmt.Fprintf(h, "%s\n", s.SHA256)
			if !seen[s.Format] {
				seen[s.Format] = true
				info.formats = append(info.formats, s.Format)
			}
		}
		if err := q.Err(); err != nil {
			return nil, err
		}
	}
	if len(info.sources) == 0 {
		f, err := os.Open(e.db)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	info.sha256 = hex.EncodeToString(h.Sum(nil))
	info.id = info.sha256[:16]
	if has("trace_range") {
		q, err := e.r.Query("SELECT start_ts, end_ts FROM trace_range LIMIT 1")
		if err != nil {
			return nil, err
		}
		if q.Next() {
			if q.Kind(0) != store.KindNull {
				v := q.Int(0)
				info.start = &v
			}
			if q.Kind(1) != store.KindNull {
				v := q.Int(1)
				info.end = &v
			}
		}
		q.Close()
	}
	if has("meta") {
		q, err := e.r.Query("SELECT name, value FROM meta")
		if err != nil {
			return nil, err
		}
		for q.Next() {
			info.meta[string(q.Bytes(0))] = string(q.Bytes(1))
		}
		if err := q.Err(); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// writeTraces writes the trace's row of table traces.
func (e *exporter) writeTraces(info *traceInfo) error {
	abs, err := filepath.Abs(e.db)
	if err != nil {
		abs = e.db
	}
	sources, _ := json.Marshal(info.sources)
	meta, _ := json.Marshal(info.meta)
	var tables []string
	for _, t := range e.sum.Tables {
		tables = append(tables, t.Name)
	}
	cols := []column{{"db_path", kText}, {"sha256", kText}, {"formats", kText}, {"sources", kText},
		{"start_ts", kInt}, {"end_ts", kInt}, {"meta", kText}, {"tables", kText}, {"rows", kInt},
		{"exported_at", kText}}
	row := parquet.Row{
		parquet.ByteArrayValue([]byte(abs)).Level(0, 1, 0),
		parquet.ByteArrayValue([]byte(info.sha256)).Level(0, 1, 1),
		parquet.ByteArrayValue([]byte(strings.Join(info.formats, ","))).Level(0, 1, 2),
		parquet.ByteArrayValue(sources).Level(0, 1, 3),
		optInt(info.start, 4), optInt(info.end, 5),
		parquet.ByteArrayValue(meta).Level(0, 1, 6),
		parquet.ByteArrayValue([]byte(strings.Join(tables, ","))).Level(0, 1, 7),
		parquet.Int64Value(e.sum.Rows()).Level(0, 1, 8),
		parquet.ByteArrayValue([]byte(e.opts.Now().UTC().Format(time.RFC3339))).Level(0, 1, 9),
	}
	var t Table
	err = e.writeFile("traces", parquetSchema("traces", cols), len(cols), func(w *parquet.GenericWriter[any]) (int64, error) {
		_, err := w.WriteRows([]parquet.Row{row})
		return 1, err
	}, &t)
	return err
}

func optInt(v *int64, col int) parquet.Value {
	if v == nil {
		return parquet.NullValue().Level(0, 0, col)
	}
	return parquet.Int64Value(*v).Level(0, 1, col)
}
