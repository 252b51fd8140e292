package traceevent

import (
	"slices"
	"testing"
	"tracestreamer/parser/traceevent/tracker"
)

func TestSliceOrder(t *testing.T) {
	tests := []struct {
		name  string
		max   int
		close []int64 // ids in closing order; -1 = flush
		want  []int64 // ids in writing order
	}{
		{"in order", 0, []int64{0, 1, 2}, []int64{0, 1, 2}},
		{"children first", 0, []int64{2, 1, 0, 3}, []int64{0, 1, 2, 3}},
		{"held until flush", 0, []int64{1, 2, -1}, []int64{1, 2}},
		// 0 stays open: beyond two held slices the lowest goes out, and 0
		// is written when it closes, out of order.
		{"long open slice", 2, []int64{1, 2, 3, 4, 0, 5}, []int64{1, 2, 3, 4, 0, 5}},
		{"gap then order", 1, []int64{2, 3, 1, 0, 4}, []int64{2, 3, 1, 0, 4}},
		// Ids far apart grow the ring; the held ones keep their order.
		{"wide", 0, []int64{5000, 2, 70000, 1, 0, -1}, []int64{0, 1, 2, 5000, 70000}},
		{"wide over the limit", 2, []int64{5000, 2, 70000, 1, 0, 3, -1}, []int64{2, 1, 0, 3, 5000, 70000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := sliceOrder{max: tt.max}
			var got []int64
			write := func(r *tracker.Slice) { got = append(got, r.ID) }
			for _, id := range tt.close {
				if id < 0 {
					o.flush(write)
					continue
				}
				o.push(&tracker.Slice{ID: id}, write)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("written %v, want %v", got, tt.want)
			}
		})
	}
}
