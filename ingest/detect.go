package ingest

import "tracestreamer/parser/htrace"

// format is an input format recognised by content.
type format int

const (
	formatUnknown format = iota
	formatHTrace
)

// detect recognises an input from its first bytes.
func detect(head []byte) format {
	if htrace.IsHTrace(head) {
		return formatHTrace
	}
	return formatUnknown
}
