package sqlitefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Tree builds a table b-tree's leaf pages from records given in rowid order.
// Full leaves and overflow pages go to a spill file, in the order they are
// made; page numbers in them are relative to that file until Splice places
// them. The leaf being filled stays in memory.
type Tree struct {
	size  int // page size; no bytes are reserved, so also the usable size
	spill func() (*os.File, error)
	f     *os.File

	page  []byte // the leaf being filled
	over  []byte // an overflow page being written
	cells int
	top   int   // start of its cell content area
	first int64 // number of rows before it

	pages []pageInfo // the spill file's pages, in order
	fixes []fix      // page numbers to relocate in the spill file
	open  []fix      // ... and in the leaf being filled (off within the page)
	free  []uint32   // spill pages no longer used (overflow of dropped rows)

	rows int64 // rows added
	last int64 // rowid of the last row
}

// pageInfo is one page of the spill file: a leaf (rows is the number of rows
// up to and including it, last the rowid of its last cell) or an overflow page
// (rows is the number of the row it belongs to, counting from 1).
type pageInfo struct {
	leaf bool
	rows int64
	last int64
}

// fix is a 4-byte page number at off in the spill file (or in the leaf being
// filled) that must hold the final number of spill page to; row is the row it
// belongs to.
type fix struct {
	off int64
	to  uint32
	row int64
}

const (
	leafHeader     = 8
	interiorHeader = 12
	flagLeaf       = 0x0d
	flagInterior   = 0x05
)

// NewTree starts an empty tree of the given page size (a power of two from 512
// to 65536). spill makes the spill file when the first page must leave memory;
// the tree closes it but does not remove it.
func NewTree(pageSize int, spill func() (*os.File, error)) *Tree {
	t := &Tree{size: pageSize, spill: spill, page: make([]byte, pageSize)}
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
	cell := varintLen(uint64(len(rec))) + varintLen(uint64(rowid)) + local
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
	p := t.page[t.top:t.top]
	p = appendVarint(p, uint64(len(rec)))
	p = appendVarint(p, uint64(rowid))
	p = append(p, rec[:local]...)
	if local < len(rec) {
		first, err := t.overflow(rec[local:])
		if err != nil {
			return err
		}
		t.open = append(t.open, fix{off: int64(t.top + len(p)), to: first, row: t.rows})
	}
	binary.BigEndian.PutUint16(t.page[leafHeader+2*t.cells:], uint16(t.top))
	t.cells++
	return nil
}

// overflow writes rest to a chain of overflow pages and returns the first.
func (t *Tree) overflow(rest []byte) (uint32, error) {
	first := uint32(len(t.pages))
	if t.over == nil {
		t.over = make([]byte, t.size)
	}
	buf := t.over
	for len(rest) > 0 {
		clear(buf)
		n := copy(buf[4:], rest)
		rest = rest[n:]
		at := uint32(len(t.pages))
		if len(rest) > 0 {
			t.fixes = append(t.fixes, fix{off: int64(at) * int64(t.size), to: at + 1, row: t.rows})
		}
		if err := t.write(buf); err != nil {
			return 0, err
		}
		t.pages = append(t.pages, pageInfo{rows: t.rows})
	}
	return first, nil
}

// write appends a page to the spill file.
func (t *Tree) write(p []byte) error {
	if t.f == nil {
		f, err := t.spill()
		if err != nil {
			return fmt.Errorf("spill file: %w", err)
		}
		t.f = f
	}
	if _, err := t.f.WriteAt(p, int64(len(t.pages))*int64(t.size)); err != nil {
		return fmt.Errorf("spill file: %w", err)
	}
	return nil
}

// flush writes the leaf being filled to the spill file.
func (t *Tree) flush() error {
	t.seal()
	if err := t.write(t.page); err != nil {
		return err
	}
	at := int64(len(t.pages)) * int64(t.size)
	for _, f := range t.open {
		f.off += at
		t.fixes = append(t.fixes, f)
	}
	t.open = t.open[:0]
	t.pages = append(t.pages, pageInfo{leaf: true, rows: t.rows, last: t.last})
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

// Truncate keeps the first n rows and drops the others.
func (t *Tree) Truncate(n int64) error {
	if n >= t.rows {
		return nil
	}
	if n < t.first {
		// The cut is in a leaf already spilled: it becomes the leaf being filled
		// again, and the spill file ends before it.
		i := 0
		for !t.pages[i].leaf || t.pages[i].rows <= n {
			i++
		}
		t.open = t.open[:0]
		at := int64(i) * int64(t.size)
		kept := t.fixes[:0]
		for _, f := range t.fixes {
			switch {
			case f.off >= at && f.off < at+int64(t.size) && f.row <= n:
				f.off -= at
				t.open = append(t.open, f)
			case f.off < at:
				kept = append(kept, f)
			}
		}
		t.fixes = kept
		if _, err := t.f.ReadAt(t.page, at); err != nil {
			return fmt.Errorf("spill file: %w", err)
		}
		t.cells = int(binary.BigEndian.Uint16(t.page[3:]))
		t.first = 0
		for j := i - 1; j >= 0; j-- {
			if t.pages[j].leaf {
				t.first = t.pages[j].rows
				break
			}
		}
		t.pages = t.pages[:i]
		kf := t.free[:0]
		for _, p := range t.free {
			if int(p) < i {
				kf = append(kf, p)
			}
		}
		t.free = kf
	}
	// The cut is in the leaf being filled: its first k cells stay. Cells were
	// placed downwards in order, so the content area ends at the k-th cell.
	k := int(n - t.first)
	t.cells = k
	t.top = t.size
	if k > 0 {
		t.top = int(binary.BigEndian.Uint16(t.page[leafHeader+2*(k-1):]))
	}
	open := t.open[:0]
	for _, f := range t.open {
		if f.row <= n {
			open = append(open, f)
		}
	}
	t.open = open
	// Overflow pages of dropped rows that stay in the spill file are freed.
	fixes := t.fixes[:0]
	for _, f := range t.fixes {
		if f.row <= n {
			fixes = append(fixes, f)
		}
	}
	t.fixes = fixes
	for i := range t.pages {
		if p := &t.pages[i]; !p.leaf && p.rows > n {
			t.free = append(t.free, uint32(i))
			p.rows = 0 // freed
		}
	}
	t.rows = n
	t.last = 0
	if k > 0 {
		t.last = t.cellRowID(k - 1)
	} else if t.first > 0 {
		for j := len(t.pages) - 1; j >= 0; j-- {
			if t.pages[j].leaf {
				t.last = t.pages[j].last
				break
			}
		}
	}
	return nil
}

// cellRowID reads the rowid of cell i of the leaf being filled.
func (t *Tree) cellRowID(i int) int64 {
	off := int(binary.BigEndian.Uint16(t.page[leafHeader+2*i:]))
	_, n := readVarint(t.page[off:])
	id, _ := readVarint(t.page[off+n:])
	return int64(id)
}

// Close closes the spill file, if any. The tree cannot be used afterwards.
func (t *Tree) Close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// errNotEmpty reports a root page that already holds rows.
var errNotEmpty = errors.New("root page is not an empty table leaf")

// copySpill copies spill pages [from, to) to w at off.
func (t *Tree) copySpill(w *os.File, off int64, from, to int) error {
	if to <= from {
		return nil
	}
	if _, err := t.f.Seek(int64(from)*int64(t.size), io.SeekStart); err != nil {
		return err
	}
	if _, err := w.Seek(off, io.SeekStart); err != nil {
		return err
	}
	// A LimitedReader over an *os.File lets the kernel copy (copy_file_range).
	_, err := io.CopyN(w, t.f, int64(to-from)*int64(t.size))
	return err
}
