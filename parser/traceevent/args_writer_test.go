package traceevent

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/rows"
	"tracestreamer/schema"
	"tracestreamer/stat"
	"tracestreamer/tables"
)

// importShared imports text with identical argument lists sharing one set
// (the default) or, with share false, each list in a set of its own (how
// sets were written before they were shared).
func importShared(t *testing.T, text []byte, share bool) *imported {
	t.Helper()
	max := 0
	if !share {
		max = -1
	}
	return importBounded(t, text, max)
}

// importBounded imports text with the keys that find shared sets bounded at
// max bytes (0: the default; < 0: no sharing).
func importBounded(t *testing.T, text []byte, max int) *imported {
	t.Helper()
	mem := rows.NewMemory()
	ts := schema.New()
	res := &imported{mem: mem, log: stat.NewLog(nil), rng: &rows.Range{}, tables: ts}
	dict := tables.NewDict(mem, ts)
	im := New(Env{Sink: mem, Tables: ts, Dict: dict, Range: res.rng, Log: res.log}, Options{})
	im.args.maxShared = max
	if err := im.Read(context.Background(), bytes.NewReader(text), Input{Path: "test.json"}); err != nil {
		t.Fatal(err)
	}
	im.Finish()
	dict.Flush()
	res.dict = map[int64]string{}
	for _, r := range mem.Rows["data_dict"] {
		res.dict[r[0].Int] = r[1].Text
	}
	return res
}

// rowArgs returns, for every row of every table with an argsetid column,
// its arguments read back through the join with args (in args.id order) and
// data_dict, keyed by table and row; and the number of sets.
func (r *imported) rowArgs(t *testing.T) (map[string]string, int) {
	t.Helper()
	sets := map[int64][]string{}
	for _, row := range r.mem.Rows["args"] {
		v := render(row[3])
		if row[2].Int == 1 && !row[3].Null {
			v = strconv.Quote(r.dict[row[3].Int])
		}
		sets[row[4].Int] = append(sets[row[4].Int], fmt.Sprintf("%s=%s(%d)", r.dict[row[1].Int], v, row[2].Int))
	}
	out := map[string]string{}
	for _, tb := range r.tables.All() {
		col := -1
		for i, c := range tb.Columns {
			if c.Name == "argsetid" || c.Name == "argset_id" {
				col = i
			}
		}
		if col < 0 {
			continue
		}
		for i, row := range r.mem.Rows[tb.Name] {
			if row == nil || row[col].Null {
				continue
			}
			list, ok := sets[row[col].Int]
			if !ok {
				t.Fatalf("%s row %d: argsetid %d has no args rows", tb.Name, i, row[col].Int)
			}
			out[fmt.Sprintf("%s/%d", tb.Name, i)] = strings.Join(list, " ")
		}
	}
	return out, len(sets)
}

// TestSharedArgSets checks that sharing identical argument lists changes the
// argset ids only: every row of every table keeps exactly its arguments, in
// order; and that real captures need far fewer sets and rows.
func TestSharedArgSets(t *testing.T) {
	synthetic := lines(
		`{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"main"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":1,"dur":5,"name":"a","args":{"k":1,"s":"x"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":10,"dur":5,"name":"a","args":{"k":1,"s":"x"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":20,"dur":5,"name":"a","args":{"s":"x","k":1}}`,
		`{"ph":"B","pid":1,"tid":1,"ts":30,"name":"b","args":{"k":1}}`,
		`{"ph":"E","pid":1,"tid":1,"ts":31,"args":{"s":"x"}}`,
		`{"ph":"B","pid":1,"tid":1,"ts":40,"name":"b","args":{"k":1,"s":"x"}}`,
		`{"ph":"E","pid":1,"tid":1,"ts":41}`,
		`{"ph":"B","pid":1,"tid":1,"ts":50,"name":"b","args":{"k":2}}`,
		`{"ph":"E","pid":1,"tid":1,"ts":51,"args":{"k":1,"s":"x"}}`,
		`{"ph":"i","pid":1,"tid":1,"ts":60,"name":"i","s":"g","args":{"k":1,"s":"x"}}`,
		`{"ph":"i","pid":1,"tid":1,"ts":61,"name":"i","s":"t","args":{"d":1.5,"n":null,"t":true}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":62,"dur":1,"name":"a","args":{"d":1.5,"n":null,"t":true}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":63,"dur":1,"name":"a","args":{"d":1.5,"n":"null","t":true}}`,
		`{"ph":"s","pid":1,"tid":1,"ts":2,"id":7,"cat":"c","name":"f","args":{"k":1}}`,
		`{"ph":"f","pid":1,"tid":1,"ts":11,"id":7,"cat":"c","name":"f","bp":"e","args":{"s":"x"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":70,"dur":1,"name":"a","args":{}}`,
	)
	for _, tc := range []struct {
		name string
		text []byte
		// sets and args rows, shared and not
		sets, rows, ownSets, ownRows int
	}{
		{"synthetic", []byte(synthetic), 7, 13, 14, 28}, // the s and f events' own sets in flow_event among them
		{"node", testutil.Fixture(t, "node/trace.json"), 14, 52, 37, 121},
		// Perfetto v58.2 writes 6 009 args rows in 1 728 sets for this capture.
		{"chromium", testutil.Fixture(t, "chromium/trace.json.gz"), 1650, 5887, 15560, 49662},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared, own := importShared(t, tc.text, true), importShared(t, tc.text, false)
			got, sets := shared.rowArgs(t)
			want, ownSets := own.rowArgs(t)
			if len(got) != len(want) {
				t.Errorf("%d rows with arguments, want %d", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: arguments %q, want %q", k, got[k], w)
				}
			}
			n, ownN := len(shared.mem.Rows["args"]), len(own.mem.Rows["args"])
			t.Logf("%d args rows in %d sets, each list its own: %d rows in %d sets (%d rows with arguments)",
				n, sets, ownN, ownSets, len(want))
			if sets != tc.sets || n != tc.rows || ownSets != tc.ownSets || ownN != tc.ownRows {
				t.Errorf("%d rows in %d sets, own %d in %d; want %d in %d, own %d in %d",
					n, sets, ownN, ownSets, tc.rows, tc.sets, tc.ownRows, tc.ownSets)
			}
			if !slicesEqualDict(shared, own) {
				t.Error("data_dict differs")
			}
			// Past the bound, new lists get sets of their own: more sets,
			// the same arguments.
			bounded := importBounded(t, tc.text, 4<<10)
			got, boundedSets := bounded.rowArgs(t)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("bounded: %s: arguments %q, want %q", k, got[k], w)
				}
			}
			if tc.name == "chromium" && (boundedSets <= sets || boundedSets >= ownSets) {
				t.Errorf("bounded at 4 KiB: %d sets, want between %d (unbounded) and %d (none shared)", boundedSets, sets, ownSets)
			}
		})
	}
}

// slicesEqualDict reports whether two imports wrote the same data_dict.
func slicesEqualDict(a, b *imported) bool {
	if len(a.dict) != len(b.dict) {
		return false
	}
	for id, s := range a.dict {
		if b.dict[id] != s {
			return false
		}
	}
	return true
}

// TestMergedFlat: a v1 flow arrow's arguments, flattened into reused
// buffers, are mergeArgs of FlattenOrNil of its two ends, call after call:
// a key of both ends in the first's place with the second's value, an end
// without args, not an object or not JSON giving none.
func TestMergedFlat(t *testing.T) {
	var a argSets
	for _, tc := range []struct {
		src, dst string // "-": nil
		want     []string
	}{
		{`{"a":1,"b":{"x":"y"},"c":[true]}`, `{"b":{"x":"z"},"d":null}`, []string{"a=1", "b.x=z", "c[0]=1", "d=<nil>"}},
		{"-", `{"e":2.5}`, []string{"e=2.5"}},
		{`{"f":"g"}`, "-", []string{"f=g"}},
		{`[1]`, `{"h":1,"i":`, nil},
		{`{"i":1,"i":2}`, `{"j":"k"}`, []string{"i=2", "j=k"}},
		{"-", "-", nil},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`, `{"j":0,"a":0,"k":0}`,
			[]string{"a=0", "b=2", "c=3", "d=4", "e=5", "f=6", "g=7", "h=8", "i=9", "j=0", "k=0"}},
	} {
		raw := func(s string) []byte {
			if s == "-" {
				return nil
			}
			return []byte(s)
		}
		want := mergeArgs(event.FlattenOrNil(raw(tc.src)), event.FlattenOrNil(raw(tc.dst)))
		got := a.mergedFlat(raw(tc.src), raw(tc.dst))
		var texts []string
		for _, arg := range got {
			v := any(arg.Int)
			switch {
			case arg.Null:
				v = nil
			case arg.Type == event.ArgString:
				v = arg.Str
			case arg.Type == event.ArgDouble:
				v = arg.Float
			}
			texts = append(texts, fmt.Sprintf("%s=%v", arg.Key, v))
		}
		if !reflect.DeepEqual(texts, tc.want) || len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("%s + %s: %v (%+v), want %v (%+v)", tc.src, tc.dst, texts, got, tc.want, want)
		}
	}
}

// TestMergeArgs: the arguments of an end event (or of a flow's second end)
// merged into those of the begin: a key of both in the begin's place with
// the end's value, new keys after in the end's order, a key repeated in
// either list (flattened "a.b" and "a":{"b"}) resolved to its later place;
// the same whether the keys are searched one by one or through a map, and
// without allocating when the base has room.
func TestMergeArgs(t *testing.T) {
	args := func(s string) []event.Arg { // "k=v k2=v2"
		var out []event.Arg
		for _, kv := range strings.Fields(s) {
			k, v, _ := strings.Cut(kv, "=")
			out = append(out, event.Arg{Key: k, Type: event.ArgString, Str: v})
		}
		return out
	}
	many := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d=%d ", prefix, i, i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		base, over, want string
	}{
		{"a=1 b=2", "b=3 c=4", "a=1 b=3 c=4"},
		{"", "x=1 y=2", "x=1 y=2"},
		{"a=1", "", "a=1"},
		{"a.b=1 c=2 a.b=3", "a.b=9", "a.b=1 c=2 a.b=9"},
		{"a=1", "n=1 n=2 a=3 n=4", "a=3 n=4"},
		{"c=1 b=2 a=3", "a=4 d=5 b=6 e=7", "c=1 b=6 a=4 d=5 e=7"},
		// Past linearMerge: the map.
		{many("k", 30), "k3=x " + many("n", 6) + "k11=y", strings.Replace(strings.Replace(many("k", 30), "k3=3", "k3=x", 1),
			"k11=11", "k11=y", 1) + many("n", 6)},
		{many("k", 40) + "k5=z", "k5=w", many("k", 40) + "k5=w"},
		{"a=1", many("n", 35) + "a=2 n7=x", "a=2 " + strings.Replace(many("n", 35), "n7=7", "n7=x", 1)},
	} {
		got := mergeArgs(args(tc.base), args(tc.over))
		viaMap, linear := args(tc.want), args(tc.want)
		if len(args(tc.base)) > 0 {
			viaMap, linear = mergeArgsMap(args(tc.base), args(tc.over)), mergeArgsLinear(args(tc.base), args(tc.over))
		}
		var texts []string
		for _, a := range got {
			texts = append(texts, a.Key+"="+a.Str)
		}
		if strings.Join(texts, " ") != strings.Join(strings.Fields(tc.want), " ") || !reflect.DeepEqual(got, viaMap) ||
			!reflect.DeepEqual(got, linear) {
			t.Errorf("%q + %q: %q (map %v, linear %v), want %q", tc.base, tc.over, texts, viaMap, linear, tc.want)
		}
	}
	base, begin, over := make([]event.Arg, 0, 32), args(many("k", 10)), args("k1=x "+many("n", 5))
	if n := testing.AllocsPerRun(100, func() { mergeArgs(append(base[:0], begin...), over) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// BenchmarkMergeArgs compares the linear search with the map at the
// sizes around linearMerge (n arguments at each end, half of them shared).
func BenchmarkMergeArgs(b *testing.B) {
	for _, n := range []int{2, 4, 8, 16, 32} {
		var base, over []event.Arg
		for i := range n {
			base = append(base, event.Arg{Key: fmt.Sprintf("args.key%d", i)})
			over = append(over, event.Arg{Key: fmt.Sprintf("args.key%d", i+n/2)})
		}
		buf := make([]event.Arg, 0, 2*n)
		for _, m := range []struct {
			name  string
			merge func(a, b []event.Arg) []event.Arg
		}{{"linear", mergeArgsLinear}, {"map", mergeArgsMap}} {
			b.Run(fmt.Sprintf("%s/%d+%d", m.name, n, n), func(b *testing.B) {
				for range b.N {
					m.merge(append(buf[:0], base...), over)
				}
			})
		}
	}
}

// TestTextIDsCollisions: texts that share a hash keep their own ids, and a
// text is found only under its own hash.
func TestTextIDsCollisions(t *testing.T) {
	var m textIDs
	if h := m.hash([]byte(`{"a":1}`)); h != m.hash([]byte(`{"a":1}`)) || h == m.hash([]byte(`{"a":2}`)) {
		t.Fatalf("hash of the same text differs, or of two texts is the same")
	}
	m.put(7, `{"a":1}`, 10)
	m.put(7, `{"b":2}`, 20) // the same hash: a collision
	m.put(8, `{"c":3}`, 30)
	for _, tt := range []struct {
		h    uint64
		text string
		id   int64
		ok   bool
	}{
		{7, `{"a":1}`, 10, true}, {7, `{"b":2}`, 20, true}, {8, `{"c":3}`, 30, true},
		{7, `{"c":3}`, 0, false}, {8, `{"a":1}`, 0, false}, {9, `{"a":1}`, 0, false},
	} {
		if id, ok := m.get(tt.h, []byte(tt.text)); id != tt.id || ok != tt.ok {
			t.Errorf("get(%d, %s) = %d, %v; want %d, %v", tt.h, tt.text, id, ok, tt.id, tt.ok)
		}
	}
}

// TestArgsHashedOnce: the decoding workers hash args texts with the
// importer's seed, so that every text the importer keeps in byRaw is under
// its own hash, whether a worker or the importer hashed it.
func TestArgsHashedOnce(t *testing.T) {
	text := lines(
		`{"ph":"X","pid":1,"tid":1,"ts":1,"dur":5,"name":"a","args":{"k":1,"s":"x"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":10,"dur":5,"name":"a","args":{"k":1,"s":"x"}}`,
		`{"ph":"X","pid":1,"tid":1,"ts":20,"dur":5,"name":"a","args":{"k":2}}`,
		`{"ph":"i","pid":1,"tid":1,"ts":30,"name":"i","s":"g","args":{"k":3}}`,
		`{"ph":"n","pid":1,"tid":1,"ts":40,"id":1,"cat":"c","name":"n","args":{"k":4}}`,
	)
	mem := rows.NewMemory()
	ts := schema.New()
	im := New(Env{Sink: mem, Tables: ts, Dict: tables.NewDict(mem, ts), Range: &rows.Range{}, Log: stat.NewLog(nil)}, Options{})
	if err := im.Read(context.Background(), strings.NewReader(text), Input{Path: "test.json"}); err != nil {
		t.Fatal(err)
	}
	im.Finish()
	m := &im.args.byRaw
	if len(m.first) != 4 || len(m.more) != 0 {
		t.Fatalf("%d texts kept, %d under another's hash; want 4, 0", len(m.first), len(m.more))
	}
	for h, e := range m.first {
		if want := m.hash([]byte(e.text)); h != want {
			t.Errorf("%s kept under hash %x, want %x", e.text, h, want)
		}
	}
}
