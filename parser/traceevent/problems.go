package traceevent

import (
	"fmt"

	"tracestreamer/stat"
)

// problems counts stat cells of one input with the lowest byte offset of
// each cell's occurrences, for the stderr report (docs/format/stat.md#warnings-on-stderr).
type problems struct {
	cells map[cellKey]*cell
}

type cellKey struct {
	event stat.Event
	typ   stat.Type
}

type cell struct {
	n     int64
	first int64
	note  string
}

func (p *problems) init() { p.cells = map[cellKey]*cell{} }

// Add counts n (if positive) occurrences at offset off.
func (p *problems) Add(event stat.Event, typ stat.Type, n, off int64) {
	if n <= 0 {
		return
	}
	k := cellKey{event, typ}
	c := p.cells[k]
	if c == nil {
		c = &cell{first: off}
		p.cells[k] = c
	} else if off >= 0 && (c.first < 0 || off < c.first) {
		// Not all counts come in input order (the top-level members'
		// come after the events'); -1 only when no count has an offset.
		c.first = off
	}
	c.n += n
}

// note attaches a message to a cell, printed with it.
func (p *problems) note(event stat.Event, typ stat.Type, msg string) {
	if c := p.cells[cellKey{event, typ}]; c != nil && c.note == "" {
		c.note = msg
	}
}

// flush moves the counts into log, printing one warning per problem cell
// (not for received counts), in the table's order, and starts over.
// first < 0 means "at the end of input".
func (p *problems) flush(log *stat.Log, where string) {
	for _, event := range stat.Events() {
		for _, typ := range stat.Types() {
			c := p.cells[cellKey{event, typ}]
			if c == nil {
				continue
			}
			if typ == stat.Received {
				log.Add(event, typ, c.n)
				continue
			}
			at := fmt.Sprintf("first at byte %d", c.first)
			if c.first < 0 {
				at = "at the end of input"
			}
			msg := fmt.Sprintf("%s %s: %d (%s)", event, typ, c.n, at)
			if c.note != "" {
				msg += ": " + c.note
			}
			log.Report(event, typ, c.n, where, msg)
		}
	}
	p.init()
}
