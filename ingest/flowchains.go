package ingest

import (
	"context"
	"fmt"

	"tracestreamer/analysis/flowchains"
	"tracestreamer/schema"
)

// linkFlowChains fills callstack's HiTrace columns of every slice a flow
// arrow links (analysis/flowchains), once the callstack and flow rows are
// written: chainId is the first slice of the chain, spanId the slice's id,
// parentSpanId the slice its first arrow comes from (empty at the start of a
// chain). The arrows are read back from the flow table, so that they are the
// rows the database holds; they take 24 bytes each while the chains are
// linked.
func (r *run) linkFlowChains(ctx context.Context) error {
	arrows := make([]flowchains.Arrow, 0, r.db.Count(r.tables.Flow))
	q, err := r.db.Query(schema.FlowArrows)
	if err != nil {
		return fmt.Errorf("reading the flow arrows: %w", err)
	}
	defer q.Close()
	for q.Next() {
		if len(arrows)%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		arrows = append(arrows, flowchains.Arrow{ID: q.Int(0), Out: q.Int(1), In: q.Int(2)})
	}
	if err := q.Err(); err != nil {
		return fmt.Errorf("reading the flow arrows: %w", err)
	}
	spans := flowchains.Link(arrows)
	// One UPDATE by rowid a slice, in rowid order: each page of callstack is
	// changed once, one after the other.
	st, err := r.db.Prepare(schema.SetFlowChain)
	if err != nil {
		return fmt.Errorf("preparing the update of linked slices: %w", err)
	}
	defer st.Close()
	for i, s := range spans {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var parent any
		if s.HasParent {
			parent = s.Parent
		}
		if err := st.Run(s.Chain, parent, s.Slice); err != nil {
			return fmt.Errorf("slice %d: %w", s.Slice, err)
		}
	}
	return nil
}
