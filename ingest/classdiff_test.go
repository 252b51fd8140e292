package ingest

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// TestClassDiffAcrossInputs reads the three V1 dumps of one process
// (testdata/rawheap/v1-2026-leak-*), each its own input, and checks that
// consecutive heap files of the run are compared: the rows equal a
// comparison made here from the analysis' ids, shallow sizes and classes,
// and three classes have the counts and sizes found by matching the ids of
// their object nodes in the translator's snapshots of the dumps.
func TestClassDiffAcrossInputs(t *testing.T) {
	var in []string
	for _, f := range []string{"baseline", "target", "final"} {
		in = append(in, filepath.Join(testutil.Root(), "testdata/rawheap/v1-2026-leak-"+f+".rawheap.gz"))
	}
	out := filepath.Join(t.TempDir(), "leak.db")
	if _, err := Run(context.Background(), in, Options{Output: out, Warnings: &strings.Builder{}}); err != nil {
		t.Fatal(err)
	}
	db := testutil.OpenDB(t, out)
	const ours = `SELECT base_file_id, file_id, name, added_count, removed_count, count_delta, added_size, removed_size, size_delta
		FROM js_heap_class_diff ORDER BY 1, 2, 3`
	// The comparison made here: objects with a non-zero shallow size,
	// matched by id (unique within a file) between consecutive files.
	type obj struct {
		size int64
		name string
	}
	files := map[int64]map[int64]obj{}
	for _, r := range testutil.Query(t, db, `SELECT s.file_id, s.id, s.shallow_size, c.name FROM js_heap_node_stats s
		JOIN js_heap_class c USING (file_id, class_id) WHERE s.shallow_size > 0`) {
		var f, id, size int64
		var name string
		p := strings.SplitN(r, "|", 4)
		fmt.Sscan(p[0], &f)
		fmt.Sscan(p[1], &id)
		fmt.Sscan(p[2], &size)
		name = p[3]
		if files[f] == nil {
			files[f] = map[int64]obj{}
		}
		files[f][id] = obj{size, name}
	}
	type diff struct{ ak, rk, asz, rsz int64 }
	var want []string
	for n := int64(1); n < int64(len(files)); n++ {
		ds := map[string]*diff{}
		get := func(name string) *diff {
			if ds[name] == nil {
				ds[name] = &diff{}
			}
			return ds[name]
		}
		for id, o := range files[n] {
			if _, ok := files[n-1][id]; !ok {
				d := get(o.name)
				d.ak++
				d.asz += o.size
			}
		}
		for id, o := range files[n-1] {
			if _, ok := files[n][id]; !ok {
				d := get(o.name)
				d.rk++
				d.rsz += o.size
			}
		}
		for _, name := range slices.Sorted(maps.Keys(ds)) {
			d := ds[name]
			want = append(want, fmt.Sprintf("%d|%d|%s|%d|%d|%d|%d|%d|%d", n-1, n, name, d.ak, d.rk, d.ak-d.rk, d.asz, d.rsz, d.asz-d.rsz))
		}
	}
	if got := testutil.Query(t, db, ours); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("js_heap_class_diff:\n%s\nthe comparison made here:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct{ q, want string }{
		{`SELECT base_file_id, file_id, count(*), sum(added_count), sum(removed_count) FROM js_heap_class_diff
			GROUP BY 1, 2 ORDER BY 1, 2`, "0|1|25|1236|1117,1|2|11|575|572"},
		// Object nodes named so, with a non-zero self size, matched by id
		// between the translator's snapshots.
		{`SELECT base_file_id, file_id, name, added_count, removed_count, added_size, removed_size FROM js_heap_class_diff
			WHERE name IN ('TransientRecord', 'CacheEntry', 'RequestContext') ORDER BY 1, 3`,
			"0|1|CacheEntry|120|0|6720|0,0|1|RequestContext|60|0|3360|0,0|1|TransientRecord|500|0|24000|0,1|2|TransientRecord|0|500|0|24000"},
		// The dumps' header times, 60 s apart (scripts/rawheap/fixtures.sh):
		// each heap file ends at its own time (a dump lasts 1 ns), not one on
		// top of another in SmartPerf-Host.
		{`SELECT id, end_time, end_time - start_time FROM js_heap_files ORDER BY id`,
			"0|1764000000000000000|1,1|1764000060000000000|1,2|1764000120000000000|1"},
	} {
		if got := strings.Join(testutil.Query(t, db, c.q), ","); got != c.want {
			t.Errorf("%s: %s, want %s", c.q, got, c.want)
		}
	}
}
