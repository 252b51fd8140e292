package heapfile

// Node ids are unique within a heap file: tools key the nodes on them
// (SmartPerf-Host's HeapLoader keeps them in a map and loses the nodes that
// share an id; DevTools and memlab match objects across snapshots by id).
// rawheap_translator's snapshots, and so the .rawheap decoder, give many
// nodes id 0 (handle roots, V1's primitive values). A node whose id repeats
// one an earlier node of the file has gets a synthetic id instead, the same
// for every decoder:
//
//	2^52 + (file id mod 2^20) × 2^32 + node index
//
// It is below 2^53 (a JavaScript number holds it exactly), unique within the
// file (the node index is), deterministic, and above every id V8 (uint32
// SnapshotObjectId) or the ArkTS runtime (the low 32 bits of its ids)
// gives, so it collides with no real id. It differs between the heap files
// of a run: such nodes have no identity a comparison could follow, so they
// never match an object of another file (a comparison counts them as removed
// and added in their classes; memlab's leak rule, in the target and not the
// baseline, never takes them, as it never took the id-0 nodes, which the
// baseline always has). Should a hostile file's real id take the synthetic
// id of a node, that node gets the next free id counting down from 2^53-1.

// SyntheticID returns the synthetic id of node index of heap file fileID,
// the id a node gets whose id an earlier node of the file has.
func SyntheticID(fileID, index int64) int64 {
	return 1<<52 + (fileID&(1<<20-1))<<32 + index
}

// idSet is a set of node ids: pages of 4096 ids keyed by id/4096, each a
// sorted list of up to pageList ids, or a bitmap once it has more. Dense ids
// (V8's, the runtime's sequential ones) cost a bit or two each; scattered
// ones (a hostile file) a page each, in proportion to the nodes.
type idSet struct {
	pages    map[uint64]*idPage
	lastKey  uint64
	last     *idPage // the page of the last id looked up (ids come in runs)
	fallback int64   // the next synthetic id to try after a collision
	// dropped says that the pages were let go (drop) while ids were in
	// the set: they are the node ids the Writer keeps, added again if a node
	// comes after all.
	dropped bool
}

// drop lets the set's pages go once the nodes are all given (the first
// edge): the set is the final ids of the nodes, which the Writer keeps, so
// that it can be made again (restore) should a node come after an edge.
func (s *idSet) drop() {
	if s.pages != nil {
		s.pages, s.last, s.dropped = nil, nil, true
	}
}

// restore makes a dropped set again from the final ids of the nodes given.
func (s *idSet) restore(ids []int64) {
	if !s.dropped {
		return
	}
	s.dropped = false
	for _, id := range ids {
		s.add(id)
	}
}

const pageList = 32

type idPage struct {
	list []uint16 // sorted, while bits is nil
	bits *[64]uint64
}

// add adds id and reports whether it was in the set already.
func (s *idSet) add(id int64) bool {
	key, low := uint64(id)>>12, uint16(id&4095)
	p := s.last
	if p == nil || key != s.lastKey {
		if s.pages == nil {
			s.pages = map[uint64]*idPage{}
		}
		p = s.pages[key]
		if p == nil {
			p = &idPage{}
			s.pages[key] = p
		}
		s.last, s.lastKey = p, key
	}
	if p.bits != nil {
		w, b := &p.bits[low>>6], uint64(1)<<(low&63)
		had := *w&b != 0
		*w |= b
		return had
	}
	// Mostly appended: ids come ascending within a page.
	i := len(p.list)
	if i > 0 && p.list[i-1] >= low {
		i = searchU16(p.list, low)
		if i < len(p.list) && p.list[i] == low {
			return true
		}
	}
	if len(p.list) == pageList {
		p.bits = new([64]uint64)
		for _, v := range p.list {
			p.bits[v>>6] |= 1 << (v & 63)
		}
		p.bits[low>>6] |= 1 << (low & 63)
		p.list = nil
		return false
	}
	p.list = append(p.list, 0)
	copy(p.list[i+1:], p.list[i:])
	p.list[i] = low
	return false
}

func searchU16(l []uint16, v uint16) int {
	lo, hi := 0, len(l)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// unique returns id if no earlier node of the file has it, else the
// synthetic id of node index, and whether it is synthetic.
func (s *idSet) unique(fileID, index, id int64) (int64, bool) {
	if !s.add(id) {
		return id, false
	}
	if index < 1<<32 {
		if syn := SyntheticID(fileID, index); !s.add(syn) {
			return syn, true
		}
	}
	if s.fallback == 0 {
		s.fallback = 1<<53 - 1
	}
	for s.add(s.fallback) {
		s.fallback--
	}
	s.fallback--
	return s.fallback + 1, true
}
