// Package store writes row batches into a SQLite database file.
//
// A DB is built in a temporary file beside its destination (internal/scratch)
// inside one transaction, without journal or fsyncs, then synced and renamed
// into place by Commit; Abort removes it.
// A failed or interrupted run therefore never leaves a half-written database under
// the destination name, and never touches an existing file there.
//
// Most tables are not written through SQLite's INSERT at all: their rows come
// in rowid order, so bulk.go encodes each row as a record and packs it into
// leaf pages (internal/sqlitefile), written into a page file beside the
// output at the numbers they will have in the database. SQLite still creates
// the schema and writes what needs it: tables with IntText columns (INT
// affinity converting text) and tables SQL has read (Exec, Query and Prepare
// place the trees first). Rows that come out of rowid order wait in a file
// of their own, and join their tree when it is built again with them
// (rebuild, at Commit); UpdateTexts changes rows of a tree the same way, and
// ScanInts reads them, without SQL. Commit
// copies SQLite's pages into the gap the page file left for them, and the
// page file becomes the database (if SQLite's pages outgrew the gap, the
// trees' pages are copied after them instead; bulk.go's settle does the same
// mid-run).
//
// Async writes batches from a goroutine of its own, each table's tree
// packed on a goroutine of that table's (its lane); the trees share the page
// file, whose numbers are handed out safely for that.
//
// Packing the trees this way writes the 5.1 M-node heap snapshot's 22 M rows
// about three times faster than SQLite's INSERT, and a .dump-identical
// database is checked for every kind of value (TestTreesSameAsSQL, against a
// database written through SQLite only) and by scripts/samedump.
//
// Rows that do go through SQLite are bound through modernc.org/sqlite's
// C-level API directly (sqlite.go): a third of database/sql's CPU time and no
// allocation per row. The measurements behind both choices are in
// docs/performance.md.
//
// It must not know any format or table beyond what schema declares.
package store

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"tracestreamer/internal/scratch"
	"tracestreamer/internal/sqlitefile"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// maxVarsPerStmt bounds the bound parameters of one multi-row INSERT.
const maxVarsPerStmt = 1000

// DB is an output database being written. It is not safe for concurrent use; see
// Async for a Sink that writes from its own goroutine.
type DB struct {
	c      *conn
	tmp    string
	dest   string
	ins    map[*schema.Table]*inserter
	counts map[*schema.Table]int64
	// maxRow is the largest rowid of each table: a row without a rowid of
	// its own gets the next one.
	maxRow map[*schema.Table]int64
	marks  []map[*schema.Table]int64
	text   arena
	bind   binder // binds a row's values (bindValues)
	// handed are the statements Query and Prepare gave out: finalized with
	// the inserters before the connection commits or closes, whether or not
	// their caller closed them.
	handed []*stmt

	// Tables whose rows are built as b-trees and spliced into the file when
	// it is closed (bulk.go), and the file their pages are written to.
	trees map[*schema.Table]*sqlitefile.Tree
	pages *sqlitefile.Pages
	wb    *writeBehind // of pages, nil without one
	// writeBehindStep, if not 0, overrides the constant writeBehindStep
	// (tests); writeBehinds counts the requests made so far.
	writeBehindStep int64
	writeBehinds    int
	// settled is set once trees have been placed in the file (settle).
	settled bool
	rec     sqlitefile.Record
	late    map[*schema.Table]*lateRows // rows that came out of rowid order
	// bySQL tells the tables whose rows go through SQLite from now on: their
	// values need SQLite's conversions (or the DB is sqlOnly), or their rows
	// were placed in the file before it was reopened (settle).
	bySQL map[*schema.Table]bool
	// sqlOnly makes every row go through SQLite (CreateInsertOnly).
	sqlOnly bool
	// pageSize is the file's page size, SQLite's and the trees' alike.
	pageSize int
	// rebuilt, if set, is called after CommitUnless builds a table with
	// late rows again (tests).
	rebuilt func(*schema.Table)
}

type inserter struct {
	t       *schema.Table
	many    *stmt // rowsPer rows
	one     *stmt // one row
	rowsPer int
	// The same with an explicit rowid before the columns (Batch.RowIDs).
	manyR, oneR *stmt
	rowsPerR    int
}

// Create starts a database that Commit will place at dest, running the
// statements of ddl (schema.Tables.DDL) in order to create its tables and
// views.
func Create(dest string, ddl []string) (*DB, error) { return createWith(dest, ddl, false) }

// CreateInsertOnly is Create for a database whose rows all go through
// SQLite's INSERT, not the b-tree writer: the tests (ingest's InsertOnly)
// compare the two.
func CreateInsertOnly(dest string, ddl []string) (*DB, error) { return createWith(dest, ddl, true) }

// Start is Create and NewAsync at once, except that the statements of ddl
// run on the Async's goroutine, before any batch: making the schema (a few
// milliseconds for trace_streamer's tables and ours, a fixed cost that
// counts on a small trace) overlaps the reading of the first input. Their
// error is the Async's (Failed, Err, Close), naming the statement; the DB
// itself may be used once the Async is closed or aborted. insertOnly is
// CreateInsertOnly's. pageSize is the file's page size, a power of two from
// 512 to 65536; 0 is the default, 65536.
func Start(dest string, ddl []string, queue int, insertOnly bool, pageSize int) (*DB, *Async, error) {
	if pageSize != 0 && (pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0) {
		return nil, nil, fmt.Errorf("page size %d is not a power of two from 512 to 65536", pageSize)
	}
	d, err := create(dest, insertOnly)
	if err != nil {
		return nil, nil, err
	}
	if pageSize != 0 {
		d.pageSize = pageSize
	}
	return d, newAsync(d, queue, func() error { return d.init(ddl) }), nil
}

func createWith(dest string, ddl []string, sqlOnly bool) (*DB, error) {
	d, err := create(dest, sqlOnly)
	if err != nil {
		return nil, err
	}
	if err := d.init(ddl); err != nil {
		d.Abort()
		return nil, err
	}
	return d, nil
}

// scratchBeside makes a scratch file in dest's folder, named after it: the
// output's temporary file, the trees' page file and the late rows' files,
// all cleaned up alike after a killed run (internal/scratch).
func scratchBeside(dest string) (*os.File, error) {
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	return scratch.File(dir, base)
}

// create opens a database in a temporary file beside dest, without its
// schema (init).
func create(dest string, sqlOnly bool) (*DB, error) {
	f, err := scratchBeside(dest)
	if err != nil {
		return nil, fmt.Errorf("create output %s: %w", dest, err)
	}
	tmp := f.Name()
	f.Close()
	c, err := openConn(tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	d := &DB{c: c, tmp: tmp, dest: dest, ins: map[*schema.Table]*inserter{},
		counts: map[*schema.Table]int64{}, maxRow: map[*schema.Table]int64{},
		trees: map[*schema.Table]*sqlitefile.Tree{}, late: map[*schema.Table]*lateRows{}, bySQL: map[*schema.Table]bool{}, sqlOnly: sqlOnly,
		pageSize: defaultPageSize}
	d.text.tls = c.tls
	return d, nil
}

// pragmas set up a connection to the output. The file is private until
// Commit renames it, so it needs no journal, locks shared with others, or
// fsyncs: a crash leaves only a temp file behind. The page size only sets
// that of a new file.
func (d *DB) pragmas() string {
	return fmt.Sprintf("PRAGMA page_size=%d; ", d.pageSize) + `PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
	PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-32768`
}

func (d *DB) init(ddl []string) error {
	if err := d.c.exec(d.pragmas() + "; BEGIN"); err != nil {
		return err
	}
	for _, stmt := range ddl {
		if err := d.c.exec(stmt); err != nil {
			return fmt.Errorf("making the schema: %w", err)
		}
	}
	return nil
}

// Exec runs SQL statements inside the open transaction, after the rows built
// as b-trees were placed in the file (settle).
func (d *DB) Exec(sql string) error {
	if err := d.settle(); err != nil {
		return err
	}
	return d.c.exec(sql)
}

// Query runs a query inside the open transaction, after settle, and returns
// its rows, to be read (or closed) before anything else is done with d: the
// next settle, Commit or Abort closes them.
func (d *DB) Query(sql string) (*Rows, error) {
	s, err := d.prepareSettled(sql)
	if err != nil {
		return nil, err
	}
	return &Rows{s: s}, nil
}

// Stmt is a statement prepared inside the open transaction, run once per set
// of parameters. Close it before anything else is done with its DB; its DB
// closes it otherwise at the next settle, Commit or Abort.
type Stmt struct {
	s *stmt
}

// Prepare prepares a statement that changes tables (after settle) to run it
// once per set of parameters: one UPDATE by rowid for each of thousands of
// rows, where a single statement would have to join them.
func (d *DB) Prepare(sql string) (*Stmt, error) {
	s, err := d.prepareSettled(sql)
	if err != nil {
		return nil, err
	}
	return &Stmt{s: s}, nil
}

// prepareSettled prepares sql once the trees are placed in the file, and
// keeps the statement to finalize it with the others (finalize).
func (d *DB) prepareSettled(sql string) (*stmt, error) {
	if err := d.settle(); err != nil {
		return nil, err
	}
	s, err := d.c.prepare(sql)
	if err != nil {
		return nil, err
	}
	d.handed = append(d.handed, s)
	return s, nil
}

// Run binds params to the statement's parameters (?1, ?2, …: each nil, an
// int64 or a float64) and runs it. A statement is closed by Close, and by
// its DB's next settle, Commit or Abort.
func (st *Stmt) Run(params ...any) error {
	if st.s.p == 0 {
		return errors.New("statement is closed")
	}
	if len(params) != len(st.s.bound) {
		return fmt.Errorf("statement has %d parameters, given %d", len(st.s.bound), len(params))
	}
	for i, p := range params {
		switch v := p.(type) {
		case nil:
			st.s.bindNull(i + 1)
		case int64:
			st.s.bindInt(i+1, v)
		case float64:
			st.s.bindDouble(i+1, v)
		default:
			return fmt.Errorf("parameter %d: %T is not nil, int64 or float64", i+1, p)
		}
	}
	return st.s.run()
}

// Close releases the statement.
func (st *Stmt) Close() { st.s.finalize() }

// insertSQL is an INSERT of n rows of t, with an explicit rowid before the
// columns if rowid is set.
func insertSQL(t *schema.Table, n int, rowid bool) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(t.Name)
	cols := len(t.Columns)
	if rowid {
		b.WriteString("(rowid")
		for _, c := range t.Columns {
			b.WriteString(",")
			b.WriteString(schema.Quote(c.Name))
		}
		b.WriteString(")")
		cols++
	}
	b.WriteString(" VALUES ")
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	return b.String()
}

func (d *DB) inserter(t *schema.Table) (*inserter, error) {
	if in := d.ins[t]; in != nil {
		return in, nil
	}
	in := &inserter{t: t, rowsPer: max(1, maxVarsPerStmt/len(t.Columns)),
		rowsPerR: max(1, maxVarsPerStmt/(len(t.Columns)+1))}
	var err error
	if in.many, err = d.c.prepare(insertSQL(t, in.rowsPer, false)); err != nil {
		return nil, err
	}
	if in.one, err = d.c.prepare(insertSQL(t, 1, false)); err != nil {
		return nil, err
	}
	if in.manyR, err = d.c.prepare(insertSQL(t, in.rowsPerR, true)); err != nil {
		return nil, err
	}
	if in.oneR, err = d.c.prepare(insertSQL(t, 1, true)); err != nil {
		return nil, err
	}
	d.ins[t] = in
	return in, nil
}

// Insert writes the rows of b.
func (d *DB) Insert(b *rows.Batch) error {
	if b.N == 0 {
		return nil
	}
	if tr := d.tree(b.Table); tr != nil {
		return d.insertTree(tr, b)
	}
	if err := d.insertSQL(b); err != nil {
		return err
	}
	d.counts[b.Table] += int64(b.N)
	return nil
}

// insertSQL writes the rows of b through SQLite's INSERT, without counting
// them.
func (d *DB) insertSQL(b *rows.Batch) error {
	t := b.Table
	in, err := d.inserter(t)
	if err != nil {
		return err
	}
	ni, nt := t.NumInt(), t.NumText()
	nulls, reals, tnulls := b.Nulls, b.Reals, b.TextNulls
	rowid := len(b.RowIDs) > 0
	maxRow := d.maxRow[t]
	for r := 0; r < b.N; {
		s, n := in.many, in.rowsPer
		if b.N-r < n {
			s, n = in.one, 1
		}
		// Explicit rowids that just continue the table are left to SQLite,
		// which appends without searching the B-tree for each of them.
		explicit := rowid && !follows(b.RowIDs[r:r+n], maxRow)
		switch {
		case explicit:
			s, n = in.manyR, in.rowsPerR
			if b.N-r < n {
				s, n = in.oneR, 1
			}
			for _, id := range b.RowIDs[r : r+n] {
				maxRow = max(maxRow, id)
			}
			err = d.bindRowIDs(s, b, r, n, &nulls, &reals, &tnulls)
		case nt == 0 && len(nulls) == 0 && len(reals) == 0:
			// All-integer rows: bind the values in order.
			for p, v := range b.Ints[r*ni : (r+n)*ni] {
				s.bindInt(p+1, v)
			}
		default:
			err = d.bindMixed(s, b, r, n, &nulls, &reals, &tnulls)
		}
		if err != nil {
			return err
		}
		if !explicit {
			maxRow += int64(n)
		}
		if err := s.run(); err != nil {
			return fmt.Errorf("insert into %s: %w", t.Name, err)
		}
		r += n
	}
	d.maxRow[t] = maxRow
	return nil
}

// follows reports whether ids are the rowids after max, in order.
func follows(ids []int64, max int64) bool {
	for k, id := range ids {
		if id != max+1+int64(k) {
			return false
		}
	}
	return true
}

// bindRowIDs binds rows r..r+n-1 of b, each with its explicit rowid first.
func (d *DB) bindRowIDs(s *stmt, b *rows.Batch, r, n int, nulls, reals, tnulls *[]int32) error {
	per := len(b.Table.Columns) + 1
	if err := d.bindValues(s, b, r, n, nulls, reals, tnulls, 2, per); err != nil {
		return err
	}
	for k := range n {
		s.bindInt(1+k*per, b.RowIDs[r+k])
	}
	return nil
}

// bindMixed binds rows r..r+n-1 of b, which has TEXT columns, NULLs or REALs.
func (d *DB) bindMixed(s *stmt, b *rows.Batch, r, n int, nulls, reals, tnulls *[]int32) error {
	return d.bindValues(s, b, r, n, nulls, reals, tnulls, 1, len(b.Table.Columns))
}

// bindValues binds the values of rows r..r+n-1 of b, the first at parameter
// first, each row taking per parameters.
func (d *DB) bindValues(s *stmt, b *rows.Batch, r, n int, nulls, reals, tnulls *[]int32, first, per int) error {
	t := b.Table
	nt := t.NumText()
	if nt > 0 {
		need := 0
		for _, txt := range b.Texts[r*nt : (r+n)*nt] {
			need += len(txt)
		}
		if err := d.text.reset(need); err != nil {
			return err
		}
	}
	bind := &d.bind
	bind.s, bind.arena = s, &d.text
	for k := r; k < r+n; k++ {
		bind.p = first + (k-r)*per
		visitRow(bind, b, k, nulls, reals, tnulls)
	}
	return nil
}

// binder binds a row's values to consecutive parameters from p on.
type binder struct {
	s     *stmt
	arena *arena
	p     int
}

func (b *binder) Null()          { b.s.bindNull(b.p); b.p++ }
func (b *binder) Int(v int64)    { b.s.bindInt(b.p, v); b.p++ }
func (b *binder) Real(f float64) { b.s.bindDouble(b.p, f); b.p++ }
func (b *binder) Text(s string) {
	b.s.bindText(b.p, b.arena.put(s), len(s))
	b.p++
}

// Count returns the number of rows inserted into t.
func (d *DB) Count(t *schema.Table) int64 { return d.counts[t] }

// Mark remembers the row counts of tables; Rollback(m) deletes the rows inserted
// into them after the mark.
func (d *DB) Mark(tables []*schema.Table) rows.Mark {
	m := make(map[*schema.Table]int64, len(tables))
	for _, t := range tables {
		m[t] = d.counts[t]
	}
	d.marks = append(d.marks, m)
	return rows.Mark(len(d.marks) - 1)
}

// Rollback deletes the rows inserted after mark m into the tables it names. Tables
// are never deleted from otherwise, so rowid equals the row count.
func (d *DB) Rollback(m rows.Mark) error {
	for t, n := range d.marks[m] {
		if d.counts[t] == n {
			continue
		}
		if d.late[t] != nil {
			if err := d.settle(); err != nil {
				return err
			}
		}
		if tr := d.trees[t]; tr != nil {
			if err := tr.Truncate(n); err != nil {
				return fmt.Errorf("roll back %s: %w", t.Name, err)
			}
		} else if err := d.c.exec(fmt.Sprintf("DELETE FROM %s WHERE rowid > %d", t.Name, n)); err != nil {
			return err
		}
		d.counts[t], d.maxRow[t] = n, n
	}
	return nil
}

func (d *DB) finalize() {
	for _, in := range d.ins {
		in.many.finalize()
		in.one.finalize()
		in.manyR.finalize()
		in.oneR.finalize()
	}
	d.ins = map[*schema.Table]*inserter{}
	for _, st := range d.handed {
		st.finalize()
	}
	d.handed = nil
	d.text.free()
}

// Commit ends the transaction, places the tables built as b-trees in the file,
// closes it and renames it to the destination.
func (d *DB) Commit() error { return d.CommitUnless(nil) }

// ErrStopped is returned by CommitUnless when stop was closed before the
// database was moved into place.
var ErrStopped = errors.New("store: commit stopped")

// CommitUnless is Commit, except that once stop is closed (an interrupted
// run) it gives up between its steps (building each table with late rows
// again is one), as Abort does, and returns ErrStopped:
// the destination is only replaced if stop is still open just before.
func (d *DB) CommitUnless(stop <-chan struct{}) error {
	stopped := func() bool {
		select {
		case <-stop:
			d.Abort()
			return true
		default:
			return false
		}
	}
	if stopped() {
		return ErrStopped
	}
	// stopErr is stopped for a rebuild's rows: it aborts later, below.
	stopErr := func() error {
		select {
		case <-stop:
			return ErrStopped
		default:
			return nil
		}
	}
	err := error(nil)
	// Rows that came out of rowid order join their trees, which are built
	// again (a tree is placed only as a whole).
	for _, t := range slices.SortedFunc(maps.Keys(d.late), func(a, b *schema.Table) int { return strings.Compare(a.Name, b.Name) }) {
		if stopped() {
			return ErrStopped
		}
		if err = d.rebuild(t, stopErr, nil); err != nil {
			break
		}
		if d.rebuilt != nil {
			d.rebuilt(t)
		}
	}
	if err == nil {
		err = d.closeAndSplice()
	}
	if err != nil {
		d.Abort()
		if errors.Is(err, ErrStopped) {
			return ErrStopped
		}
		return fmt.Errorf("write output %s: %w", d.dest, err)
	}
	if stopped() {
		return ErrStopped
	}
	// The data reaches the disk before the name does, and the name before
	// Commit returns: after a crash the destination holds the old file or the
	// whole new one, never a torn one.
	if err := scratch.Sync(d.tmp); err != nil {
		os.Remove(d.tmp)
		return fmt.Errorf("write output %s: %w", d.dest, err)
	}
	if stopped() {
		return ErrStopped
	}
	if err := os.Rename(d.tmp, d.dest); err != nil {
		os.Remove(d.tmp)
		return fmt.Errorf("move output into place: %w", err)
	}
	if err := scratch.SyncDir(filepath.Dir(d.dest)); err != nil {
		return fmt.Errorf("write output %s: %w", d.dest, err)
	}
	return nil
}

// Abort closes and removes the temporary file; the destination is not touched.
func (d *DB) Abort() {
	d.finalize()
	d.c.close()
	d.closeTrees()
	d.dropLate()
	os.Remove(d.tmp)
}

// TempPath returns the path of the temporary file being written.
func (d *DB) TempPath() string { return d.tmp }
