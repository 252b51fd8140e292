package extsort

import "cmp"

// Key orders events for processing (docs/format/traceevent.md#event-order): by ts, then rank (0 for an E
// that is not glued to its B, 1 for X, 2 for everything else), then −dur for X
// (longer first), then position in the file.
type Key struct {
	TS     int64
	Rank   uint8
	DurKey int64
	Seq    int64
}

// Compare returns -1, 0 or 1 as a sorts before, with or after b.
func (a Key) Compare(b Key) int {
	switch {
	case a.TS != b.TS:
		return cmp.Compare(a.TS, b.TS)
	case a.Rank != b.Rank:
		return cmp.Compare(a.Rank, b.Rank)
	case a.DurKey != b.DurKey:
		return cmp.Compare(a.DurKey, b.DurKey)
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// Less reports whether a sorts before b.
func (a Key) Less(b Key) bool {
	switch {
	case a.TS != b.TS:
		return a.TS < b.TS
	case a.Rank != b.Rank:
		return a.Rank < b.Rank
	case a.DurKey != b.DurKey:
		return a.DurKey < b.DurKey
	}
	return a.Seq < b.Seq
}
