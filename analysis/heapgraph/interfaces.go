package heapgraph

import (
	"sort"
	"strings"
	"unicode/utf16"
)

// DevTools names plain JavaScript objects (type object, name "Object") after
// their properties, "{a, b, c}", when enough objects share a shape. These are
// its limits.
const (
	minInterfacePropertyCount   = 1
	maxInterfaceNameLength      = 120 // UTF-16 code units
	minObjectCountPerInterface  = 2
	minObjectProportionPerShape = 1000 // an interface covers ≥ 1/1000 of the plain objects
)

type iface struct {
	name  string
	props []string
	count int
}

// jsLen is the length of s in UTF-16 code units, as JavaScript counts.
func jsLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return len(utf16.Encode([]rune(s)))
}

// sortJS sorts strings in JavaScript's order.
func sortJS(a []string) {
	for _, s := range a {
		if !isASCII(s) {
			sort.SliceStable(a, func(i, j int) bool { return jsLess(a[i], a[j]) })
			return
		}
	}
	sort.Strings(a)
}

// jsLess compares strings as JavaScript does: by UTF-16 code units.
func jsLess(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// formatPropertyName quotes a property name that contains a comma, a quote or
// a brace, the way JSON.stringify would.
func formatPropertyName(name string) string {
	if !strings.ContainsAny(name, `,'"{}`) {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range name {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				const hex = "0123456789abcdef"
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// stringIndex returns the index of s in the string table (NoNode if absent):
// every "Object" name refers to the same string index in V8 snapshots.
func (g *Graph) stringIndex(s string) uint32 {
	for i := range uint32(g.Strings.Len()) {
		if g.Strings.At(i) == s {
			return i
		}
	}
	return NoNode
}

// inferInterfaces finds the common shapes of plain objects: each object's
// properties in order (up to a name length), the shapes ordered by how many
// objects have them.
func (g *Graph) inferInterfaces(t *types) []iface {
	byName := map[string]int{}
	var cands []iface
	total := 0
	objectName := g.stringIndex("Object")
	var name []byte
	var props []string
	for v := range g.NodeCount() {
		if int(g.Type[v]) != t.object || g.Name[v] != objectName {
			continue
		}
		total++
		name = append(name[:0], '{')
		nameLen := 1
		props = props[:0]
		for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
			if int(g.EdgeType[e]) != t.eProperty {
				continue
			}
			prop := g.str(g.EdgeName[e])
			if prop == "__proto__" {
				continue
			}
			f := formatPropertyName(prop)
			fl := jsLen(f)
			if nameLen > minInterfacePropertyCount && nameLen+fl > maxInterfaceNameLength {
				break
			}
			if nameLen != 1 {
				name = append(name, ", "...)
				nameLen += 2
			}
			name = append(name, f...)
			nameLen += fl
			props = append(props, prop)
		}
		if len(props) == 0 {
			continue
		}
		name = append(name, '}')
		if i, ok := byName[string(name)]; ok {
			cands[i].count++
		} else {
			byName[string(name)] = len(cands)
			cands = append(cands, iface{name: string(name), props: append([]string(nil), props...), count: 1})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].count > cands[j].count })
	minCount := max(float64(minObjectCountPerInterface), float64(total)/minObjectProportionPerShape)
	var out []iface
	for _, c := range cands {
		if float64(c.count) < minCount {
			break
		}
		out = append(out, c)
	}
	return out
}

type matchInfo struct {
	propertyCount int
	index         int
}

func betterMatch(a *matchInfo, b *matchInfo) *matchInfo {
	switch {
	case b == nil || a.propertyCount > b.propertyCount:
		return a
	case b.propertyCount > a.propertyCount:
		return b
	case a.index <= b.index:
		return a
	}
	return b
}

type propNode struct {
	next     map[string]*propNode
	match    *matchInfo
	greatest string
	hasNext  bool
}

// ifaceNames lists the plain objects whose properties match an inferred
// interface, in node order, with the interface's name: two parallel arrays
// (8 B an object) instead of a map (about 50 B an entry; 800 000 objects in
// the benchmark snapshot).
type ifaceNames struct {
	node  []uint32 // ascending
	def   []uint32 // index into names
	names []string
}

// interfaceClasses returns, for every plain object whose properties match an
// inferred interface, that interface's name (others keep the class "Object").
func (g *Graph) interfaceClasses(t *types) *ifaceNames {
	defs := g.inferInterfaces(t)
	if len(defs) == 0 {
		return nil
	}
	out := &ifaceNames{names: make([]string, len(defs))}
	for i, d := range defs {
		out.names[i] = d.name
	}
	root := &propNode{next: map[string]*propNode{}}
	for i, d := range defs {
		props := append([]string(nil), d.props...)
		sortJS(props)
		cur := root
		for _, p := range props {
			nx := cur.next[p]
			if nx == nil {
				nx = &propNode{next: map[string]*propNode{}}
				cur.next[p] = nx
				if !cur.hasNext || jsLess(cur.greatest, p) {
					cur.greatest, cur.hasNext = p, true
				}
			}
			cur = nx
		}
		if cur.match == nil {
			cur.match = &matchInfo{propertyCount: len(props), index: i}
		}
	}
	initial := &matchInfo{index: int(^uint(0) >> 1)} // no interface: the class stays "Object"
	var props []string
	var states, kept []*propNode
	objectName := g.stringIndex("Object")
	for v := range g.NodeCount() {
		if int(g.Type[v]) != t.object || g.Name[v] != objectName {
			continue
		}
		props = props[:0]
		for e := g.FirstEdge[v]; e < g.FirstEdge[v+1]; e++ {
			if int(g.EdgeType[e]) == t.eProperty {
				props = append(props, g.str(g.EdgeName[e]))
			}
		}
		sortJS(props)
		states = append(states[:0], root)
		match := betterMatch(initial, root.match)
		for _, p := range props {
			kept = kept[:0]
			add := func(s *propNode) {
				for _, k := range kept {
					if k == s {
						return
					}
				}
				kept = append(kept, s)
			}
			for _, s := range states {
				if s.hasNext && !(p == s.greatest || jsLess(s.greatest, p)) {
					add(s) // more transitions are possible from s
				}
				if nx := s.next[p]; nx != nil {
					add(nx)
					match = betterMatch(match, nx.match)
				}
			}
			states, kept = kept, states
			if len(states) == 0 {
				break
			}
		}
		if match != initial {
			out.node = append(out.node, uint32(v))
			out.def = append(out.def, uint32(match.index))
		}
	}
	return out
}
