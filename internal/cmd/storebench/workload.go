// Package storebench compares tracestreamer's store (SQLite through
// modernc.org/sqlite's C API, store/sqlite.go) with two other ways of writing
// the same rows through the same SQLite: database/sql with the modernc driver,
// and zombiezen.com/go/sqlite's low-level Conn/Stmt API. It is a module of its
// own so that zombiezen never enters tracestreamer's go.mod.
//
// Every writer gets the same rows.Batch values (4096 rows, as rows.Appender
// hands them to the store), the same schema (schema.New().DDL(), all tables),
// the same pragmas as store.init and one transaction; the multi-row writers
// use the store's statement shapes (1000/columns rows per INSERT, the rest of
// a batch one row at a time). See README.md.
package storebench

import (
	"tracestreamer/rows"
	"tracestreamer/schema"
)

// Pragmas are the statements store.init runs before its DDL (store/store.go).
var Pragmas = []string{
	"PRAGMA page_size=65536",
	"PRAGMA journal_mode=OFF",
	"PRAGMA synchronous=OFF",
	"PRAGMA locking_mode=EXCLUSIVE",
	"PRAGMA temp_store=MEMORY",
	"PRAGMA cache_size=-32768",
}

// BatchRows is the number of rows per batch, rows.DefaultBatchRows.
const BatchRows = rows.DefaultBatchRows

// Tables is the schema every writer creates.
var Tables = schema.New()

// Gen fills a batch with rows first..first+n-1 of a table. The values are a
// deterministic function of the row number.
type Gen struct {
	Name  string
	Table *schema.Table
	Fill  func(b *rows.Batch, first, n int)
}

// Gens are the three workloads: js_heap_nodes (9 INT), js_heap_edges
// (7 INT) and js_heap_string (2 INT + TEXT of 10–60 bytes, nearly all
// distinct).
var Gens = []Gen{
	{"nodes", Tables.JSHeapNodes, fillNodes},
	{"edges", Tables.JSHeapEdges, fillEdges},
	{"strings", Tables.JSHeapString, fillStrings},
}

// GenByName returns the workload called name.
func GenByName(name string) (Gen, bool) {
	for _, g := range Gens {
		if g.Name == name {
			return g, true
		}
	}
	return Gen{}, false
}

// mix is splitmix64's finalizer: a cheap hash of the row number.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// The value tables follow the distributions of a real node heap snapshot
// (.cache/scale/three.db: node types 3 and 2 dominate, self sizes 24–72,
// most nodes with 1–7 edges, edge type 3 = property for 60 %), so that the
// values take the space real ones do in SQLite's records and repeat as often.
var (
	nodeTypes  = [16]int64{3, 3, 3, 3, 3, 2, 2, 2, 2, 5, 1, 4, 7, 14, 0, 10}
	selfSizes  = [16]int64{24, 24, 24, 40, 40, 40, 32, 32, 32, 56, 72, 16, 48, 64, 88, 80}
	edgeCounts = [16]int64{1, 1, 1, 1, 1, 1, 3, 3, 2, 2, 4, 4, 6, 5, 7, 10}
	edgeTypes  = [16]int64{3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 1, 4, 0}
)

// snapshotNodes is the node count edges point into (the 435 MB benchmark
// snapshot's 5 M nodes).
const snapshotNodes = 5_000_000

// fillNodes: file_id, node_index, type, name, id, self_size, edge_count,
// trace_node_id, detachedness — like store's BenchmarkInsertNodes
// (i, 2i+1, i%5000 …) but with varying type, name, size and edge count.
func fillNodes(b *rows.Batch, first, n int) {
	b.Reset(Tables.JSHeapNodes)
	for i := first; i < first+n; i++ {
		h := mix(uint64(i))
		b.Ints = append(b.Ints, 1, int64(i), nodeTypes[h&15], int64((h>>8)%30000), 2*int64(i)+1,
			selfSizes[(h>>24)&15], edgeCounts[(h>>28)&15], 0, 0)
	}
	b.N = n
}

// fillEdges: file_id, edge_index, type, name_or_index, to_node, from_node_id,
// to_node_id; about 3.4 edges per node, as in the snapshot.
func fillEdges(b *rows.Batch, first, n int) {
	b.Reset(Tables.JSHeapEdges)
	for i := first; i < first+n; i++ {
		h := mix(uint64(i) ^ 0x5bd1e995)
		to := int64((h >> 24) % snapshotNodes)
		from := int64(i) * 5 / 17
		b.Ints = append(b.Ints, 1, int64(i), edgeTypes[h&15], int64((h>>8)%40000), to*7,
			2*from+1, 2*to+1)
	}
	b.N = n
}

// text is the characters strings are cut from.
var text = func() string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _/.:()<>"
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = chars[mix(uint64(i)+0x1234)%uint64(len(chars))]
	}
	return string(buf)
}()

// stringAt is the text of row i: 10–60 bytes from a pseudo-random place in
// text (a substring: no allocation), so that nearly every row's is distinct.
func stringAt(i int) string {
	h := mix(uint64(i) ^ 0xc2b2ae35)
	n := 10 + int((h>>40)%51)
	off := int(h % uint64(len(text)-64))
	return text[off : off+n]
}

// fillStrings: file_id, file_index, string.
func fillStrings(b *rows.Batch, first, n int) {
	b.Reset(Tables.JSHeapString)
	for i := first; i < first+n; i++ {
		b.Ints = append(b.Ints, 1, int64(i))
		b.Texts = append(b.Texts, stringAt(i))
	}
	b.N = n
}
