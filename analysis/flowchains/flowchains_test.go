package flowchains

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"tracestreamer/internal/testutil"
)

func TestLink(t *testing.T) {
	span := func(slice, chain, parent int64) Span { // parent -1: none
		if parent < 0 {
			return Span{Slice: slice, Chain: chain}
		}
		return Span{Slice: slice, Chain: chain, Parent: parent, HasParent: true}
	}
	tests := []struct {
		name   string
		arrows []Arrow
		want   []Span
	}{
		{"none", nil, nil},
		{"only to itself", []Arrow{{0, 5, 5}}, nil},
		{"one arrow", []Arrow{{0, 3, 7}}, []Span{span(3, 3, -1), span(7, 3, 3)}},
		{
			"a chain of three, given out of order",
			[]Arrow{{1, 7, 9}, {0, 3, 7}},
			[]Span{span(3, 3, -1), span(7, 3, 3), span(9, 3, 7)},
		},
		{
			// 9's first arrow is the one of the lowest id, not the first
			// given; the other one links nothing.
			"two arrows into one slice",
			[]Arrow{{4, 2, 9}, {1, 5, 9}},
			[]Span{span(5, 5, -1), span(9, 5, 5)},
		},
		{
			// 4's arrow is not the first into 3: 4 is not linked.
			"fan in and fan out",
			[]Arrow{{0, 1, 2}, {1, 1, 3}, {2, 4, 3}},
			[]Span{span(1, 1, -1), span(2, 1, 1), span(3, 1, 1)},
		},
		{
			"a self arrow beside a real one",
			[]Arrow{{0, 8, 8}, {1, 6, 8}},
			[]Span{span(6, 6, -1), span(8, 6, 6)},
		},
		{
			// Round a cycle of two: 16 steps from 10 end on 10, from 11 on 11.
			"a cycle",
			[]Arrow{{0, 10, 11}, {1, 11, 10}},
			[]Span{span(10, 10, 11), span(11, 11, 10)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Link(slices.Clone(tt.arrows)); !slices.Equal(got, tt.want) {
				t.Errorf("Link(%v) =\n%v\nwant\n%v", tt.arrows, got, tt.want)
			}
		})
	}
}

// TestLinkStopsAfterMaxUp: along a chain of 20 slices, the chain of each
// slice is the slice MaxUp arrows back, or the first.
func TestLinkStopsAfterMaxUp(t *testing.T) {
	var arrows []Arrow
	for i := range int64(19) {
		arrows = append(arrows, Arrow{ID: i, Out: 100 + i, In: 101 + i})
	}
	got := Link(arrows)
	if len(got) != 20 {
		t.Fatalf("%d spans, want 20", len(got))
	}
	for i, s := range got {
		want := Span{Slice: int64(100 + i), Chain: int64(100 + max(0, i-MaxUp)), Parent: int64(99 + i), HasParent: i > 0}
		if i == 0 {
			want.Parent = 0
		}
		if s != want {
			t.Errorf("span %d = %+v, want %+v", i, s, want)
		}
	}
}

// chainsSQL is the recursive statement Link replaced, as it stood in
// schema.FlowChains: it is the definition Link must keep.
const chainsSQL = `WITH RECURSIVE
  edge(slice, parent, first) AS (
    SELECT slice_in, slice_out, min(id) FROM flow WHERE slice_in != slice_out GROUP BY slice_in),
  member(slice) AS (SELECT slice FROM edge UNION SELECT parent FROM edge),
  up(slice, node, n) AS (
    SELECT slice, slice, 0 FROM member
    UNION ALL
    SELECT up.slice, edge.parent, up.n + 1 FROM up JOIN edge ON edge.slice = up.node WHERE up.n < 16),
  root(slice, chain, n) AS (SELECT slice, node, max(n) FROM up GROUP BY slice)
SELECT root.slice, root.chain, edge.parent FROM root LEFT JOIN edge ON edge.slice = root.slice ORDER BY root.slice`

// TestLinkAgreesWithSQL compares Link with the statement it replaced on
// random arrows among few slices, so that fans, repeats, self arrows and
// cycles all occur; a third of the rounds add a straight chain of 17 to 40
// slices. Slices and ids are spread over the whole int64 range, negative and
// near its ends included; ids are unique, as in a flow table.
func TestLinkAgreesWithSQL(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE flow(id INT, slice_out INT, slice_in INT)`); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 400 {
		// The slices: a few from all over the int64 range, in order.
		pool := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1}
		for range 2 + rng.IntN(40) {
			pool = append(pool, rng.Int64()-math.MaxInt64/2*int64(rng.IntN(3)))
		}
		slices.Sort(pool)
		pool = slices.Compact(pool)
		var arrows []Arrow
		for range rng.IntN(60) {
			a := Arrow{Out: pool[rng.IntN(len(pool))], In: pool[rng.IntN(len(pool))]}
			if k := rng.IntN(len(pool) - 1); rng.IntN(4) == 0 { // a step along the slices' order
				a.Out, a.In = pool[k], pool[k+1]
			}
			arrows = append(arrows, a)
		}
		if round%3 == 0 {
			start := rng.IntN(len(pool))
			for k := range 17 + rng.IntN(24) {
				arrows = append(arrows, Arrow{Out: pool[(start+k)%len(pool)], In: pool[(start+k+1)%len(pool)]})
			}
		}
		// Unique ids, in any order and of any sign.
		seen := map[int64]bool{}
		for i := range arrows {
			for {
				id := rng.Int64() - math.MaxInt64/2
				if rng.IntN(3) == 0 {
					id = int64(rng.IntN(1000))
				}
				if !seen[id] {
					seen[id], arrows[i].ID = true, id
					break
				}
			}
		}
		var values []string
		for _, a := range arrows {
			values = append(values, fmt.Sprintf("(%d,%d,%d)", a.ID, a.Out, a.In))
		}
		if _, err := db.Exec(`DELETE FROM flow`); err != nil {
			t.Fatal(err)
		}
		if len(values) > 0 {
			if _, err := db.Exec(`INSERT INTO flow VALUES ` + strings.Join(values, ",")); err != nil {
				t.Fatal(err)
			}
		}
		want := querySpans(t, db)
		got := Link(slices.Clone(arrows))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, arrows %v:\nLink %v\nSQL  %v", round, arrows, got, want)
		}
	}
}

// querySpans runs chainsSQL and returns its rows as spans.
func querySpans(t *testing.T, db *sql.DB) []Span {
	t.Helper()
	_, rows := testutil.Values(t, db, chainsSQL)
	var spans []Span
	for _, v := range rows {
		s := Span{Slice: v[0].(int64), Chain: v[1].(int64)}
		s.Parent, s.HasParent = v[2].(int64)
		spans = append(spans, s)
	}
	return spans
}
