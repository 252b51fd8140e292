package heapgraph

import (
	"cmp"
	"slices"
	"strings"
)

// Objects lists the objects of a snapshot that have a non-zero shallow size,
// sorted by object id, for comparisons with a later snapshot.
//
// It is made lazily: until a comparison needs the list, it holds the
// snapshot's per-node ids, classes and shallow sizes as the analysis left
// them (no copy), because most snapshots are the last of their input and
// are never compared (5 M nodes: 0.1 s and 80 MB at the end of the run
// saved). The arrays it was given must not change afterwards.
type Objects struct {
	entries []object
	names   []string // class names

	// The arrays the list is made from, until it is.
	id      []int64
	class   []uint32
	shallow []uint32
}

type object struct {
	id    int64
	class uint32
	size  uint32
}

// Objects returns the objects of g for a comparison. They share g.ID and
// r's class and shallow size arrays, which must not change afterwards.
func (g *Graph) Objects(r *Result) *Objects {
	o := &Objects{names: make([]string, len(r.Classes)), id: g.ID[:g.NodeCount()], class: r.Class, shallow: r.Shallow}
	for i, c := range r.Classes {
		o.names[i] = c.Name
	}
	return o
}

// list makes the sorted list once and lets go of the arrays.
func (o *Objects) list() []object {
	if o.id == nil {
		return o.entries
	}
	// Counted first, so that the list is made once at its size (16 bytes an
	// object, for millions) instead of grown by copies.
	n := 0
	for _, s := range o.shallow {
		if s > 0 {
			n++
		}
	}
	o.entries = make([]object, 0, n)
	sorted := true
	for v, s := range o.shallow {
		if s > 0 {
			if k := len(o.entries); k > 0 && o.entries[k-1].id > o.id[v] {
				sorted = false
			}
			o.entries = append(o.entries, object{o.id[v], o.class[v], s})
		}
	}
	if !sorted {
		slices.SortStableFunc(o.entries, func(a, b object) int { return cmp.Compare(a.id, b.id) })
	}
	o.id, o.class, o.shallow = nil, nil, nil
	return o.entries
}

// ClassDiff is one class of a comparison: objects (by id) that appeared since
// the base snapshot and that disappeared, with their shallow sizes.
type ClassDiff struct {
	Name                   string
	Added, Removed         int64
	AddedSize, RemovedSize int64
}

// Diff compares base with next by object id, per class name, as DevTools'
// comparison view does. Classes with no change are left out; the result is
// sorted by class name.
func Diff(base, next *Objects) []ClassDiff {
	byName := map[string]*ClassDiff{}
	get := func(name string) *ClassDiff {
		d := byName[name]
		if d == nil {
			d = &ClassDiff{Name: name}
			byName[name] = d
		}
		return d
	}
	a, b := base.list(), next.list()
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].id < b[j].id):
			d := get(base.names[a[i].class])
			d.Removed++
			d.RemovedSize += int64(a[i].size)
			i++
		case i == len(a) || b[j].id < a[i].id:
			d := get(next.names[b[j].class])
			d.Added++
			d.AddedSize += int64(b[j].size)
			j++
		default:
			i++
			j++
		}
	}
	out := make([]ClassDiff, 0, len(byName))
	for _, d := range byName {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(x, y ClassDiff) int { return strings.Compare(x.Name, y.Name) })
	return out
}
