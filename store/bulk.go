package store

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"tracestreamer/internal/sqlitefile"
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// defaultPageSize is the output's page size unless Start is given another:
// the largest, for the fewest pages and interior levels on tables of millions
// of rows.
const defaultPageSize = 65536

// bulkable reports whether t's rows can be written as records without SQLite:
// every value is stored as given, which is what SQLite does for them too
// (sqlitefile.Record applies the numeric affinity of INT and REAL columns).
// An IntText column needs SQLite's text-to-integer conversion.
func bulkable(t *schema.Table) bool {
	for _, c := range t.Columns {
		if c.Type == schema.IntText {
			return false
		}
	}
	return true
}

// tree returns the b-tree being built for t's rows, or nil if t's rows go
// through SQLite: its values need SQLite's conversions, it already holds rows
// in the file (written before SQL had to read the tables, see settle), or the
// DB was made without bulk writing.
func (d *DB) tree(t *schema.Table) *sqlitefile.Tree {
	if tr := d.trees[t]; tr != nil {
		return tr
	}
	if d.bySQL[t] {
		return nil
	}
	if d.sqlOnly || !bulkable(t) {
		d.bySQL[t] = true
		return nil
	}
	tr := sqlitefile.NewTree(d.pageSize, d.pageFile)
	d.trees[t] = tr
	return tr
}

// pageFile returns the file the trees write their pages into, made beside the
// output when the first page leaves memory. The pages SQLite has written by
// then and room for a few more are left at its start (sqlitefile.Pages);
// only if SQLite's pages outgrow that room are the trees' pages copied after
// them instead. What is left of the room takes Splice's own pages or becomes
// free pages. After a settle, SQLite's file holds the trees placed then, too
// many pages to copy for the few that tables first written later make: no
// room is left, and their pages are copied after SQLite's. It asks SQLite,
// so only the DB's goroutine makes it: an Async's lanes start once it is
// made (appendable).
func (d *DB) pageFile() (*sqlitefile.Pages, error) {
	if d.pages != nil {
		return d.pages, nil
	}
	gap := uint32(0)
	if !d.settled {
		n, err := (&Reader{c: d.c}).QueryInt("PRAGMA page_count")
		if err != nil {
			return nil, err
		}
		gap = uint32(n + int64(gapBytes/d.pageSize))
	}
	f, err := scratchBeside(d.dest)
	if err != nil {
		return nil, err
	}
	d.pages = sqlitefile.NewPages(f, d.pageSize, gap)
	d.wb = newWriteBehind(f, d.writeBehindStep)
	return d.pages, nil
}

// idle tells the DB that no batch is waiting: the pages written since the
// last time are handed to the disk, if there are enough (writeBehind).
func (d *DB) idle() {
	if d.pages != nil {
		d.wb.kick(d.pages.Extent())
	}
}

// stopWriteBehind waits for the write-behind requests, before the page file
// is closed.
func (d *DB) stopWriteBehind() {
	d.writeBehinds += d.wb.stop()
	d.wb = nil
}

// gapBytes is the room for SQLite's pages beyond those it has written when the
// first tree page is (8 pages of 64 KiB, more of a smaller page size): what
// it writes after that is the rows of tables that need its conversions
// (IntText columns) and of a few small ones (meta, stat, files). Heap
// snapshots and CPU profiles add 0 to 1 page of 64 KiB.
const gapBytes = 8 * 65536

// encodeRow makes the record of row k of b. nulls, reals and tnulls are the
// batch's lists from row k on; the positions of row k are taken off them.
func encodeRow(rec *sqlitefile.Record, b *rows.Batch, k int, nulls, reals, tnulls *[]int32) []byte {
	t := b.Table
	ni, nt := t.NumInt(), t.NumText()
	// A row of integers only (no NULL or REAL of its own; the lists name
	// later rows' too) takes the one-pass encoder.
	end := int32((k + 1) * ni)
	if nt == 0 && (len(*nulls) == 0 || (*nulls)[0] >= end) && (len(*reals) == 0 || (*reals)[0] >= end) {
		return rec.Ints(b.Ints[k*ni : (k+1)*ni])
	}
	rec.Reset()
	visitRow(rec, b, k, nulls, reals, tnulls)
	return rec.Bytes()
}

// rowValues receives the values of a row in column order (visitRow):
// sqlitefile.Record encodes them, binder binds them to a statement.
type rowValues interface {
	Null()
	Int(v int64)
	Real(f float64)
	Text(s string)
}

// visitRow passes the values of row k of b to v. nulls, reals and tnulls are
// the batch's lists from row k on; the positions of row k are taken off them.
func visitRow(v rowValues, b *rows.Batch, k int, nulls, reals, tnulls *[]int32) {
	t := b.Table
	ni, nt := t.NumInt(), t.NumText()
	for c, col := range t.Columns {
		slot := t.Slot(c)
		switch {
		case col.Type.IsText():
			pos := k*nt + slot
			if len(*tnulls) > 0 && int((*tnulls)[0]) == pos {
				*tnulls = (*tnulls)[1:]
				v.Null()
				break
			}
			v.Text(b.Texts[pos])
		case len(*nulls) > 0 && int((*nulls)[0]) == k*ni+slot:
			*nulls = (*nulls)[1:]
			v.Null()
		case len(*reals) > 0 && int((*reals)[0]) == k*ni+slot:
			*reals = (*reals)[1:]
			v.Real(math.Float64frombits(uint64(b.Ints[k*ni+slot])))
		default:
			v.Int(b.Ints[k*ni+slot])
		}
	}
}

// insertTree adds the rows of b to t's tree. Rows without rowids of their own
// take the next ones. A row whose explicit rowid is not above the table's
// largest (a Trace Event slice that closed late) cannot be appended: it waits
// as a record in a file of late rows, which joins the tree when Commit (or
// UpdateTexts) builds it again (rebuild), or which SQLite inserts if the trees
// are placed before (settle).
func (d *DB) insertTree(tr *sqlitefile.Tree, b *rows.Batch) error {
	t := b.Table
	maxRow, err := appendRows(tr, &d.rec, b, d.maxRow[t], func(id int64, rec []byte) error {
		return d.addLate(t, id, rec)
	})
	if err != nil {
		return err
	}
	d.book(t, b.N, maxRow)
	return nil
}

// book counts n rows added to t, whose largest rowid is now maxRow.
func (d *DB) book(t *schema.Table, n int, maxRow int64) {
	d.counts[t] += int64(n)
	d.maxRow[t] = maxRow
}

// appendable returns the tree of b's table and the largest rowid after b's
// rows, and true, where they can be appended to the tree apart from the DB
// (appendRows, on a lane of Async's): b has rows, its table is built as a
// b-tree, its rows all follow the table's so far (no late rows), and the
// page file is made already. The gap it leaves for SQLite's pages is
// measured when a tree first needs it (pageFile), as without lanes.
func (d *DB) appendable(b *rows.Batch) (*sqlitefile.Tree, int64, bool) {
	if b.N == 0 || d.pages == nil {
		return nil, 0, false
	}
	tr := d.tree(b.Table)
	if tr == nil {
		return nil, 0, false
	}
	maxRow, ok := inOrder(b, d.maxRow[b.Table])
	return tr, maxRow, ok
}

// appendRows adds the rows of b to tr, whose largest rowid is maxRow,
// encoding each with rec, and returns the largest rowid then. Rows without
// rowids of their own take the next ones; a row whose rowid is not above
// the largest goes to late (nil: a tree's error). It touches nothing but its
// arguments: a table's lane calls it on its own goroutine (Async).
func appendRows(tr *sqlitefile.Tree, rec *sqlitefile.Record, b *rows.Batch, maxRow int64, late func(id int64, rec []byte) error) (int64, error) {
	nulls, reals, tnulls := b.Nulls, b.Reals, b.TextNulls
	for k := range b.N {
		id := rowID(b, k, maxRow)
		r := encodeRow(rec, b, k, &nulls, &reals, &tnulls)
		if id <= maxRow && late != nil {
			if err := late(id, r); err != nil {
				return 0, fmt.Errorf("insert into %s: %w", b.Table.Name, err)
			}
			continue
		}
		if err := tr.Add(id, r); err != nil {
			return 0, fmt.Errorf("insert into %s: %w", b.Table.Name, err)
		}
		maxRow = id
	}
	return maxRow, nil
}

// rowID returns the rowid of row k of b, which follows rowid maxRow.
func rowID(b *rows.Batch, k int, maxRow int64) int64 {
	if len(b.RowIDs) > 0 {
		return b.RowIDs[k]
	}
	return maxRow + 1
}

// inOrder reports whether the rows of b all come after rowid maxRow, in
// order (appendRows needs no late rows for them), and returns the largest
// rowid then.
func inOrder(b *rows.Batch, maxRow int64) (int64, bool) {
	if len(b.RowIDs) == 0 {
		return maxRow + int64(b.N), true
	}
	for _, id := range b.RowIDs[:b.N] {
		if id <= maxRow {
			return 0, false
		}
		maxRow = id
	}
	return maxRow, true
}

// addLate keeps a row of t that came after rows with higher rowids.
func (d *DB) addLate(t *schema.Table, id int64, rec []byte) error {
	l := d.late[t]
	if l == nil {
		f, err := scratchBeside(d.dest)
		if err != nil {
			return err
		}
		l = &lateRows{f: f, w: bufio.NewWriterSize(f, 64<<10)}
		d.late[t] = l
	}
	return l.put(id, rec)
}

// rootPages returns the root page of each table of the database.
func (d *DB) rootPages() (map[string]uint32, error) {
	q, err := (&Reader{c: d.c}).Query("SELECT name, rootpage FROM sqlite_schema WHERE type = 'table'")
	if err != nil {
		return nil, err
	}
	defer q.Close()
	roots := map[string]uint32{}
	for q.Next() {
		roots[string(q.Bytes(0))] = uint32(q.Int(1))
	}
	return roots, q.Err()
}

// closeAndSplice commits and closes the database, then places the trees'
// tables into the file.
func (d *DB) closeAndSplice() error {
	var tables []sqlitefile.Table
	var roots map[string]uint32
	if len(d.trees) > 0 {
		var err error
		if roots, err = d.rootPages(); err != nil {
			return err
		}
	}
	d.finalize()
	if err := d.c.exec("COMMIT"); err != nil {
		return err
	}
	d.c.close()
	for t, tr := range d.trees {
		if tr.Rows() == 0 {
			continue
		}
		root, ok := roots[t.Name]
		if !ok {
			return fmt.Errorf("table %s is not in the database", t.Name)
		}
		tables = append(tables, sqlitefile.Table{Root: root, Tree: tr})
		d.bySQL[t] = true
	}
	d.stopWriteBehind() // Splice closes the page file
	var err error
	if len(tables) > 0 || d.pages != nil {
		err = sqlitefile.Splice(d.tmp, d.pages, tables)
	}
	d.closeTrees()
	return err
}

// dropLate removes the files of late rows.
func (d *DB) dropLate() {
	for t, l := range d.late {
		l.f.Close()
		os.Remove(l.f.Name())
		delete(d.late, t)
	}
}

// closeTrees drops the trees and removes their page file. After Splice, which
// has closed it, the close fails and changes nothing; so does the removal
// when Splice renamed the file over the database.
func (d *DB) closeTrees() {
	clear(d.trees)
	d.stopWriteBehind()
	if d.pages != nil {
		d.pages.Close()
		os.Remove(d.pages.Name())
		d.pages = nil
	}
}

// settle places the rows built so far into the file and reopens it, then
// inserts the late rows through SQLite: for SQL that reads or changes tables
// (Exec, Query, Prepare) and a rollback of a table with late rows. Tables
// that then hold rows are written through SQLite from then on.
func (d *DB) settle() error {
	if len(d.trees) == 0 {
		return nil
	}
	if err := d.closeAndSplice(); err != nil {
		return err
	}
	d.settled = true
	c, err := openConn(d.tmp)
	if err != nil {
		return err
	}
	d.c = c
	d.text.tls = c.tls
	if err := d.c.exec(d.pragmas() + "; BEGIN"); err != nil {
		return err
	}
	// Each table's file leaves the map as it is taken, so that Abort still
	// removes the files not taken yet if one fails.
	for t, l := range d.late {
		delete(d.late, t)
		if err := d.insertLate(t, l); err != nil {
			return fmt.Errorf("insert into %s: %w", t.Name, err)
		}
	}
	return nil
}

// insertLate inserts a table's late rows through SQLite and removes their file.
func (d *DB) insertLate(t *schema.Table, l *lateRows) error {
	defer os.Remove(l.f.Name())
	defer l.f.Close()
	d.bySQL[t] = true
	if err := l.w.Flush(); err != nil {
		return err
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(l.f, 1<<20)
	b := &rows.Batch{}
	b.Reset(t)
	var rec []byte
	var vals []sqlitefile.Value
	for i := int64(0); i < l.count; i++ {
		bad := func(err error) error {
			return fmt.Errorf("%s's rows out of rowid order: record %d of %d: %w", t.Name, i, l.count, err)
		}
		id, n, err := readLateHead(r)
		if err != nil {
			return bad(err)
		}
		rec = slices.Grow(rec[:0], n)[:n]
		if _, err := io.ReadFull(r, rec); err != nil {
			return bad(err)
		}
		if vals, err = decodeRecord(b, rec, vals[:0]); err != nil {
			return bad(err)
		}
		b.RowIDs = append(b.RowIDs, id)
		if b.N == rows.DefaultBatchRows || i == l.count-1 {
			// Not counted again: they were when they came.
			if err := d.insertSQL(b); err != nil {
				return err
			}
			b.Reset(t)
		}
	}
	return nil
}

// lateRows holds the rows of one table that came after rows with higher
// rowids, each as its rowid (varint), its record's length (uvarint) and the
// record.
type lateRows struct {
	f     *os.File
	w     *bufio.Writer
	count int64
}

// readLateHead reads the rowid and record length that put writes before a
// late row's record.
func readLateHead(r io.ByteReader) (id int64, n int, err error) {
	if id, err = binary.ReadVarint(r); err != nil {
		return 0, 0, fmt.Errorf("rowid: %w", err)
	}
	size, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, 0, fmt.Errorf("size: %w", err)
	}
	return id, int(size), nil
}

func (l *lateRows) put(id int64, rec []byte) error {
	var n [2 * binary.MaxVarintLen64]byte
	k := binary.PutVarint(n[:], id)
	k += binary.PutUvarint(n[k:], uint64(len(rec)))
	if _, err := l.w.Write(n[:k]); err != nil {
		return err
	}
	_, err := l.w.Write(rec)
	l.count++
	return err
}

// decodeRecord appends the row in rec, which encodeRow made, to b; vals is
// room for its values, returned for the next call.
func decodeRecord(b *rows.Batch, rec []byte, vals []sqlitefile.Value) ([]sqlitefile.Value, error) {
	vals, err := sqlitefile.Values(vals, rec)
	if err != nil {
		return vals, err
	}
	t := b.Table
	if len(vals) != len(t.Columns) {
		return vals, fmt.Errorf("record of %d values for %d columns", len(vals), len(t.Columns))
	}
	for c, col := range t.Columns {
		v := vals[c]
		if col.Type.IsText() {
			if v.Kind == sqlitefile.Null {
				b.TextNulls = append(b.TextNulls, int32(len(b.Texts)))
			}
			b.Texts = append(b.Texts, v.Text)
			continue
		}
		switch v.Kind {
		case sqlitefile.Null:
			b.Nulls = append(b.Nulls, int32(len(b.Ints)))
		case sqlitefile.Float:
			b.Reals = append(b.Reals, int32(len(b.Ints)))
			v.Int = int64(math.Float64bits(v.Real))
		}
		b.Ints = append(b.Ints, v.Int)
	}
	b.N++
	return vals, nil
}

// ScanInts calls fn with the values of the columns cols (indexes into
// t.Columns) of each row of t written so far, in rowid order, passing over
// the rows where any of them is not an integer (a NULL), and reports true,
// where t's rows are built as a b-tree (the rows that came out of rowid
// order included); false, calling nothing, where SQLite holds them: Query
// reads them then. vals is valid during the call only.
func (d *DB) ScanInts(t *schema.Table, cols []int, fn func(vals []int64) error) (bool, error) {
	if d.sqlOnly || d.bySQL[t] || !bulkable(t) {
		return false, nil
	}
	vals := make([]int64, len(cols))
	var rec []sqlitefile.Value
	err := d.rowsOf(t, false, func(_ int64, raw []byte) error {
		var err error
		if rec, err = sqlitefile.Values(rec[:0], raw); err != nil {
			return err
		}
		for i, c := range cols {
			if c >= len(rec) || rec[c].Kind != sqlitefile.Integer {
				return nil
			}
			vals[i] = rec[c].Int
		}
		return fn(vals)
	})
	if err != nil {
		return true, fmt.Errorf("read %s: %w", t.Name, err)
	}
	return true, nil
}

// UpdateTexts sets the columns cols (indexes into t.Columns) of the rows of
// t whose rowids are given (in increasing order) to texts: set fills texts
// for rowids[k]. A rowid that no row has is passed over, as by SQL's UPDATE …
// WHERE rowid = …. It reports true where t's rows are built as a b-tree: the
// tree is built again, with the rows that came out of rowid order in their
// place, so that SQLite never has to open the file before Commit. It
// reports false, changing nothing, where SQLite holds t's rows: SQL (Prepare)
// changes them then.
//
// Once ctx is done the rebuild stops within rebuildCheck rows and returns
// ctx's error; the tree is lost then and the DB must be aborted (rebuild).
func (d *DB) UpdateTexts(ctx context.Context, t *schema.Table, cols []int, rowids []int64, set func(k int, texts []string)) (bool, error) {
	if d.sqlOnly || d.bySQL[t] || !bulkable(t) {
		return false, nil
	}
	texts := make([]string, len(cols))
	var vals []sqlitefile.Value
	var rec sqlitefile.Record
	k := 0
	err := d.rebuild(t, ctx.Err, func(id int64, raw []byte) ([]byte, error) {
		for k < len(rowids) && rowids[k] < id {
			k++
		}
		if k == len(rowids) || rowids[k] != id {
			return raw, nil
		}
		var err error
		if vals, err = sqlitefile.Values(vals[:0], raw); err != nil {
			return nil, err
		}
		if len(vals) != len(t.Columns) {
			return nil, fmt.Errorf("row %d: %d values for %d columns", id, len(vals), len(t.Columns))
		}
		set(k, texts)
		k++
		for i, c := range cols {
			vals[c] = sqlitefile.Value{Kind: sqlitefile.Text, Text: texts[i]}
		}
		rec.Reset()
		for _, v := range vals {
			switch v.Kind {
			case sqlitefile.Null:
				rec.Null()
			case sqlitefile.Integer:
				rec.Int(v.Int)
			case sqlitefile.Float:
				rec.Real(v.Real)
			default:
				rec.Text(v.Text)
			}
		}
		return rec.Bytes(), nil
	})
	if err != nil {
		return true, fmt.Errorf("update %s: %w", t.Name, err)
	}
	return true, nil
}

// rebuildCheck is how many rows a rebuild reads between two looks at its
// stop.
const rebuildCheck = 4096

// rebuild builds t's tree again from its rows and the rows that came out of
// rowid order (which are gone afterwards), in rowid order, each as edit
// returns its record (nil edit: unchanged). The old tree's pages go back
// to the page file as they are read, and the new tree takes them. Every
// rebuildCheck rows it calls stop (nil: never) and gives up with its error,
// if any: a table of millions of rows is not read to its end after a run
// was interrupted. On error (stop's, edit's, or reading) t's rows are lost
// and the page file cannot be placed any more (sqlitefile.Tree.Take): the
// DB must be aborted (Abort).
func (d *DB) rebuild(t *schema.Table, stop func() error, edit func(rowid int64, rec []byte) ([]byte, error)) error {
	nt := sqlitefile.NewTree(d.pageSize, d.pageFile)
	n := 0
	err := d.rowsOf(t, true, func(id int64, rec []byte) error {
		if stop != nil && n%rebuildCheck == 0 {
			if err := stop(); err != nil {
				return err
			}
		}
		n++
		if edit != nil {
			var err error
			if rec, err = edit(id, rec); err != nil {
				return err
			}
		}
		return nt.Add(id, rec)
	})
	if err != nil {
		return err
	}
	d.trees[t] = nt
	if l := d.late[t]; l != nil {
		delete(d.late, t)
		l.f.Close()
		os.Remove(l.f.Name())
	}
	return nil
}

// rowsOf calls fn with each row of t's tree and each of its late rows, in
// rowid order; with take, the tree's pages go back to the page file as they
// are read (sqlitefile.Tree.Take). rec is valid during the call only.
func (d *DB) rowsOf(t *schema.Table, take bool, fn func(rowid int64, rec []byte) error) error {
	var late []lateRow
	if l := d.late[t]; l != nil {
		var err error
		if late, err = l.index(); err != nil {
			return fmt.Errorf("%s's rows out of rowid order: %w", t.Name, err)
		}
	}
	var buf []byte
	k := 0
	// lateBefore passes the late rows before rowid id on to fn (all of them
	// with all).
	lateBefore := func(id int64, all bool) error {
		for ; k < len(late) && (all || late[k].id < id); k++ {
			buf = slices.Grow(buf[:0], late[k].n)[:late[k].n]
			if _, err := d.late[t].f.ReadAt(buf, late[k].off); err != nil {
				return fmt.Errorf("%s's row %d out of rowid order (%d bytes at %d of its file): %w",
					t.Name, late[k].id, late[k].n, late[k].off, err)
			}
			if err := fn(late[k].id, buf); err != nil {
				return err
			}
		}
		return nil
	}
	each := func(id int64, rec []byte) error {
		if err := lateBefore(id, false); err != nil {
			return err
		}
		return fn(id, rec)
	}
	if tr := d.trees[t]; tr != nil {
		scan := tr.Scan
		if take {
			scan = tr.Take
		}
		if err := scan(each); err != nil {
			return err
		}
	}
	return lateBefore(0, true)
}

// lateRow is where a late row's record is in its table's file.
type lateRow struct {
	id, off int64
	n       int
}

// index returns where each late row is in the file, in rowid order (rows of
// the same rowid in the order they came).
func (l *lateRows) index() ([]lateRow, error) {
	if err := l.w.Flush(); err != nil {
		return nil, fmt.Errorf("writing them out: %w", err)
	}
	r := &offsetReader{r: bufio.NewReaderSize(io.NewSectionReader(l.f, 0, math.MaxInt64), 64<<10)}
	out := make([]lateRow, 0, l.count)
	for i := range l.count {
		at := r.off
		id, n, err := readLateHead(r)
		if err != nil {
			return nil, fmt.Errorf("record %d of %d (at %d): %w", i, l.count, at, err)
		}
		out = append(out, lateRow{id: id, off: r.off, n: n})
		if _, err := r.r.Discard(n); err != nil {
			return nil, fmt.Errorf("record %d of %d (at %d): %d bytes: %w", i, l.count, at, n, err)
		}
		r.off += int64(n)
	}
	slices.SortStableFunc(out, func(a, b lateRow) int { return cmp.Compare(a.id, b.id) })
	return out, nil
}

// offsetReader counts the bytes read through ReadByte.
type offsetReader struct {
	r   *bufio.Reader
	off int64
}

func (o *offsetReader) ReadByte() (byte, error) {
	c, err := o.r.ReadByte()
	if err == nil {
		o.off++
	}
	return c, err
}
