package ingest

import (
	"context"
	"fmt"
	"slices"
	"strconv"

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
//
// Where the store builds the tables' b-trees itself (every run but the
// tests' InsertOnly), it reads the arrows and changes the slices' rows in
// its trees (store.DB.ScanInts, UpdateTexts) before SQLite opens the file
// again; otherwise SQL does it (schema.FlowArrows, schema.SetFlowChain),
// with the same result.
func (r *run) linkFlowChains(ctx context.Context) error {
	arrows, err := r.flowArrows(ctx)
	if err != nil {
		return fmt.Errorf("reading the flow arrows: %w", err)
	}
	spans := flowchains.Link(arrows)
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(spans) == 0 {
		return nil // no slice to change (Commit still merges callstack's late rows)
	}
	cs := r.tables.Callstack
	rowids := make([]int64, len(spans))
	for i, s := range spans {
		rowids[i] = s.Slice + 1 // callstack's rowid is its id + 1
	}
	done, err := r.db.UpdateTexts(ctx, cs, []int{column(cs, "chainId"), column(cs, "spanId"), column(cs, "parentSpanId")},
		rowids, func(k int, texts []string) {
			s := spans[k]
			texts[0], texts[1], texts[2] = strconv.FormatInt(s.Chain, 10), strconv.FormatInt(s.Slice, 10), ""
			if s.HasParent {
				texts[2] = strconv.FormatInt(s.Parent, 10)
			}
		})
	if done || err != nil {
		return err
	}
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

// flowArrows returns the arrows of table flow between two slices (id,
// slice_out, slice_in where slice_in != slice_out).
func (r *run) flowArrows(ctx context.Context) ([]flowchains.Arrow, error) {
	arrows := make([]flowchains.Arrow, 0, r.db.Count(r.tables.Flow))
	f := r.tables.Flow
	done, err := r.db.ScanInts(f, []int{column(f, "id"), column(f, "slice_out"), column(f, "slice_in")},
		func(v []int64) error {
			if len(arrows)%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if v[1] != v[2] {
				arrows = append(arrows, flowchains.Arrow{ID: v[0], Out: v[1], In: v[2]})
			}
			return nil
		})
	if done || err != nil {
		return arrows, err
	}
	q, err := r.db.Query(schema.FlowArrows)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	for q.Next() {
		if len(arrows)%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		arrows = append(arrows, flowchains.Arrow{ID: q.Int(0), Out: q.Int(1), In: q.Int(2)})
	}
	return arrows, q.Err()
}

// column returns the index of t's column name; a name t does not have is a
// bug.
func column(t *schema.Table, name string) int {
	i := slices.IndexFunc(t.Columns, func(c schema.Column) bool { return c.Name == name })
	if i < 0 {
		panic(fmt.Sprintf("table %s has no column %s", t.Name, name))
	}
	return i
}
