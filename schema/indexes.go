package schema

import (
	"fmt"
	"strings"
)

// Index is one of the indexes `--index` builds: the lookups people make on
// large databases, which without an index scan a whole table each time.
type Index struct {
	Name    string
	Table   string
	Columns []string
	For     string // the lookups it serves
}

// Indexes are the indexes `--index` builds, in the order they are built.
var Indexes = []Index{
	{"js_heap_nodes_file_id", "js_heap_nodes", []string{"file_id", "id"},
		"a heap node by file and object id (SmartPerf-Host's node details, joins from edges and leaks)"},
	{"js_heap_node_stats_file_id", "js_heap_node_stats", []string{"file_id", "id"},
		"a node's retainer, dominator and retained size: each step of a retainer path (README, js_heap_retainer)"},
	{"js_heap_edges_from", "js_heap_edges", []string{"file_id", "from_node_id"},
		"the edges out of a node (its references)"},
	{"js_heap_string_index", "js_heap_string", []string{"file_id", "file_index"},
		"a snapshot string by its index: edge and node names (js_heap_retainer's edge_name)"},
	{"callstack_callid_ts", "callstack", []string{"callid", "ts"},
		"a thread's slices in time order (SmartPerf-Host's thread rows and slice lookups)"},
	{"args_argset", "args", []string{"argset"},
		"the arguments of a slice or event (args_view, slice details)"},
}

// CreateSQL returns the statement that creates the index.
func (ix Index) CreateSQL() string {
	return fmt.Sprintf("CREATE INDEX %s ON %s(%s)", ix.Name, ix.Table, strings.Join(ix.Columns, ", "))
}
