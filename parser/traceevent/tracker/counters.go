package tracker

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"tracestreamer/parser/jsonscan"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/stat"
)

// NormaliseID gives the text form of an id value (docs/format/traceevent.md#ids-and-scopes): a string as it
// is (invalid UTF-8 replaced by U+FFFD), an integer as its decimal text, a float as its shortest round-trip text;
// ok is false for other JSON values.
func NormaliseID(raw []byte) (string, bool) {
	raw = event.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		s, ok := plainString(raw)
		if !ok {
			js := jsonscan.NewBytes(raw)
			b, err := js.ReadString(nil)
			s, ok = string(b), err == nil && js.AtEOF()
		}
		if !utf8.ValidString(s) { // stored as TEXT: valid UTF-8, as the element's strings (counted by event.Decode)
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		return s, ok
	case c == '-' || (c >= '0' && c <= '9'):
		if event.IsIntegerLiteral(raw) {
			return string(raw), true
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return "", false
		}
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// plainString returns the text of a JSON string with nothing after it and no
// escapes or control characters in it (the usual id, "0x1f"), as
// jsonscan's ReadString would, without its decoder (whose end-of-input
// check makes an error value); ok is false for anything else.
func plainString(raw []byte) (string, bool) {
	b, ok := plainBytes(raw)
	return string(b), ok
}

// plainBytes is plainString giving the text as the part of raw it is.
func plainBytes(raw []byte) ([]byte, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return nil, false
	}
	for _, c := range raw[1 : n-1] {
		if c == '"' || c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	return raw[1 : n-1], true
}

// ValidID reports whether NormaliseID accepts raw, without making its text
// for the usual ids.
func ValidID(raw []byte) bool {
	_, ok := idBytes(raw)
	return ok
}

// idBytes is NormaliseID giving the text as bytes: the part of raw it is
// for the usual ids (a plain string of valid UTF-8, an integer), without a
// copy; a copy of NormaliseID's text otherwise.
func idBytes(raw []byte) ([]byte, bool) {
	if t := event.TrimSpace(raw); len(t) > 0 {
		if b, ok := plainBytes(t); ok && utf8.Valid(b) {
			return b, true
		}
		if t[0] != '"' && event.IsIntegerLiteral(t) {
			return t, true
		}
	}
	s, ok := NormaliseID(raw)
	return []byte(s), ok
}

// CounterSample is one process_measure row.
type CounterSample struct {
	TS     int64
	Dur    int64
	HasDur bool // set when the series' next sample arrives
	Value  []byte
	Filter int // index into Counters.Filters (= filter id when counters own all ids)
}

// CounterFilter is one counter series of a process.
type CounterFilter struct {
	Name string
	Ipid int
}

// Counters builds process counter series from C events (docs/format/traceevent.md#counters).
type Counters struct {
	Filters []CounterFilter
	Samples []CounterSample

	stats Stats
	max   int // the most series kept (0: no bound); see Add
	byKey map[counterKey]int
	last  []int // by filter: index of its last sample
}

type counterKey struct {
	ipid int
	name string
}

// NewCounters returns an empty tracker that keeps at most maxSeries series
// (0: no bound).
func NewCounters(st Stats, maxSeries int) *Counters {
	return &Counters{stats: st, max: maxSeries, byKey: map[counterKey]int{}}
}

// Add handles a C event of process ipid: json_counter not_supported for each
// member that is not a number, invalid_data for an event without (usable)
// args, data_lost for each sample of a new series beyond the bound, which is
// dropped (the series it would start is not made).
func (c *Counters) Add(ipid int, ev *event.Event) {
	if ev.Args == nil {
		c.stats.Add(stat.JSONCounter, stat.InvalidData, 1, ev.Offset)
		return
	}
	prefix := ev.Name
	if ev.ID != nil {
		if id, ok := NormaliseID(ev.ID); ok {
			prefix += " id: " + id
		}
	}
	js := jsonscan.NewBytes(ev.Args)
	members := 0
	err := js.Object(func(k []byte) error {
		members++
		start := js.Offset()
		if err := js.SkipValue(); err != nil {
			return err
		}
		raw := event.TrimSpace(ev.Args[start:js.Offset()])
		val, ok := counterValue(raw)
		if !ok {
			c.stats.Add(stat.JSONCounter, stat.NotSupported, 1, ev.Offset)
			return nil
		}
		member := string(k)
		if !utf8.Valid(k) { // a series name is TEXT: valid UTF-8, as the args' keys
			member = strings.ToValidUTF8(member, "\uFFFD")
			c.stats.Add(stat.JSONString, stat.InvalidData, 1, ev.Offset)
		}
		key := counterKey{ipid, prefix + " " + member}
		f, ok := c.byKey[key]
		switch {
		case ok:
			prev := c.last[f]
			c.Samples[prev].Dur, c.Samples[prev].HasDur = ev.TS.NS-c.Samples[prev].TS, true
			c.last[f] = len(c.Samples)
		case c.max > 0 && len(c.Filters) >= c.max:
			// Each series costs memory until the end of the run.
			c.stats.Add(stat.JSONCounter, stat.DataLost, 1, ev.Offset)
			return nil
		default:
			f = len(c.Filters)
			c.Filters = append(c.Filters, CounterFilter{Name: key.name, Ipid: ipid})
			c.byKey[key] = f
			c.last = append(c.last, len(c.Samples))
		}
		c.Samples = append(c.Samples, CounterSample{TS: ev.TS.NS, Value: cloneBytes(val), Filter: f})
		return nil
	})
	if err != nil || members == 0 {
		c.stats.Add(stat.JSONCounter, stat.InvalidData, 1, ev.Offset)
	}
}

// counterValue accepts a JSON number or a numeric string (docs/format/traceevent.md#numbers-given-as-strings).
func counterValue(raw []byte) ([]byte, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	if raw[0] == '"' {
		b, err := jsonscan.NewBytes(raw).ReadString(nil)
		if err != nil {
			return nil, false
		}
		if _, ok := jsonscan.ScaleDecimal(b, 0); !ok {
			return nil, false
		}
		return b, true
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		return append([]byte(nil), raw...), true
	}
	return nil, false
}
