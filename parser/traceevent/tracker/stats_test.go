package tracker

import (
	"maps"

	"tracestreamer/stat"
)

// cells records what trackers count, by "event/type" (first offsets are the
// importer's business and tested there).
type cells map[string]int64

func (c cells) Add(e stat.Event, t stat.Type, n, _ int64) {
	if n > 0 {
		c[e.String()+"/"+t.String()] += n
	}
}

// equal compares two records, nil and empty alike.
func (c cells) equal(d cells) bool { return maps.Equal(c, d) }
