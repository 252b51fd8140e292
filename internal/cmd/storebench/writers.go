package storebench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
	zs "zombiezen.com/go/sqlite"

	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/store"
)

// Writer writes batches into a new database in one transaction.
type Writer interface {
	// Insert writes the rows of b (INT and TEXT values, no NULLs or REALs).
	Insert(b *rows.Batch) error
	// EndTx commits the transaction (SQLite writes its dirty pages to the
	// file, no fsync): the end of the timed part of a benchmark.
	EndTx() error
	// Close releases everything and removes the file (after EndTx, or
	// instead of it).
	Close()
	// Commit ends the way production ends (store.DB.Commit): COMMIT, close,
	// fsync the file, rename it to its destination, fsync the folder.
	Commit() error
}

// Kinds are the writers compared, in the order they are reported.
var Kinds = []string{"store", "sql-multi", "sql-one", "zombiezen", "zombiezen-skip"}

// Open starts a database that Commit places at dest, with the store's
// pragmas and the whole schema (schema.New().DDL()) created in the open
// transaction.
func Open(kind, dest string) (Writer, error) {
	switch kind {
	case "store":
		db, err := store.Create(dest, Tables.DDL())
		if err != nil {
			return nil, err
		}
		return &storeWriter{db: db}, nil
	case "sql-multi", "sql-one":
		return openSQL(dest, kind == "sql-one")
	case "zombiezen", "zombiezen-skip":
		return openZombie(dest, kind == "zombiezen-skip")
	}
	return nil, fmt.Errorf("unknown writer %q (want one of %s)", kind, strings.Join(Kinds, ", "))
}

// rowsPer is the store's rows per multi-row INSERT (store.maxVarsPerStmt = 1000).
func rowsPer(t *schema.Table) int { return max(1, 1000/len(t.Columns)) }

// insertSQL is the store's INSERT of n rows of t (store.insertSQL without rowid).
func insertSQL(t *schema.Table, n int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", len(t.Columns)), ",") + ")"
	return "INSERT INTO " + t.Name + " VALUES " + strings.TrimSuffix(strings.Repeat(row+",", n), ",")
}

// chunks calls f for the statements the store runs for a batch of n rows:
// rows r..r+k-1, k = per while a whole statement's worth is left, then 1.
func chunks(n, per int, f func(r, k int) error) error {
	for r := 0; r < n; {
		k := per
		if n-r < per {
			k = 1
		}
		if err := f(r, k); err != nil {
			return err
		}
		r += k
	}
	return nil
}

// stmts are a table's two prepared INSERTs (insertSQL): per rows, and one
// row for the rest of a batch (chunks).
type stmts[S any] struct {
	many, one S
	per       int
}

// prepareStmts prepares t's two INSERTs with prepare.
func prepareStmts[S any](t *schema.Table, prepare func(q string) (S, error)) (*stmts[S], error) {
	in := &stmts[S]{per: rowsPer(t)}
	var err error
	if in.many, err = prepare(insertSQL(t, in.per)); err != nil {
		return nil, err
	}
	if in.one, err = prepare(insertSQL(t, 1)); err != nil {
		return nil, err
	}
	return in, nil
}

// insert writes the rows of b in the store's chunks: run binds rows
// r..r+k-1 to the statement s (many or one) and executes it.
func (in *stmts[S]) insert(b *rows.Batch, run func(s S, r, k int) error) error {
	return chunks(b.N, in.per, func(r, k int) error {
		s := in.many
		if k == 1 {
			s = in.one
		}
		if err := run(s, r, k); err != nil {
			return fmt.Errorf("insert into %s: %w", b.Table.Name, err)
		}
		return nil
	})
}

// eachValue hands the values of rows r..r+k-1 of b, in the order of the
// statement's parameters (p from 0), to intValue and textValue.
func eachValue(b *rows.Batch, r, k int, intValue func(p int, v int64), textValue func(p int, v string)) {
	t := b.Table
	ni, nt := t.NumInt(), t.NumText()
	if nt == 0 {
		for p, v := range b.Ints[r*ni : (r+k)*ni] {
			intValue(p, v)
		}
		return
	}
	p := 0
	for row := r; row < r+k; row++ {
		for c, col := range t.Columns {
			if col.Type.IsText() {
				textValue(p, b.Texts[row*nt+t.Slot(c)])
			} else {
				intValue(p, b.Ints[row*ni+t.Slot(c)])
			}
			p++
		}
	}
}

// tmpName is where the writers other than the store build dest.
func tmpName(dest string) string {
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".storebench.tmp")
}

// syncRename is the end of store.DB.Commit for a closed file tmp.
func syncRename(tmp, dest string) error {
	f, err := os.Open(tmp)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(dest))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// --- tracestreamer's store ---

type storeWriter struct{ db *store.DB }

func (w *storeWriter) Insert(b *rows.Batch) error { return w.db.Insert(b) }
func (w *storeWriter) EndTx() error               { return w.db.Exec("COMMIT") }
func (w *storeWriter) Close()                     { w.db.Abort() }
func (w *storeWriter) Commit() error              { return w.db.Commit() }

// --- database/sql with modernc.org/sqlite's driver ---

type sqlWriter struct {
	tmp, dest string
	oneRow    bool // every row through the one-row statement
	db        *sql.DB
	conn      *sql.Conn
	tx        *sql.Tx
	ins       map[*schema.Table]*stmts[*sql.Stmt]
	args      []any
}

func openSQL(dest string, oneRow bool) (*sqlWriter, error) {
	tmp := tmpName(dest)
	os.Remove(tmp)
	w := &sqlWriter{tmp: tmp, dest: dest, oneRow: oneRow, ins: map[*schema.Table]*stmts[*sql.Stmt]{}}
	err := w.open()
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func (w *sqlWriter) open() error {
	ctx := context.Background()
	var err error
	if w.db, err = sql.Open("sqlite", w.tmp); err != nil {
		return err
	}
	w.db.SetMaxOpenConns(1)
	// The pragmas hold for one connection: keep it for the whole run.
	if w.conn, err = w.db.Conn(ctx); err != nil {
		return err
	}
	for _, p := range Pragmas {
		if _, err := w.conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if w.tx, err = w.conn.BeginTx(ctx, nil); err != nil {
		return err
	}
	for _, s := range Tables.DDL() {
		if _, err := w.tx.Exec(s); err != nil {
			return fmt.Errorf("%.60s: %w", s, err)
		}
	}
	return nil
}

func (w *sqlWriter) inserter(t *schema.Table) (*stmts[*sql.Stmt], error) {
	if in := w.ins[t]; in != nil {
		return in, nil
	}
	in, err := prepareStmts(t, w.tx.Prepare)
	if err != nil {
		return nil, err
	}
	if w.oneRow {
		in.per = 1
	}
	w.ins[t] = in
	if n := in.per * len(t.Columns); len(w.args) < n {
		w.args = make([]any, n)
	}
	return in, nil
}

func (w *sqlWriter) Insert(b *rows.Batch) error {
	in, err := w.inserter(b.Table)
	if err != nil {
		return err
	}
	return in.insert(b, func(s *sql.Stmt, r, k int) error {
		args := w.args[:k*len(b.Table.Columns)]
		eachValue(b, r, k, func(p int, v int64) { args[p] = v }, func(p int, v string) { args[p] = v })
		_, err := s.Exec(args...)
		return err
	})
}

func (w *sqlWriter) EndTx() error {
	err := w.tx.Commit()
	w.tx = nil
	return err
}

func (w *sqlWriter) close() {
	for _, in := range w.ins {
		in.many.Close()
		in.one.Close()
	}
	w.ins = nil
	if w.tx != nil {
		w.tx.Rollback()
	}
	if w.conn != nil {
		w.conn.Close()
	}
	if w.db != nil {
		w.db.Close()
	}
}

func (w *sqlWriter) Close() {
	w.close()
	os.Remove(w.tmp)
}

func (w *sqlWriter) Commit() error {
	if err := w.EndTx(); err != nil {
		w.Close()
		return err
	}
	w.close()
	return syncRename(w.tmp, w.dest)
}

// --- zombiezen.com/go/sqlite ---

type zombieWriter struct {
	tmp, dest string
	skip      bool // skip binding the INT value a parameter already holds
	c         *zs.Conn
	ins       map[*schema.Table]*stmts[*zombieStmt]
}

// zombieStmt is a statement and, for zombiezen-skip, the INT value bound to
// each parameter (as store.stmt keeps it; bindings survive Reset).
type zombieStmt struct {
	*zs.Stmt
	skip  bool
	isInt []bool
	val   []int64
}

func (s *zombieStmt) bindInt(p int, v int64) {
	if s.skip {
		if s.isInt[p-1] && s.val[p-1] == v {
			return
		}
		s.isInt[p-1], s.val[p-1] = true, v
	}
	s.BindInt64(p, v)
}

func (s *zombieStmt) bindText(p int, v string) {
	if s.skip {
		s.isInt[p-1] = false
	}
	s.BindText(p, v)
}

func (s *zombieStmt) run() error {
	if _, err := s.Step(); err != nil {
		return err
	}
	return s.Reset()
}

func openZombie(dest string, skip bool) (*zombieWriter, error) {
	tmp := tmpName(dest)
	os.Remove(tmp)
	// No OpenWAL (journal_mode=OFF follows); zombiezen adds OpenNoMutex.
	c, err := zs.OpenConn(tmp, zs.OpenReadWrite|zs.OpenCreate)
	if err != nil {
		return nil, err
	}
	w := &zombieWriter{tmp: tmp, dest: dest, skip: skip, c: c, ins: map[*schema.Table]*stmts[*zombieStmt]{}}
	stmts := append(append(append([]string{}, Pragmas...), "BEGIN"), Tables.DDL()...)
	for _, q := range stmts {
		if err := w.exec(q); err != nil {
			w.Close()
			return nil, fmt.Errorf("%.60s: %w", q, err)
		}
	}
	return w, nil
}

func (w *zombieWriter) exec(q string) error {
	s, _, err := w.c.PrepareTransient(q)
	if err != nil {
		return err
	}
	defer s.Finalize()
	for {
		more, err := s.Step()
		if err != nil || !more {
			return err
		}
	}
}

func (w *zombieWriter) prepare(q string) (*zombieStmt, error) {
	s, err := w.c.Prepare(q)
	if err != nil {
		return nil, err
	}
	n := s.BindParamCount()
	return &zombieStmt{Stmt: s, skip: w.skip, isInt: make([]bool, n), val: make([]int64, n)}, nil
}

func (w *zombieWriter) inserter(t *schema.Table) (*stmts[*zombieStmt], error) {
	if in := w.ins[t]; in != nil {
		return in, nil
	}
	in, err := prepareStmts(t, w.prepare)
	if err != nil {
		return nil, err
	}
	w.ins[t] = in
	return in, nil
}

func (w *zombieWriter) Insert(b *rows.Batch) error {
	in, err := w.inserter(b.Table)
	if err != nil {
		return err
	}
	return in.insert(b, func(s *zombieStmt, r, k int) error {
		eachValue(b, r, k, func(p int, v int64) { s.bindInt(p+1, v) }, func(p int, v string) { s.bindText(p+1, v) })
		return s.run()
	})
}

func (w *zombieWriter) EndTx() error { return w.exec("COMMIT") }

func (w *zombieWriter) close() {
	if w.c != nil {
		w.c.Close() // finalizes the prepared statements
		w.c = nil
	}
}

func (w *zombieWriter) Close() {
	w.close()
	os.Remove(w.tmp)
}

func (w *zombieWriter) Commit() error {
	if err := w.EndTx(); err != nil {
		w.Close()
		return err
	}
	w.close()
	return syncRename(w.tmp, w.dest)
}
