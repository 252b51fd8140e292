package heapgraph

import "strings"

// className is DevTools' class of a node, from its type and name: "(system)"
// for hidden nodes, the name for objects and native objects (an HTML-like name
// "<div id=…>" cut to "<div>"), "(compiled code)", "Function", "RegExp", and
// "(type)" for everything else.
func (g *Graph) className(t *types, v int, detached bool) string {
	switch typ := int(g.Type[v]); typ {
	case t.hidden:
		return "(system)"
	case t.object, t.native:
		name := g.str(g.Name[v])
		if detached {
			name = "Detached " + name
		}
		if strings.HasPrefix(name, "<") {
			if i := strings.IndexByte(name, ' '); i >= 0 {
				return name[:i] + ">"
			}
		} else if strings.HasPrefix(name, "Detached <") {
			if i := strings.IndexByte(name[10:], ' '); i >= 0 {
				return name[:10+i] + ">"
			}
		}
		return name
	case t.code:
		return "(compiled code)"
	case t.closure:
		return "Function"
	case t.regexp:
		return "RegExp"
	default:
		name := "unknown"
		if typ < len(g.NodeTypes) {
			name = g.NodeTypes[typ]
		}
		return "(" + name + ")"
	}
}

// classIDs gives every node its class (plain objects matching an inferred
// interface get its "{a, b}" name), numbered in the order of their first node.
func (g *Graph) classIDs(t *types, detachedName bitset, ifaces *ifaceNames) ([]uint32, []Class) {
	n := g.NodeCount()
	byName := map[string]uint32{}
	var classes []Class
	classOf := func(name string) uint32 {
		id, ok := byName[name]
		if !ok {
			id = uint32(len(classes))
			name = strings.Clone(name) // not the string table's memory
			byName[name] = id
			classes = append(classes, Class{Name: name, MinDistance: 1<<31 - 1})
		}
		return id
	}
	// A node's class name depends only on its type, its name (for objects
	// and native objects) and whether it is renamed detached: it is made
	// once per such key rather than once per node, and found again by index
	// (ids plus one; 0: not made yet). 5 M nodes: 0.16 s → 0.05 s.
	var byType [256]uint32
	var byName2 [2][2][]uint32 // [native][detached][name]
	class := make([]uint32, n)
	next := 0 // the next entry of ifaces
	for v := 0; v < n; v++ {
		if ifaces != nil && next < len(ifaces.node) && ifaces.node[next] == uint32(v) {
			class[v] = classOf(ifaces.names[ifaces.def[next]])
			next++
			continue
		}
		typ := int(g.Type[v])
		var slot *uint32
		detached := false
		if typ == t.object || typ == t.native {
			detached = detachedName != nil && detachedName.has(uint32(v))
			native, det := 0, 0
			if typ == t.native {
				native = 1
			}
			if detached {
				det = 1
			}
			if name := g.Name[v]; int(name) < g.Strings.Len() {
				m := &byName2[native][det]
				if *m == nil {
					*m = make([]uint32, g.Strings.Len())
				}
				slot = &(*m)[name]
			}
		} else {
			slot = &byType[typ]
		}
		if slot == nil { // a name outside the string table
			class[v] = classOf(g.className(t, v, detached))
			continue
		}
		if *slot == 0 {
			*slot = classOf(g.className(t, v, detached)) + 1
		}
		class[v] = *slot - 1
	}
	return class, classes
}

// classSizes sums, per class, the objects with a non-zero shallow size: count,
// shallow size and smallest distance.
func (g *Graph) classSizes(r *Result) {
	classes := r.Classes
	for v, id := range r.Class {
		if r.Shallow[v] == 0 {
			continue
		}
		c := &classes[id]
		c.Count++
		c.Shallow += int64(r.Shallow[v])
		c.MinDistance = min(c.MinDistance, r.Distance[v])
	}
	for i := range classes {
		if classes[i].Count == 0 {
			classes[i].MinDistance = NoDistance
		}
	}
}

// classRetained adds to each class the retained size of its objects, counted
// once along every dominator path (an object below another of the same class
// adds nothing), as DevTools' summary view does.
func (g *Graph) classRetained(r *Result) {
	n := g.NodeCount()
	class, classes := r.Class, r.Classes
	// Children lists of the dominator tree, in ordinal order: counts summed
	// into the end of each list, then filled backwards, which leaves
	// childStart at the starts (no array of fill positions).
	childStart := make([]uint32, n+1)
	for v := 0; v < n; v++ {
		if uint32(v) != g.Root {
			childStart[r.Dominator[v]]++
		}
	}
	for i := 1; i <= n; i++ {
		childStart[i] += childStart[i-1]
	}
	children := make([]uint32, childStart[n])
	for v := n - 1; v >= 0; v-- {
		if uint32(v) != g.Root {
			d := r.Dominator[v]
			childStart[d]--
			children[childStart[d]] = uint32(v)
		}
	}
	// Depth-first over the dominator tree; a class counts once per path.
	seen := make([]bool, len(classes))
	type frame struct{ v, next uint32 }
	stack := []frame{{g.Root, childStart[g.Root]}}
	enter := func(v uint32) bool { // reports whether v marked its class
		c := class[v]
		if seen[c] || r.Shallow[v] == 0 {
			return false
		}
		classes[c].Retained += r.Retained[v]
		if childStart[v] == childStart[v+1] {
			return false
		}
		seen[c] = true
		return true
	}
	marked := []bool{enter(g.Root)}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == childStart[top.v+1] {
			if marked[len(marked)-1] {
				seen[class[top.v]] = false
			}
			stack = stack[:len(stack)-1]
			marked = marked[:len(marked)-1]
			continue
		}
		w := children[top.next]
		top.next++
		marked = append(marked, enter(w))
		stack = append(stack, frame{w, childStart[w]})
	}
}
