package sqlitefile

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
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
	f    *os.File // the file being made the database
	size int
	// The pages in the file so far (last), the free ones, handed out first
	// for the pages Splice writes, and the lock-byte page.
	numbers
	// moved is where each page of the page file went, by number, when they
	// were copied after SQLite's (nil in place: they stay where they are).
	moved []uint32
}

// Splice places each table's tree in the database at path, which SQLite wrote
// and closed, and whose root page for each table must be an empty leaf.
//
// When SQLite's pages fit in the gap the page file left for them, they are
// copied there and the page file is renamed
// to path: the trees' pages stay where they were written. Otherwise the
// trees' pages are copied after SQLite's, and the numbers written into them
// changed. Either way the pages left unused (the rest of the gap, pages of
// truncated rows) are filled with the trees' highest pages and cut off the
// end (compact), interior pages are built above the leaves, the top page is
// written over the table's root page, and what is still free goes to the
// freelist; the header's page count and change counter are updated last. pages may be nil when no tree wrote a page.
//
// The file is not synced, and the page file is closed. On error the files
// are left in an undefined state: the caller removes both.
func Splice(path string, pages *Pages, tables []Table) error {
	return splice(path, pages, tables, pendingByte)
}

// splice is Splice with the lock-byte offset as a parameter: SQLite's tests
// move it (SQLITE_TESTCTRL_PENDING_BYTE), and so do this package's.
func splice(path string, pages *Pages, tables []Table, lockByte int64) error {
	if err := spliceFiles(path, pages, tables, lockByte); err != nil {
		return fmt.Errorf("splice tables into %s: %w", path, err)
	}
	return nil
}

func spliceFiles(path string, pages *Pages, tables []Table, lockByte int64) error {
	db, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer db.Close()
	if pages != nil {
		defer pages.Close()
	}
	s := &spliced{f: db}
	h := make([]byte, headerSize)
	if _, err := db.ReadAt(h, 0); err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	if err := s.check(h); err != nil {
		return err
	}
	st, err := db.Stat()
	if err != nil {
		return err
	}
	s.last = uint32(st.Size() / int64(s.size))
	if n := be32(h[hdrPageCount:]); n != 0 && be32(h[hdrChangeCounter:]) == be32(h[hdrValidFor:]) {
		s.last = n
	}
	if int64(s.last)*int64(s.size) < st.Size() {
		return fmt.Errorf("file of %d bytes holds more than its %d pages", st.Size(), s.last)
	}
	s.pending = uint32(lockByte/int64(s.size)) + 1
	for _, t := range tables {
		if t.Tree.size != s.size {
			return fmt.Errorf("table at page %d: tree of %d-byte pages in a file of %d-byte pages",
				t.Root, t.Tree.size, s.size)
		}
		if t.Tree.pf != nil && t.Tree.pf != pages {
			return fmt.Errorf("table at page %d: its tree wrote into another page file", t.Root)
		}
	}
	inPlace := false
	if pages != nil {
		switch {
		case pages.size != s.size:
			return fmt.Errorf("page file of %d-byte pages for a file of %d-byte pages", pages.size, s.size)
		case pages.pending != s.pending:
			return fmt.Errorf("page file with the lock-byte page at %d, the file at %d", pages.pending, s.pending)
		}
		if s.last <= pages.gap {
			inPlace = true
			if err := s.intoGap(pages); err != nil {
				return err
			}
		} else if err := s.after(pages, tables); err != nil {
			return err
		}
	}
	s.trim()
	if pages != nil {
		if err := s.compact(pages, tables); err != nil {
			return err
		}
	}
	for _, t := range tables {
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
	binary.BigEndian.PutUint32(h[hdrPageCount:], s.last)
	if err := s.f.Truncate(int64(s.last) * int64(s.size)); err != nil {
		return err
	}
	if _, err := s.f.WriteAt(h, 0); err != nil {
		return err
	}
	if !inPlace {
		return db.Close()
	}
	if err := pages.Close(); err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	return os.Rename(pages.Name(), path)
}

// intoGap copies SQLite's pages into the gap the page file left for them and
// makes the page file the file being made; the rest of the gap is free.
func (s *spliced) intoGap(pf *Pages) error {
	if err := copyRange(pf.f, 0, s.f, 0, int64(s.last)*int64(s.size)); err != nil {
		return fmt.Errorf("copy SQLite's pages into the page file: %w", err)
	}
	for no := s.last + 1; no <= pf.gap; no++ {
		if no != s.pending {
			s.free = append(s.free, no)
		}
	}
	s.free = append(s.free, pf.free...)
	s.f = pf.f
	s.last = pf.last // at least gap, which s.last is not above here
	return nil
}

// after copies the page file's pages after SQLite's, in order, and changes
// the page numbers the trees wrote into them.
func (s *spliced) after(pf *Pages, tables []Table) error {
	s.moved = make([]uint32, pf.last+1)
	for no := pf.gap + 1; no <= pf.last; no++ {
		if no != pf.pending {
			s.moved[no] = s.alloc()
		}
	}
	// Runs of pages that stay consecutive.
	for from := pf.gap + 1; from <= pf.last; {
		if s.moved[from] == 0 {
			from++
			continue
		}
		to := from + 1
		for to <= pf.last && s.moved[to] == s.moved[to-1]+1 {
			to++
		}
		if err := copyRange(s.f, s.offset(s.moved[from]), pf.f, pf.offset(from), int64(to-from)*int64(s.size)); err != nil {
			return fmt.Errorf("copy the page file: %w", err)
		}
		from = to
	}
	var num [4]byte
	for _, t := range tables {
		for _, fx := range t.Tree.fixes {
			binary.BigEndian.PutUint32(num[:], s.moved[fx.to])
			if _, err := s.f.WriteAt(num[:], s.offset(s.moved[fx.page])+int64(fx.off)); err != nil {
				return err
			}
		}
	}
	for _, no := range pf.free {
		s.free = append(s.free, s.moved[no])
	}
	return nil
}

// trim cuts free pages off the end of the file (those of rows rolled back
// last) and orders the others so that alloc hands out the lowest first.
func (s *spliced) trim() {
	slices.Sort(s.free)
	s.free = slices.Compact(s.free)
	for n := len(s.free); n > 0 && s.free[n-1] == s.last; n-- {
		s.free = s.free[:n-1]
		s.last--
		if s.last == s.pending {
			s.last--
		}
	}
	slices.Reverse(s.free)
}

// compact moves the trees' highest pages down into the free pages below them,
// highest first into lowest, until no free page lies below a page in use,
// and cuts the pages so emptied off the end: the pages of rows rolled back
// (an input dropped before a good one) and the gap's leftovers take pages
// that would otherwise follow them, and the file holds only what was kept
// (plus the pages on SQLite's own freelist). A moved page keeps its bytes;
// the page numbers written into the trees' pages that name a moved page are
// changed (the leaves' numbers go into the interior pages table builds).
func (s *spliced) compact(pf *Pages, tables []Table) error {
	if len(s.free) == 0 {
		return nil
	}
	if s.moved == nil {
		s.moved = make([]uint32, pf.last+1)
		for no := range s.moved {
			s.moved[no] = uint32(no)
		}
	}
	// The trees' pages, by the page file's numbers, highest place first.
	var used []uint32
	for _, t := range tables {
		for _, p := range t.Tree.pages {
			used = append(used, p.no)
		}
	}
	slices.SortFunc(used, func(a, b uint32) int { return cmp.Compare(s.moved[b], s.moved[a]) })
	relocated := map[uint32]bool{} // by the page file's number
	var emptied []uint32
	buf := make([]byte, s.size)
	// s.free is in descending order (trim): the lowest is last. The pages
	// emptied are all above the page being moved, so never a place for it.
	for _, no := range used {
		from := s.moved[no]
		if len(s.free) == 0 || s.free[len(s.free)-1] > from {
			break
		}
		to := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		if _, err := s.f.ReadAt(buf, s.offset(from)); err != nil {
			return fmt.Errorf("move page %d: %w", from, err)
		}
		if _, err := s.f.WriteAt(buf, s.offset(to)); err != nil {
			return fmt.Errorf("move page %d: %w", from, err)
		}
		s.moved[no] = to
		relocated[no] = true
		emptied = append(emptied, from)
	}
	if len(relocated) == 0 {
		return nil
	}
	var num [4]byte
	for _, t := range tables {
		for _, fx := range t.Tree.fixes {
			if relocated[fx.to] {
				binary.BigEndian.PutUint32(num[:], s.moved[fx.to])
				if _, err := s.f.WriteAt(num[:], s.offset(s.moved[fx.page])+int64(fx.off)); err != nil {
					return err
				}
			}
		}
	}
	// The free pages are now all above the pages in use: cut them off.
	s.free = append(s.free, emptied...)
	s.trim()
	return nil
}

// number is where page no of the page file is in the file being made.
func (s *spliced) number(no uint32) uint32 {
	if s.moved == nil {
		return no
	}
	return s.moved[no]
}

// copyRange copies n bytes of src at srcOff to dst at dstOff; between files
// the kernel copies them (copy_file_range) where it can.
func copyRange(dst *os.File, dstOff int64, src *os.File, srcOff int64, n int64) error {
	if n <= 0 {
		return nil
	}
	if _, err := src.Seek(srcOff, io.SeekStart); err != nil {
		return err
	}
	if _, err := dst.Seek(dstOff, io.SeekStart); err != nil {
		return err
	}
	// A LimitedReader over an *os.File lets the kernel copy.
	_, err := io.CopyN(dst, src, n)
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
	var level []entry
	for _, p := range tr.pages {
		if p.leaf {
			level = append(level, entry{s.number(p.no), p.last})
		}
	}
	if tr.cells > 0 {
		// The leaf being filled, with the numbers written into it.
		tr.seal()
		for _, fx := range tr.open {
			binary.BigEndian.PutUint32(tr.page[fx.off:], s.number(fx.to))
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
		// One leaf, in the page file: it moves to the root page.
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

// freelist puts the unused pages on the file's freelist: trunk pages (free
// pages themselves), each listing leaf pages, chained before the trunks the
// file has. A trunk lists at most usable size/4 − 8 leaves, as SQLite's
// allocator does: the file format leaves room for 6 more, but SQLite before
// 3.6.0 calls a file with them corrupt, and SQLite since does not use them
// (fileformat2.html, "The Freelist").
func (s *spliced) freelist(h []byte) error {
	per := s.size/4 - 8
	next := be32(h[hdrFreeTrunk:])
	count := be32(h[hdrFreeCount:])
	for len(s.free) > 0 {
		trunk := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		n := min(per, len(s.free))
		leaves := s.free[len(s.free)-n:]
		s.free = s.free[:len(s.free)-n]
		p := make([]byte, s.size)
		binary.BigEndian.PutUint32(p, next)
		binary.BigEndian.PutUint32(p[4:], uint32(n))
		for i, l := range leaves {
			binary.BigEndian.PutUint32(p[8+4*i:], l)
		}
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
