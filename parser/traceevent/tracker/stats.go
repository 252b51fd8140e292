package tracker

import "tracestreamer/stat"

// Stats receives what the trackers count, as they find it: n items of the
// stat cell (event, type), the first of them at byte offset off of the input
// (−1: at the end of the input). The importer collects the cells per input
// and moves them to the run's stat table; trackers only name the cell.
type Stats interface {
	Add(e stat.Event, t stat.Type, n, off int64)
}
