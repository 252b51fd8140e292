package tracker

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
)

// MemoryDump is one memory_dump row (docs/format/traceevent.md#memory-dumps).
type MemoryDump struct {
	ID            int
	DumpID        string
	Kind          string // "process" (v) or "global" (V)
	TS            int64
	Ipid, Itid    int
	LevelOfDetail string
	ExtraJSON     []byte // members of args.dumps not decoded (a JSON object), nil if none
	Args          []byte // args other than dumps
}

// MemoryDumpValue is one memory_dump_value row.
type MemoryDumpValue struct {
	ID, DumpID int
	Source     string // "allocator" or "process_totals"
	Path       string
	HasPath    bool
	GUID       string
	Attr, Type string
	Units      string
	Int        int64
	HasInt     bool
	Str        string
	HasStr     bool
}

// MemoryDumpEdge is one memory_dump_edge row.
type MemoryDumpEdge struct {
	ID, DumpID     int
	Source, Target string
	Importance     int64
	Type           string
}

// MemoryDumps collects v and V events.
type MemoryDumps struct {
	dumps  made[MemoryDump]
	values made[MemoryDumpValue]
	edges  made[MemoryDumpEdge]
	stats  Stats
}

// NewMemoryDumps returns an empty tracker.
func NewMemoryDumps(st Stats) *MemoryDumps { return &MemoryDumps{stats: st} }

// MemoryDumpRows are the rows of the dumps made since the last Take.
type MemoryDumpRows struct {
	Dumps  []MemoryDump
	Values []MemoryDumpValue
	Edges  []MemoryDumpEdge
}

// Pending reports whether Take has rows to hand over (see Flows.Pending).
func (m *MemoryDumps) Pending() bool {
	return m.dumps.pending() || m.values.pending() || m.edges.pending()
}

// Take hands over the rows made since the last call (valid until the next
// event) and forgets them.
func (m *MemoryDumps) Take() MemoryDumpRows {
	return MemoryDumpRows{Dumps: m.dumps.take(), Values: m.values.take(), Edges: m.edges.take()}
}

// Add handles a v or V event. It reports false for a v without id or dumps,
// which is dropped.
func (m *MemoryDumps) Add(ipid, itid int, ev *event.Event) bool {
	id, _ := NormaliseID(ev.ID)
	d := MemoryDump{ID: m.dumps.next(), DumpID: id, Kind: "global", TS: ev.TS.NS, Ipid: ipid, Itid: itid}
	if ev.Ph == 'V' {
		d.Args = ev.Args
		m.dumps.add(d)
		return true
	}
	dumps, ok := event.ArgRaw(ev.Args, "dumps")
	if ev.ID == nil || !ok {
		return false
	}
	d.Kind = "process"
	d.Args = withoutMember(ev.Args, "dumps")
	// The texts of args.dumps are not among the args kept: counted here.
	c := textCount{m.stats, ev.Offset}
	extra := []byte{'{'}
	js := jsonscan.NewBytes(dumps)
	names := keys{c: c, js: js}
	js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		raw := event.TrimSpace(dumps[start:js.Offset()])
		switch name := names.text(k); name {
		case "level_of_detail":
			d.LevelOfDetail, _ = event.StringValue(raw)
			c.decoded(d.LevelOfDetail, raw)
		case "process_totals":
			m.totals(d.ID, raw, c)
		case "allocators":
			m.allocators(d.ID, raw, c)
		case "allocators_graph":
			m.graph(d.ID, raw, c)
		default:
			if len(extra) > 1 {
				extra = append(extra, ',')
			}
			extra = jsonscan.AppendString(extra, []byte(name))
			extra = append(extra, ':')
			if !utf8.Valid(raw) {
				c.add(true)
				raw = []byte(strings.ToValidUTF8(string(raw), "\uFFFD"))
			}
			extra = append(extra, raw...)
		}
		return nil
	})
	if len(extra) > 1 {
		d.ExtraJSON = append(extra, '}')
	}
	m.dumps.add(d)
	return true
}

// hexValue decodes a memory-dump scalar: a hexadecimal string, a number, or
// a boolean (0/1).
func hexValue(raw []byte) (int64, bool) {
	switch {
	case len(raw) == 0:
		return 0, false
	case raw[0] == '"':
		s, ok := event.StringValue(raw)
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseUint(s, 16, 64)
		return int64(v), err == nil
	case string(raw) == "true":
		return 1, true
	case string(raw) == "false":
		return 0, true
	}
	return parseInt(raw)
}

func (m *MemoryDumps) totals(dump int, raw []byte, c textCount) {
	js := jsonscan.NewBytes(raw)
	names := keys{c: c, js: js}
	js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		v := MemoryDumpValue{ID: m.values.next(), DumpID: dump, Source: "process_totals", Attr: names.text(k),
			Type: "scalar", Units: "bytes"}
		v.Int, v.HasInt = hexValue(event.TrimSpace(raw[start:js.Offset()]))
		m.values.add(v)
		return nil
	})
}

func (m *MemoryDumps) allocators(dump int, raw []byte, c textCount) {
	js := jsonscan.NewBytes(raw)
	names := keys{c: c, js: js}
	js.Object(func(name []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		alloc := event.TrimSpace(raw[start:js.Offset()])
		path := names.text(name)
		guid, _ := c.member(alloc, "guid")
		if attrs, ok := event.ArgRaw(alloc, "attrs"); ok {
			ajs := jsonscan.NewBytes(attrs)
			attrNames := keys{c: c, js: ajs}
			ajs.Object(func(attr []byte) error {
				s := ajs.Offset()
				if err := ajs.SkipValue(); err != nil {
					return err
				}
				a := event.TrimSpace(attrs[s:ajs.Offset()])
				v := MemoryDumpValue{ID: m.values.next(), DumpID: dump, Source: "allocator", Path: path, HasPath: true,
					GUID: guid, Attr: attrNames.text(attr)}
				v.Type, _ = c.member(a, "type")
				v.Units, _ = c.member(a, "units")
				if val, ok := event.ArgRaw(a, "value"); ok {
					if v.Type == "string" {
						v.Str, v.HasStr = event.StringValue(val)
						c.decoded(v.Str, val)
					} else {
						v.Int, v.HasInt = hexValue(val)
					}
				}
				m.values.add(v)
				return nil
			})
		}
		if f, ok := event.ArgRaw(alloc, "flags"); ok {
			v := MemoryDumpValue{ID: m.values.next(), DumpID: dump, Source: "allocator", Path: path, HasPath: true,
				GUID: guid, Attr: "flags", Type: "scalar"}
			v.Int, v.HasInt = hexValue(f)
			m.values.add(v)
		}
		return nil
	})
}

func (m *MemoryDumps) graph(dump int, raw []byte, c textCount) {
	js := jsonscan.NewBytes(raw)
	js.Array(func(int) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		e := event.TrimSpace(raw[start:js.Offset()])
		edge := MemoryDumpEdge{ID: m.edges.next(), DumpID: dump}
		if v, ok := event.ArgRaw(e, "source"); ok {
			edge.Source, _ = NormaliseID(v)
			c.decoded(edge.Source, v)
		}
		if v, ok := event.ArgRaw(e, "target"); ok {
			edge.Target, _ = NormaliseID(v)
			c.decoded(edge.Target, v)
		}
		if v, ok := event.ArgRaw(e, "importance"); ok {
			edge.Importance, _ = parseInt(v)
		}
		edge.Type, _ = c.member(e, "type")
		m.edges.add(edge)
		return nil
	})
}

// withoutMember returns an object's raw JSON without one member (nil when
// nothing else is left).
func withoutMember(obj []byte, key string) []byte {
	out := []byte{'{'}
	js := jsonscan.NewBytes(obj)
	js.Object(func(k []byte) error {
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		if string(k) == key {
			return nil
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonscan.AppendString(out, k)
		out = append(out, ':')
		out = append(out, event.TrimSpace(obj[start:js.Offset()])...)
		return nil
	})
	if len(out) == 1 {
		return nil
	}
	return append(out, '}')
}
