package traceevent

import (
	"fmt"

	"tracestreamer/stat"
)

// problems counts stat cells of one input with the lowest byte offset of
// each cell's occurrences, for the stderr report (docs/format/stat.md#warnings-on-stderr).
// Cells are kept in a slice indexed by event and type, grown to the highest
// cell counted: two or more are counted per event, and a map lookup each was
// 2 % of the import's CPU.
type problems struct {
	cells []cell // by cellIndex; a cell with n == 0 was not counted
}

type cell struct {
	n     int64
	first int64
	note  string
}

// typeBits is the width of a stat.Type in a cell's index.
const typeBits = 3

func cellIndex(event stat.Event, typ stat.Type) int { return int(event)<<typeBits | int(typ) }

func (p *problems) init() { p.cells = p.cells[:0] }

// cell returns the cell of event and typ, nil if it was not counted.
func (p *problems) cell(event stat.Event, typ stat.Type) *cell {
	if i := cellIndex(event, typ); i < len(p.cells) && p.cells[i].n > 0 {
		return &p.cells[i]
	}
	return nil
}

// counted returns the number of cells counted.
func (p *problems) counted() int {
	n := 0
	for i := range p.cells {
		if p.cells[i].n > 0 {
			n++
		}
	}
	return n
}

// Add counts n (if positive) occurrences at offset off.
func (p *problems) Add(event stat.Event, typ stat.Type, n, off int64) {
	if n <= 0 {
		return
	}
	i := cellIndex(event, typ)
	if i >= len(p.cells) {
		p.cells = append(p.cells, make([]cell, i+1-len(p.cells))...)
	}
	c := &p.cells[i]
	if c.n == 0 {
		*c = cell{first: off}
	} else if off >= 0 && (c.first < 0 || off < c.first) {
		// Not all counts come in input order (the top-level members'
		// come after the events'); -1 only when no count has an offset.
		c.first = off
	}
	c.n += n
}

// note attaches a message to a cell, printed with it.
func (p *problems) note(event stat.Event, typ stat.Type, msg string) {
	if c := p.cell(event, typ); c != nil && c.note == "" {
		c.note = msg
	}
}

// flush moves the counts into log, printing one warning per problem cell
// (not for received counts), in the table's order, and starts over.
// first < 0 means "at the end of input".
func (p *problems) flush(log *stat.Log, where string) {
	for _, event := range stat.Events() {
		for _, typ := range stat.Types() {
			c := p.cell(event, typ)
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
