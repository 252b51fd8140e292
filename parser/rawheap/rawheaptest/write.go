package rawheaptest

import (
	"bufio"
	"encoding/binary"
	"hash/fnv"
	"io"
)

// Options choose the layout of a written file (docs/format/rawheap.md#history).
type Options struct {
	// Version is "1.0.0" or "2.0.0"; "" writes the 2024 form: eight zero
	// bytes and no timestamp.
	Version   string
	Timestamp uint64
	// HeaderFields writes the space, heap and VM type fields (since 2026-04).
	HeaderFields bool
	// RootGroups writes the four handle-root groups (since 2026-02) and,
	// with them, the global-ref group with tracking off (since 2026-06).
	RootGroups bool
	// Sections splits a 2024 V1 dump's objects into that many object
	// sections, one per heap as that writer did.
	Sections int
	// Hash puts a JS object's hash in the high 32 bits of its id, as
	// JsLeakWatcher's dumps do.
	Hash bool
	// Copies writes the heap that many times (0 or 1: once), each copy at
	// addresses and ids of its own: a big dump from a small heap.
	Copies int
}

type writer struct {
	w   *bufio.Writer
	off int64
	err error
}

func (w *writer) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
		w.off += int64(len(b))
	}
}
func (w *writer) u8(v uint8) { w.bytes([]byte{v}) }
func (w *writer) u32(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	w.bytes(b[:])
}
func (w *writer) u64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	w.bytes(b[:])
}

// Write writes the heap as a .rawheap with its metadata appended.
func (h *Heap) Write(out io.Writer, opt Options) error {
	w := &writer{w: bufio.NewWriterSize(out, 1<<20)}
	copies := max(1, opt.Copies)
	base := uint64(0x1000_0000)
	span := (h.next - base + 1<<20) &^ (1<<20 - 1)
	shift := func(v uint64, c int) uint64 {
		if a := v &^ weakTag; c > 0 && v != 0 && v&(0xFFFF<<48|0x06) == 0 && a >= base && a < h.next {
			return v + uint64(c)*span
		}
		return v
	}
	each := func(list []uint64, fn func(uint64)) {
		for c := range copies {
			for _, a := range list {
				fn(shift(a, c))
			}
		}
	}
	v2 := opt.Version == "2.0.0"
	var ver [8]byte
	copy(ver[:], opt.Version)
	w.bytes(ver[:])
	if opt.Version != "" {
		w.u64(opt.Timestamp)
	}
	if opt.HeaderFields {
		for _, f := range []struct {
			s string
			n int
		}{{"SemiSpace|OldSpace", 32}, {"LocalHeap", 16}, {"dynamic", 8}} {
			b := make([]byte, f.n)
			copy(b, f.s)
			w.bytes(b)
		}
	}
	regions := map[uint64]uint32{}
	synth := func(a uint64) uint32 {
		r, ok := regions[a>>18]
		if !ok {
			r = uint32(len(regions)) * 8
			regions[a>>18] = r
		}
		return uint32(uint16(r)) | uint32(uint16((a&0x3FFFF)>>3))<<16
	}
	addr := func(a uint64) {
		if v2 {
			w.u32(synth(a))
		} else {
			w.u64(a)
		}
	}
	unit := uint32(8)
	if v2 {
		unit = 4
	}
	var sections []uint32
	// Root section: the root set, then the groups.
	sections = append(sections, uint32(w.off))
	w.u32(uint32(len(h.Roots) * copies))
	w.u32(unit)
	each(h.Roots, addr)
	sections = append(sections, uint32(w.off)-sections[0])
	if opt.RootGroups {
		for _, g := range [][]uint64{h.Local, h.Global, h.VM, h.Frame} {
			w.u32(uint32(len(g) * copies))
			each(g, addr)
		}
		w.u32(0xFFFFFFFF) // global-ref tracking off
	}
	// String section: each name with the objects it names.
	start := w.off
	sections = append(sections, uint32(start))
	var order []string
	named := map[string][]uint64{}
	for _, o := range h.Objects {
		if o.Name == "" || v2 && o.JSType == h.stringT {
			continue
		}
		if _, ok := named[o.Name]; !ok {
			order = append(order, o.Name)
		}
		named[o.Name] = append(named[o.Name], o.Addr)
	}
	w.u32(uint32(len(order)))
	w.u32(0)
	for _, s := range order {
		w.u32(uint32(len(s)))
		w.u32(uint32(len(named[s]) * copies))
		each(named[s], addr)
		w.bytes(append([]byte(s), 0))
	}
	if pad := (8 - w.off%8) % 8; pad > 0 {
		w.bytes(make([]byte, pad))
	}
	sections = append(sections, uint32(w.off-start))
	id := func(o *Object) uint64 {
		if opt.Hash && h.meta.Types[o.JSType].Name != "" && o.JSType >= h.meta.ObjectFirst && o.JSType <= h.meta.ObjectLast {
			f := fnv.New32a()
			f.Write([]byte{byte(o.ID), byte(o.ID >> 8), byte(o.ID >> 16), byte(o.ID >> 24)})
			return uint64(f.Sum32()&0x7FFFFFFF)<<32 | o.ID&0xFFFFFFFF
		}
		return o.ID
	}
	// Object sections.
	type ref struct {
		o *Object
		c int
	}
	all := make([]ref, 0, len(h.Objects)*copies)
	for c := range copies {
		for _, o := range h.Objects {
			all = append(all, ref{o, c})
		}
	}
	parts := [][]ref{all}
	if !v2 && opt.Sections > 1 {
		parts = nil
		per := (len(all) + opt.Sections - 1) / opt.Sections
		for i := 0; i < len(all); i += per {
			parts = append(parts, all[i:min(i+per, len(all))])
		}
	}
	for _, objs := range parts {
		start := w.off
		sections = append(sections, uint32(start))
		w.u32(uint32(len(objs)))
		w.u32(24)
		isStr := func(o *Object) bool { return o.JSType == h.stringT }
		idOf := func(r ref) uint64 { return id(r.o) ^ uint64(r.c)<<24 } // below 2^32: a hash lives above
		if v2 {
			for _, r := range objs {
				o := r.o
				size := o.Size
				if isStr(o) {
					size = o.Len
				}
				w.u32(synth(shift(o.Addr, r.c)))
				w.u32(size)
				w.u64(idOf(r))
				w.u32(o.Native)
				w.u32(uint32(o.JSType))
			}
			for _, r := range objs {
				o := r.o
				w.u32(synth(shift(o.HClass, r.c)))
				if isStr(o) {
					continue
				}
				for _, v := range o.Words {
					if v != 0 && v&(0xFFFF<<48|0x06) == 0 && v&weakTag == 0 {
						w.u32(synth(shift(v, r.c)))
					} else {
						w.u8(0x02)
					}
				}
			}
		} else {
			mem := uint32(24 * len(objs))
			for _, r := range objs {
				o := r.o
				size, n := o.Size, o.Size
				if isStr(o) {
					size, n = o.Len, 8
				}
				w.u64(shift(o.Addr, r.c))
				w.u64(idOf(r))
				w.u32(size)
				w.u32(mem)
				mem += n
			}
			for _, r := range objs {
				o := r.o
				w.u64(shift(o.HClass, r.c))
				if isStr(o) {
					continue
				}
				for _, v := range o.Words {
					w.u64(shift(v, r.c))
				}
			}
		}
		sections = append(sections, uint32(w.off-start))
	}
	for _, s := range sections {
		w.u32(s)
	}
	w.u32(uint32(len(sections)))
	w.u32(4)
	dump := w.off
	w.bytes(h.metaJSON)
	w.u32(uint32(dump))
	w.u32(uint32(len(h.metaJSON)))
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}
