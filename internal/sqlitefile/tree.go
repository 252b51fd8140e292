package sqlitefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Pages is the file the trees of one database write their pages into, each
// page at the offset of the number it will have in the database: numbers 1
// to gap are left for the pages SQLite writes (schema, tables written through
// SQL), and Splice copies those into that gap, so that this file becomes the
// database and the trees' pages are written once. When SQLite's pages
// outgrow the gap, Splice copies the trees' pages after them instead.
//
// The trees of one Pages may add rows on goroutines of their own: it hands
// out numbers, takes them back and writes pages safely for concurrent use.
// A tree itself is not safe for concurrent use, and reading a tree back
// (Scan, Take, Truncate) and Splice need no tree adding rows meanwhile.
type Pages struct {
	f    *os.File
	size int
	gap  uint32 // page numbers 1..gap are SQLite's

	mu sync.Mutex // guards numbers
	numbers
}

// numbers hands out page numbers: those given back first (the last first),
// then the one after the highest so far, never the lock-byte page.
type numbers struct {
	free    []uint32
	last    uint32 // the highest number handed out
	pending uint32 // the lock-byte page
}

func (n *numbers) alloc() uint32 {
	if k := len(n.free); k > 0 {
		no := n.free[k-1]
		n.free = n.free[:k-1]
		return no
	}
	n.last++
	if n.last == n.pending {
		n.last++
	}
	return n.last
}

// NewPages makes f, an empty file, the page file of trees of the given page
// size, leaving the first gap pages for SQLite's. Splice takes it over.
func NewPages(f *os.File, pageSize int, gap uint32) *Pages {
	return newPages(f, pageSize, gap, pendingByte)
}

func newPages(f *os.File, pageSize int, gap uint32, lockByte int64) *Pages {
	return &Pages{f: f, size: pageSize, gap: gap,
		numbers: numbers{last: gap, pending: uint32(lockByte/int64(pageSize)) + 1}}
}

// Name returns the file's name.
func (p *Pages) Name() string { return p.f.Name() }

// Close closes the file; it does not remove it.
func (p *Pages) Close() error { return p.f.Close() }

// Extent returns the bytes from the file's start to the end of the highest
// page handed out so far: all the file holds of the pages written so far,
// and room for those handed to trees that may still be writing them.
func (p *Pages) Extent() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int64(p.last) * int64(p.size)
}

// alloc hands out a page number (numbers.alloc).
func (p *Pages) alloc() uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.numbers.alloc()
}

// giveBack takes back page no, to hand it out again.
func (p *Pages) giveBack(no uint32) {
	p.mu.Lock()
	p.free = append(p.free, no)
	p.mu.Unlock()
}

func (p *Pages) offset(no uint32) int64 { return int64(no-1) * int64(p.size) }

// Tree builds a table b-tree's leaf pages from records given in rowid order.
// Full leaves and overflow pages go to the Pages file, at the numbers it hands
// out; the leaf being filled stays in memory. Where a page number is written
// into a page (a cell's first overflow page, the next page of a chain) is
// kept, for Splice to change it if it has to move the pages.
type Tree struct {
	size     int // page size; no bytes are reserved, so also the usable size
	newPages func() (*Pages, error)
	pf       *Pages

	page  []byte // the leaf being filled
	over  []byte // an overflow page being written
	cells int
	top   int   // start of its cell content area
	first int64 // number of rows before it

	pages []pageInfo // the pages written, in order
	fixes []fix      // page numbers written into them
	open  []fix      // ... and into the leaf being filled (page 0)

	rows int64 // rows added
	last int64 // rowid of the last row
}

// pageInfo is one page written: a leaf (rows is the number of rows up to and
// including it, last the rowid of its last cell) or an overflow page (rows is
// the number of the row it belongs to, counting from 1).
type pageInfo struct {
	no   uint32
	leaf bool
	rows int64
	last int64
}

// fix is the number of page to, written at off in page (0: the leaf being
// filled); row is the row it belongs to.
type fix struct {
	page uint32
	off  int32
	to   uint32
	row  int64
}

const (
	leafHeader     = 8
	interiorHeader = 12
	flagLeaf       = 0x0d
	flagInterior   = 0x05
)

// NewTree starts an empty tree of the given page size (a power of two from 512
// to 65536). pages returns the page file when the first page must leave
// memory (the same for every tree of a database).
func NewTree(pageSize int, pages func() (*Pages, error)) *Tree {
	t := &Tree{size: pageSize, newPages: pages, page: make([]byte, pageSize)}
	t.reset()
	return t
}

func (t *Tree) reset() {
	t.cells = 0
	t.top = t.size
	clear(t.page[:leafHeader])
}

// Rows returns the number of rows added.
func (t *Tree) Rows() int64 { return t.rows }

// maxLocal returns how many bytes of a payload of n bytes a table leaf keeps
// in its cell; the rest goes to overflow pages.
func (t *Tree) maxLocal(n int) int {
	u := t.size
	x := u - 35
	if n <= x {
		return n
	}
	m := (u-12)*32/255 - 23
	k := m + (n-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// Add appends a row. Rowids must increase.
func (t *Tree) Add(rowid int64, rec []byte) error {
	if t.rows > 0 && rowid <= t.last {
		return fmt.Errorf("rowid %d after %d: rows must come in rowid order", rowid, t.last)
	}
	local := t.maxLocal(len(rec))
	nlen, nid := varintLen(uint64(len(rec))), varintLen(uint64(rowid))
	cell := nlen + nid + local
	if local < len(rec) {
		cell += 4
	}
	if leafHeader+2*(t.cells+1)+t.size-t.top+cell > t.size {
		if err := t.flush(); err != nil {
			return err
		}
	}
	t.rows++
	t.last = rowid
	t.top -= cell
	p := t.top
	putVarint(t.page[p:], uint64(len(rec)), nlen)
	p += nlen
	putVarint(t.page[p:], uint64(rowid), nid)
	p += nid
	p += copy(t.page[p:], rec[:local])
	if local < len(rec) {
		first, err := t.overflow(rec[local:])
		if err != nil {
			return err
		}
		binary.BigEndian.PutUint32(t.page[p:], first)
		t.open = append(t.open, fix{off: int32(p), to: first, row: t.rows})
	}
	binary.BigEndian.PutUint16(t.page[leafHeader+2*t.cells:], uint16(t.top))
	t.cells++
	return nil
}

// overflow writes rest to a chain of overflow pages and returns the first.
func (t *Tree) overflow(rest []byte) (uint32, error) {
	first, err := t.alloc()
	if err != nil {
		return 0, err
	}
	if t.over == nil {
		t.over = make([]byte, t.size)
	}
	buf := t.over
	for no := first; len(rest) > 0; {
		clear(buf)
		n := copy(buf[4:], rest)
		rest = rest[n:]
		next := uint32(0)
		if len(rest) > 0 {
			next = t.pf.alloc()
			binary.BigEndian.PutUint32(buf, next)
			t.fixes = append(t.fixes, fix{page: no, to: next, row: t.rows})
		}
		if err := t.write(no, buf); err != nil {
			return 0, err
		}
		t.pages = append(t.pages, pageInfo{no: no, rows: t.rows})
		no = next
	}
	return first, nil
}

// alloc hands out a page number, making the page file if there is none yet.
func (t *Tree) alloc() (uint32, error) {
	if t.pf == nil {
		pf, err := t.newPages()
		if err != nil {
			return 0, fmt.Errorf("page file: %w", err)
		}
		if pf.size != t.size {
			return 0, fmt.Errorf("page file of %d-byte pages for a tree of %d-byte pages", pf.size, t.size)
		}
		t.pf = pf
	}
	return t.pf.alloc(), nil
}

// write writes page no.
func (t *Tree) write(no uint32, p []byte) error {
	if _, err := t.pf.f.WriteAt(p, t.pf.offset(no)); err != nil {
		return fmt.Errorf("page file: %w", err)
	}
	return nil
}

// flush writes the leaf being filled to the page file.
func (t *Tree) flush() error {
	t.seal()
	no, err := t.alloc()
	if err != nil {
		return err
	}
	if err := t.write(no, t.page); err != nil {
		return err
	}
	for _, f := range t.open {
		f.page = no
		t.fixes = append(t.fixes, f)
	}
	t.open = t.open[:0]
	t.pages = append(t.pages, pageInfo{no: no, leaf: true, rows: t.rows, last: t.last})
	t.first = t.rows
	t.reset()
	return nil
}

// seal writes the leaf header of the page being filled.
func (t *Tree) seal() {
	t.page[0] = flagLeaf
	binary.BigEndian.PutUint16(t.page[3:], uint16(t.cells))
	binary.BigEndian.PutUint16(t.page[5:], uint16(t.top)) // 65536 is written as 0
}

// Truncate keeps the first n rows and drops the others. The pages that held
// only dropped rows go back to the page file, which hands them out again.
// When the cut is in a leaf already written, that leaf is read back and
// becomes the leaf being filled again; one not as it was written (its cell
// count, the last cell kept) is an error wrapping errCorrupt that names the
// page and the byte of it. An error leaves the tree as it was.
func (t *Tree) Truncate(n int64) error {
	if n >= t.rows {
		return nil
	}
	// The leaf the cut is in: the leaf being filled, or pages[i], read back
	// into t.over (a page of scratch) so that an error leaves t.page as it was.
	reopened, leaf, cells, first, prev := uint32(0), t.page, t.cells, t.first, -1
	if n < t.first {
		i := 0
		for !t.pages[i].leaf || t.pages[i].rows <= n {
			i++
		}
		reopened = t.pages[i].no
		if t.over == nil {
			t.over = make([]byte, t.size)
		}
		leaf = t.over
		first = 0
		for j := i - 1; j >= 0; j-- {
			if t.pages[j].leaf {
				first, prev = t.pages[j].rows, j
				break
			}
		}
		var err error
		if cells, err = t.readLeaf(reopened, leaf, t.pages[i].rows-first, false); err != nil {
			return err
		}
		if err := t.checkLast(reopened, leaf, int(n-first)-1, cells, t.pages[i].last, prev); err != nil {
			return err
		}
	}
	// The cut is in that leaf: its first k cells stay. Cells were placed
	// downwards in order, so the content area ends at the k-th cell.
	k := int(n - first)
	top, last := t.size, int64(0)
	if k > 0 {
		top = int(binary.BigEndian.Uint16(leaf[leafHeader+2*(k-1):]))
		last = t.cellRowID(leaf, top)
	} else if first > 0 {
		for j := len(t.pages) - 1; j >= 0; j-- {
			if t.pages[j].leaf && t.pages[j].rows <= n {
				last = t.pages[j].last
				break
			}
		}
	}
	if reopened != 0 {
		t.page, t.over = leaf, t.page
		t.first = first
		t.open = t.open[:0]
	}
	fixes := t.fixes[:0]
	for _, f := range t.fixes {
		switch {
		case f.row > n:
		case f.page == reopened:
			f.page = 0
			t.open = append(t.open, f)
		default:
			fixes = append(fixes, f)
		}
	}
	t.fixes = fixes
	open := t.open[:0]
	for _, f := range t.open {
		if f.row <= n {
			open = append(open, f)
		}
	}
	t.open = open
	// Leaves after the cut (and the one reopened) and overflow pages of
	// dropped rows.
	pages := t.pages[:0]
	for _, p := range t.pages {
		if p.rows <= n {
			pages = append(pages, p)
		} else {
			t.pf.giveBack(p.no)
		}
	}
	t.pages = pages
	t.cells, t.top, t.rows, t.last = k, top, n, last
	return nil
}

// checkLast checks cell i, the last kept, of leaf, page no read back by
// Truncate, which was written with cells cells, the last with rowid last,
// after the leaf t.pages[prev] (-1: none): its pointer, varints and payload
// lie in the cell content area, and its rowid is between the two leaves'.
func (t *Tree) checkLast(no uint32, leaf []byte, i, cells int, last int64, prev int) error {
	if i < 0 {
		return nil // none kept
	}
	off := int(binary.BigEndian.Uint16(leaf[leafHeader+2*i:]))
	if off >= len(leaf) || off < t.content(no, leaf, cells) {
		return t.badCell(no, leaf, i, cells)
	}
	size, k := readVarint(leaf[off:])
	if k == 0 {
		return t.badCell(no, leaf, i, cells)
	}
	id, j := readVarint(leaf[off+k:])
	if j == 0 {
		return t.badCell(no, leaf, i, cells)
	}
	local := t.maxLocal(int(size))
	end := off + k + j + local
	if local < int(size) {
		end += 4
	}
	if local < 0 || uint(end) > uint(len(leaf)) || local < int(size) && size > t.maxPayload() {
		return t.badCell(no, leaf, i, cells)
	}
	rowid := int64(id)
	switch {
	case rowid >= last: // (a cell before the leaf's last: the cut is in it)
		return corrupt(no, off, "cell %d: rowid %d, not before the leaf's last %d", i, rowid, last)
	case prev >= 0 && rowid <= t.pages[prev].last:
		return corrupt(no, off, "cell %d: rowid %d, not after the leaf before's last %d", i, rowid, t.pages[prev].last)
	}
	return nil
}

// cellRowID reads the rowid of the cell at off of leaf.
func (t *Tree) cellRowID(leaf []byte, off int) int64 {
	_, n := readVarint(leaf[off:])
	id, _ := readVarint(leaf[off+n:])
	return int64(id)
}

// errNotEmpty reports a root page that already holds rows.
var errNotEmpty = errors.New("root page is not an empty table leaf")

// Scan calls fn with each row added so far, in rowid order, reading the
// leaves written to the page file back. rec is valid during the call only.
func (t *Tree) Scan(fn func(rowid int64, rec []byte) error) error { return t.scan(false, fn) }

// Take is Scan that empties the tree as it reads it: each page goes back to
// the page file as soon as it has been read, for another tree of the same
// file to take (a tree built again with rows changed or added), and the tree
// holds no rows afterwards. fn may add rows to another tree of the page file.
//
// An error (fn's, or reading the page file) leaves the tree empty all the
// same, with the pages not yet read in neither a tree nor the page file's
// free pages, and the pages of a tree fn was filling still that tree's: the
// page file can then no longer be spliced into a valid database and must be
// given up.
func (t *Tree) Take(fn func(rowid int64, rec []byte) error) error {
	err := t.scan(true, fn)
	t.pages, t.fixes, t.open = nil, nil, nil
	t.rows, t.last, t.first = 0, 0, 0
	t.reset()
	return err
}

// scan reads the rows back; with give it hands each page read back to the
// page file (Take).
func (t *Tree) scan(give bool, fn func(int64, []byte) error) error {
	r := reading{give: give}
	var leaf []byte
	// The overflow pages of a leaf's rows are those written since the leaf
	// before (Add writes a row's chain before the leaf is full, Truncate
	// drops the pages of the rows it drops).
	pages, from := t.pages, 0
	var before int64 // rows in the leaves before
	for i, p := range pages {
		if !p.leaf {
			continue // read through the chain of the row it belongs to
		}
		if leaf == nil {
			leaf = make([]byte, t.size)
		}
		n, err := t.readLeaf(p.no, leaf, p.rows-before, give)
		if err != nil {
			return err
		}
		r.chain, from = pages[from:i], i+1
		before = p.rows
		if err := t.cellsOf(p.no, leaf, n, &r, fn); err != nil {
			return err
		}
		if err := r.chainsRead(p.no); err != nil {
			return err
		}
	}
	// The leaf being filled, which is only in memory (t.page). fn adds rows
	// to other trees, which have leaves of their own, so nothing changes it
	// during fn; with give it is copied all the same (one page a Take), so
	// that the rows handed out stay whole even if fn added to t itself.
	page := t.page
	if give {
		page = append([]byte(nil), t.page...)
	}
	r.chain = pages[from:]
	if err := t.cellsOf(0, page, t.cells, &r, fn); err != nil {
		return err
	}
	return r.chainsRead(0)
}

// reading is what scan keeps from leaf to leaf.
type reading struct {
	give      bool       // hand the pages read back (Take)
	over, rec []byte     // an overflow page, a row's payload read from its chain
	chain     []pageInfo // the overflow pages written for the leaf's rows not yet read, in order
}

// readLeaf reads written leaf no into buf and returns its cell count,
// which must be the rows written to it: a count made higher would read
// past the cells, a lower one drop rows without an error. With give the
// page goes back to the page file once read (Take).
func (t *Tree) readLeaf(no uint32, buf []byte, written int64, give bool) (int, error) {
	if _, err := t.pf.f.ReadAt(buf, t.pf.offset(no)); err != nil {
		return 0, fmt.Errorf("page file: page %d: %w", no, err)
	}
	if give {
		t.pf.giveBack(no)
	}
	cells := int(binary.BigEndian.Uint16(buf[3:]))
	if int64(cells) != written {
		return 0, corrupt(no, 3, "%d cells, %d written", cells, written)
	}
	return cells, nil
}

// chainsRead checks that the rows of leaf no (0: the leaf being filled)
// went through every overflow page written for them: one left means a row
// was lost.
func (r *reading) chainsRead(no uint32) error {
	if len(r.chain) > 0 {
		return corrupt(no, 0, "overflow page %d written for its rows is in none of their chains", r.chain[0].no)
	}
	return nil
}

// errCorrupt is what reading back a page the page file does not hold as it
// was written wraps.
var errCorrupt = errors.New("page file corrupt")

// corrupt reports a bad page read back: page no (0: the leaf being filled),
// at byte off of it.
func corrupt(no uint32, off int, format string, args ...any) error {
	page := "leaf being filled"
	if no != 0 {
		page = fmt.Sprintf("page %d", no)
	}
	return fmt.Errorf("%w: %s, byte %d: %s", errCorrupt, page, off, fmt.Sprintf(format, args...))
}

// badCell reports cell i of leaf, page no, which holds n cells, found bad by
// cellsOf or Truncate, finding what is wrong with it again (so that cellsOf's
// loop keeps no more than it needs): its pointer past the page or below the
// cell content area, its size or rowid varint running past the page, its
// payload running past the page or larger than the page file holds.
func (t *Tree) badCell(no uint32, leaf []byte, i, n int) error {
	off := int(binary.BigEndian.Uint16(leaf[leafHeader+2*i:]))
	if off >= len(leaf) {
		return corrupt(no, leafHeader+2*i, "cell %d: pointer %d past the page", i, off)
	}
	if low := t.content(no, leaf, n); off < low {
		return corrupt(no, leafHeader+2*i, "cell %d: pointer %d below the cell content area at %d", i, off, low)
	}
	size, k := readVarint(leaf[off:])
	if k == 0 {
		return corrupt(no, off, "cell %d: payload size runs past the page", i)
	}
	if _, j := readVarint(leaf[off+k:]); j == 0 {
		return corrupt(no, off, "cell %d: rowid runs past the page", i)
	}
	if size > t.maxPayload() {
		return corrupt(no, off, "cell %d: payload of %d bytes, more than the page file holds", i, size)
	}
	return corrupt(no, off, "cell %d: payload of %d bytes runs past the page", i, size)
}

// content returns where the cell content area of leaf, page no (0: the leaf
// being filled), holding n cells, starts: at the start its header gives (the
// leaf being filled: t.top), and above the header and the cell pointers.
func (t *Tree) content(no uint32, leaf []byte, n int) int {
	start := t.top
	if no != 0 {
		start = int(binary.BigEndian.Uint16(leaf[5:]))
		if start == 0 {
			start = 65536
		}
	}
	return max(start, leafHeader+2*n)
}

// cellsOf calls fn with the rows of the first n cells of leaf, page no (0:
// the leaf being filled), reading their overflow pages (overflowed). What it
// reads is checked against the page and the page file, so that a corrupt page
// is an error, not a panic, and a cell pointer into the page's header or cell
// pointers is not read as a cell; but only as far as that needs: reading back
// is a hot loop (BenchmarkScan).
func (t *Tree) cellsOf(no uint32, leaf []byte, n int, r *reading, fn func(int64, []byte) error) error {
	low := t.content(no, leaf, n)
	for i := range n {
		off := int(binary.BigEndian.Uint16(leaf[leafHeader+2*i:]))
		if off >= len(leaf) || off < low {
			return t.badCell(no, leaf, i, n)
		}
		// Varints of one byte (most sizes, small rowids) are read here.
		size, k := uint64(leaf[off]), 1
		if size >= 0x80 {
			if size, k = readVarint(leaf[off:]); k == 0 {
				return t.badCell(no, leaf, i, n)
			}
		}
		off += k
		if off >= len(leaf) {
			return t.badCell(no, leaf, i, n)
		}
		rowid, k := uint64(leaf[off]), 1
		if rowid >= 0x80 {
			if rowid, k = readVarint(leaf[off:]); k == 0 {
				return t.badCell(no, leaf, i, n)
			}
		}
		off += k
		local := t.maxLocal(int(size))
		// (A size past math.MaxInt is negative as an int, and so is local.)
		if uint(off+local) > uint(len(leaf)) || local < 0 || local < int(size) && (off+local+4 > len(leaf) || size > t.maxPayload()) {
			return t.badCell(no, leaf, i, n)
		}
		payload := leaf[off : off+local]
		if local < int(size) {
			var err error
			if payload, err = t.overflowed(no, leaf, off+local, rowid, size, payload, r); err != nil {
				return err
			}
		}
		if err := fn(int64(rowid), payload); err != nil {
			return err
		}
	}
	return nil
}

// overflowed returns the payload of size bytes of row rowid, local in its
// cell, followed by its overflow pages (and with r.give hands those back), the
// first page's number at byte at of leaf, page no. The pages read must be
// the next of r.chain, each chain ending where its payload does: so no page
// is read (or handed back) twice, whatever the page numbers in the pages say
// (a cycle, a chain running into another row's or a leaf).
func (t *Tree) overflowed(no uint32, leaf []byte, at int, rowid, size uint64, local []byte, r *reading) ([]byte, error) {
	r.rec = append(r.rec[:0], local...)
	if r.over == nil {
		r.over = make([]byte, t.size)
	}
	from := no // where the number of the next overflow page is: at of from
	next := binary.BigEndian.Uint32(leaf[at:])
	for len(r.rec) < int(size) {
		if len(r.chain) == 0 || next != r.chain[0].no {
			return nil, t.badChain(from, at, rowid, next, len(r.rec), size, r.chain)
		}
		r.chain = r.chain[1:]
		if _, err := t.pf.f.ReadAt(r.over, t.pf.offset(next)); err != nil {
			return nil, fmt.Errorf("page file: page %d: %w", next, err)
		}
		if r.give {
			t.pf.giveBack(next)
		}
		r.rec = append(r.rec, r.over[4:4+min(t.size-4, int(size)-len(r.rec))]...)
		from, at = next, 0
		next = binary.BigEndian.Uint32(r.over)
	}
	if next != 0 {
		return nil, corrupt(from, at, "row %d: overflow chain runs on past its %d bytes, to page %d", rowid, size, next)
	}
	return r.rec, nil
}

// badChain reports the number next of an overflow page of row rowid, at byte
// at of page from, not the page written there (chain[0]; chain empty: none),
// got bytes of its size read.
func (t *Tree) badChain(from uint32, at int, rowid uint64, next uint32, got int, size uint64, chain []pageInfo) error {
	switch pages := t.lastPage(); {
	case next == 0:
		return corrupt(from, at, "row %d: overflow chain ends after %d of its %d bytes", rowid, got, size)
	case next > pages:
		return corrupt(from, at, "row %d: overflow page %d past the page file's %d pages", rowid, next, pages)
	case len(chain) == 0:
		return corrupt(from, at, "row %d: overflow page %d where none was written", rowid, next)
	}
	return corrupt(from, at, "row %d: overflow page %d where page %d was written", rowid, next, chain[0].no)
}

// maxPayload returns the most bytes a row of the tree can hold: its leaf's
// and the page file's.
func (t *Tree) maxPayload() uint64 { return (uint64(t.lastPage()) + 1) * uint64(t.size) }

// lastPage returns the highest number of a page written to the page file.
func (t *Tree) lastPage() uint32 {
	if t.pf == nil {
		return 0
	}
	return t.pf.last
}
