package rows

import "tracestreamer/schema"

// Forker is a Sink that can write some tables on another goroutine than its
// own writer's: rows put into a side sink it forks are written as they are
// put, on the putting goroutine, in parallel with the rows the Forker is
// writing meanwhile, and join the Forker's tables when the side is joined.
// An analysis that produces millions of rows after its input was read uses
// it to keep the single writer of the main sink from doing both jobs in turn.
type Forker interface {
	Sink
	// Fork returns a side sink for the given tables (and only those).
	Fork(tables []*schema.Table) (Side, error)
}

// Side is a sink forked from a Forker. Put writes before it returns and may
// be slow; Mark and Rollback work within the side's own rows. Its rows must
// not carry explicit row ids (Batch.RowIDs): they take the next ones of the
// table they join.
type Side interface {
	Sink
	// Join hands the side's rows to the Forker: they follow every row put
	// into the Forker before Join and precede any put after. The side must
	// not be used afterwards.
	Join() error
	// Abort drops the side's rows. It may be called after a failed Join, and
	// more than once.
	Abort()
}
