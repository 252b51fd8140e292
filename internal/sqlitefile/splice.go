package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
)

// Table is a tree to place as the table whose root page is Root.
type Table struct {
	Root uint32
	Tree *Tree
}

// header offsets (fileformat2.html, "The Database Header").
const (
	hdrPageSize      = 16
	hdrReserved      = 20
	hdrChangeCounter = 24
	hdrPageCount     = 28
	hdrFreeTrunk     = 32
	hdrFreeCount     = 36
	hdrSchemaFormat  = 44
	hdrAutoVacuum    = 52
	hdrEncoding      = 56
	hdrIncremental   = 64
	hdrValidFor      = 92
	headerSize       = 100
	pendingByte      = 0x40000000 // the lock-byte page holds this offset and is never used
)

var magic = []byte("SQLite format 3\x00")

// spliced is the state of one Splice.
type spliced struct {
	f       *os.File
	size    int
	pages   uint32 // pages in the file so far
	pending uint32 // the lock-byte page
	free    []uint32
}

// Splice places each table's tree in the database file at path, which SQLite
// wrote and closed: the spill files' pages are copied to the end of the file,
// their page numbers fixed, interior pages built above the leaves and the top
// page written over the table's root page, which must be an empty leaf. Pages
// left unused (overflow pages of truncated rows) go to the freelist. The
// header's page count and change counter are updated last.
//
// The file is not synced. On error it is left in an undefined state: the
// caller removes it.
func Splice(path string, tables []Table) error { return splice(path, tables, pendingByte) }

// splice is Splice with the lock-byte offset as a parameter: SQLite's tests
// move it (SQLITE_TESTCTRL_PENDING_BYTE), and so do this package's.
func splice(path string, tables []Table, lockByte int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("splice tables into %s: %w", path, err)
	}
	defer f.Close()
	s := &spliced{f: f}
	if err := s.run(tables, lockByte); err != nil {
		return fmt.Errorf("splice tables into %s: %w", path, err)
	}
	return f.Close()
}

func (s *spliced) run(tables []Table, lockByte int64) error {
	h := make([]byte, headerSize)
	if _, err := s.f.ReadAt(h, 0); err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	if err := s.check(h); err != nil {
		return err
	}
	st, err := s.f.Stat()
	if err != nil {
		return err
	}
	s.pages = uint32(st.Size() / int64(s.size))
	if n := be32(h[hdrPageCount:]); n != 0 && be32(h[hdrChangeCounter:]) == be32(h[hdrValidFor:]) {
		s.pages = n
	}
	if int64(s.pages)*int64(s.size) < st.Size() {
		return fmt.Errorf("file of %d bytes holds more than its %d pages", st.Size(), s.pages)
	}
	s.pending = uint32(lockByte/int64(s.size)) + 1
	for _, t := range tables {
		if t.Tree.size != s.size {
			return fmt.Errorf("table at page %d: tree of %d-byte pages in a file of %d-byte pages",
				t.Root, t.Tree.size, s.size)
		}
		if err := s.table(t); err != nil {
			return fmt.Errorf("table at page %d: %w", t.Root, err)
		}
	}
	if err := s.freelist(h); err != nil {
		return err
	}
	counter := be32(h[hdrChangeCounter:]) + 1
	binary.BigEndian.PutUint32(h[hdrChangeCounter:], counter)
	binary.BigEndian.PutUint32(h[hdrValidFor:], counter)
	binary.BigEndian.PutUint32(h[hdrPageCount:], s.pages)
	if err := s.f.Truncate(int64(s.pages) * int64(s.size)); err != nil {
		return err
	}
	_, err = s.f.WriteAt(h, 0)
	return err
}

// check refuses a header this package does not write pages for.
func (s *spliced) check(h []byte) error {
	if !bytes.Equal(h[:len(magic)], magic) {
		return fmt.Errorf("not a SQLite database")
	}
	s.size = int(binary.BigEndian.Uint16(h[hdrPageSize:]))
	if s.size == 1 {
		s.size = 65536
	}
	switch {
	case s.size < 512 || s.size&(s.size-1) != 0:
		return fmt.Errorf("page size %d", s.size)
	case h[hdrReserved] != 0:
		return fmt.Errorf("%d reserved bytes per page", h[hdrReserved])
	case be32(h[hdrSchemaFormat:]) < 4:
		return fmt.Errorf("schema format %d (4 is needed for the serial types of 0 and 1)", be32(h[hdrSchemaFormat:]))
	case be32(h[hdrEncoding:]) != 1:
		return fmt.Errorf("text encoding %d (1, UTF-8, is written)", be32(h[hdrEncoding:]))
	case be32(h[hdrAutoVacuum:]) != 0 || be32(h[hdrIncremental:]) != 0:
		return fmt.Errorf("auto-vacuum database (pointer maps are not written)")
	}
	return nil
}

// alloc returns the next page at the end of the file.
func (s *spliced) alloc() uint32 {
	s.pages++
	if s.pages == s.pending {
		s.pages++
	}
	return s.pages
}

func (s *spliced) offset(page uint32) int64 { return int64(page-1) * int64(s.size) }

// entry is a child of an interior page: its page and the largest rowid in it.
type entry struct {
	page uint32
	key  int64
}

func (s *spliced) table(t Table) error {
	if t.Root < 2 {
		return fmt.Errorf("root page %d", t.Root)
	}
	root := make([]byte, s.size)
	if _, err := s.f.ReadAt(root, s.offset(t.Root)); err != nil {
		return fmt.Errorf("read root page: %w", err)
	}
	if root[0] != flagLeaf || binary.BigEndian.Uint16(root[3:]) != 0 {
		return errNotEmpty
	}
	tr := t.Tree
	if tr.rows == 0 {
		return nil
	}
	// Spill pages in order, skipping the lock-byte page.
	abs := make([]uint32, len(tr.pages))
	for i := range abs {
		abs[i] = s.alloc()
	}
	for from := 0; from < len(abs); {
		to := from + 1
		for to < len(abs) && abs[to] == abs[to-1]+1 {
			to++
		}
		if err := tr.copySpill(s.f, s.offset(abs[from]), from, to); err != nil {
			return fmt.Errorf("copy spill file: %w", err)
		}
		from = to
	}
	var num [4]byte
	for _, fx := range tr.fixes {
		i := fx.off / int64(s.size)
		binary.BigEndian.PutUint32(num[:], abs[fx.to])
		if _, err := s.f.WriteAt(num[:], s.offset(abs[i])+fx.off%int64(s.size)); err != nil {
			return err
		}
	}
	for _, p := range tr.free {
		s.free = append(s.free, abs[p])
	}
	var level []entry
	for i, p := range tr.pages {
		if p.leaf {
			level = append(level, entry{abs[i], p.last})
		}
	}
	if tr.cells > 0 {
		// The leaf being filled: with relocated overflow numbers.
		tr.seal()
		for _, fx := range tr.open {
			binary.BigEndian.PutUint32(tr.page[fx.off:], abs[fx.to])
		}
		if len(level) == 0 {
			_, err := s.f.WriteAt(tr.page, s.offset(t.Root))
			return err
		}
		p := s.alloc()
		if _, err := s.f.WriteAt(tr.page, s.offset(p)); err != nil {
			return err
		}
		level = append(level, entry{p, tr.last})
	}
	if len(level) == 1 {
		// One leaf, spilled: it moves to the root page.
		buf := make([]byte, s.size)
		if _, err := s.f.ReadAt(buf, s.offset(level[0].page)); err != nil {
			return err
		}
		s.free = append(s.free, level[0].page)
		_, err := s.f.WriteAt(buf, s.offset(t.Root))
		return err
	}
	for {
		groups := s.pack(level)
		if len(groups) == 1 {
			_, err := s.f.WriteAt(s.interior(level), s.offset(t.Root))
			return err
		}
		var up []entry
		for _, g := range groups {
			p := s.alloc()
			if _, err := s.f.WriteAt(s.interior(g), s.offset(p)); err != nil {
				return err
			}
			up = append(up, entry{p, g[len(g)-1].key})
		}
		level = up
	}
}

// pack splits a level's entries into interior pages, as many to a page as
// fit, and never a page of one child.
func (s *spliced) pack(level []entry) [][]entry {
	var groups [][]entry
	for len(level) > 0 {
		// The page's last child is the right-most pointer in its header; each
		// child before it takes a cell and a cell pointer.
		used, n := interiorHeader, 1
		for n < len(level) {
			need := 2 + 4 + varintLen(uint64(level[n-1].key))
			if used+need > s.size {
				break
			}
			used += need
			n++
		}
		if n == len(level)-1 && n > 2 {
			n-- // leave two for the last page
		}
		groups = append(groups, level[:n])
		level = level[n:]
	}
	return groups
}

// interior builds an interior table page over the given children.
func (s *spliced) interior(children []entry) []byte {
	p := make([]byte, s.size)
	p[0] = flagInterior
	n := len(children) - 1
	binary.BigEndian.PutUint16(p[3:], uint16(n))
	binary.BigEndian.PutUint32(p[8:], children[n].page)
	top := s.size
	for i, c := range children[:n] {
		cell := 4 + varintLen(uint64(c.key))
		top -= cell
		binary.BigEndian.PutUint32(p[top:], c.page)
		appendVarint(p[top+4:top+4], uint64(c.key))
		binary.BigEndian.PutUint16(p[interiorHeader+2*i:], uint16(top))
	}
	binary.BigEndian.PutUint16(p[5:], uint16(top))
	return p
}

// freelist adds the unused pages to the file's freelist: trunk pages, each
// listing leaf pages, chained before the trunks the file has.
func (s *spliced) freelist(h []byte) error {
	if len(s.free) == 0 {
		return nil
	}
	per := s.size/4 - 2
	next := be32(h[hdrFreeTrunk:])
	count := be32(h[hdrFreeCount:])
	for len(s.free) > 0 {
		n := min(per, len(s.free))
		leaves := s.free[len(s.free)-n:]
		s.free = s.free[:len(s.free)-n]
		p := make([]byte, s.size)
		binary.BigEndian.PutUint32(p, next)
		binary.BigEndian.PutUint32(p[4:], uint32(n))
		for i, l := range leaves {
			binary.BigEndian.PutUint32(p[8+4*i:], l)
		}
		trunk := s.alloc()
		if _, err := s.f.WriteAt(p, s.offset(trunk)); err != nil {
			return err
		}
		next = trunk
		count += uint32(n) + 1
	}
	binary.BigEndian.PutUint32(h[hdrFreeTrunk:], next)
	binary.BigEndian.PutUint32(h[hdrFreeCount:], count)
	return nil
}

func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
