// Package heapfile holds the heap files of a run: their numbering and
// js_heap_files rows, the rows of the nine js_heap_* tables a heap file fills
// and of js_heap_native_size (ArkTS's native sizes), the heap analysis (heapgraph: js_heap_node_stats, js_heap_class), the
// comparison of consecutive files (js_heap_class_diff) and memlab's leaks over
// three files (js_heap_leak, js_heap_leak_path, js_heap_leak_cluster).
//
// It must not know any file format: a decoder (parser/heapsnapshot for JSON
// snapshots and timelines, parser/rawheap for ArkTS .rawheap dumps) reads the
// bytes and hands the content over through a Writer. It must not know SQL or
// where rows go: it appends them to the sink it is given.
//
// # A heap file from a decoder
//
// A Decoder is a function that reads one heap file and calls the Writer's
// methods as it reads, streaming, in this order:
//
//  1. Meta, once: the node and edge type names, the counts the file states
//     (or CountsAfter: those of what it holds), the root node and the node
//     tuple's width (NodeStride). It writes the js_heap_info rows and sizes
//     the arrays from the counts.
//  2. Node, once per node, in node index order.
//  3. Edge, once per edge, in order: the first edge_count edges belong to node
//     0, the next to node 1, and so on. ToNode is the target's offset in the
//     flat node array (node index × NodeStride), as a .heapsnapshot has it.
//     Edges past those the nodes' counts cover are kept without a source.
//  4. String, once per string, in index order (these may come at any time:
//     the analysis reads them only after the decoder returns).
//
// FunctionInfo, TraceNode, Sample and Location (the allocation tracking
// sections of a heap timeline) may come at any time after Meta. Warn reports a
// problem that does not stop decoding. The decoder returns nil when the file
// was read whole; an error drops every row of the file. No value is checked by
// the decoder beyond its format: the Writer keeps every value as given and
// warns about edge counts and edge targets that do not fit the nodes.
//
// Files.Read runs a decoder and keeps the file (or drops it). Where the bytes
// arrive in pieces and the file is named only after its end (the ArkTS
// plugin's chunks and markers), Files.Begin, File.Decode (on any goroutine)
// and File.Keep or File.Drop do the same in three steps.
//
// With the analysis, a file's nodes and edges are held in compact arrays
// (heapgraph.Graph) and their rows written from those on a goroutine of their
// own (graphrows.go); the analysis runs once the decoder has returned.
package heapfile
