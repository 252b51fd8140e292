// Package heapsnapshot decodes V8 and ArkTS heap snapshot JSON (.heapsnapshot,
// and .heaptimeline with allocation traces), streaming: the document is read
// once through a fixed buffer and its meta, nodes, edges, strings and
// allocation tracking sections are handed to a heapfile.Writer as the arrays
// are read (heapfile documents the order). Arrays that come before what they
// depend on (nodes before the meta, edges before the nodes) are held until it
// comes.
//
// It must not know the tables, the rows or the analysis: it knows JSON, and
// the heapfile.Writer writes everything else.
package heapsnapshot

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"tracestreamer/heapfile"
	"tracestreamer/parser/jsonscan"
	"tracestreamer/stat"
)

// decoder holds the state of one snapshot.
type decoder struct {
	js *jsonscan.Decoder
	w  *heapfile.Writer

	meta    *meta
	nodes   layout
	native  int  // position of ArkTS's native_size in a node, -1 if absent
	gotNode bool // the nodes array has been processed
	seen    []string

	pendingNodes []int64 // nodes read before the meta that gives their layout
	pendingEdges []int64 // edges read before the nodes they refer to
	scratch      []byte
	ibuf         []int64

	// While an array is read on another goroutine (readAhead), the
	// position the Writer's warnings name is that of the values being
	// handed over, which the reading goroutine recorded.
	piped    bool
	blockEnd int64
}

// Decoder returns the decoder of one heap snapshot document read from r,
// which hands its content to a heapfile.Writer as it reads it.
//
// A panic while decoding (a bug, whatever the input) is returned as an error
// naming the offset, so that the caller drops this snapshot and goes on.
func Decoder(r io.Reader) heapfile.Decoder {
	return func(w *heapfile.Writer) (err error) {
		d := &decoder{js: jsonscan.NewReader(r, 256<<10), w: w, native: -1, ibuf: make([]int64, 3*4096)}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error at offset %d (please report it): %v", d.js.Offset(), p)
			}
		}()
		w.SetOffset(d.offset)
		return d.decode()
	}
}

func (d *decoder) decode() error {
	js := d.js
	err := js.Object(func(key []byte) error {
		switch string(key) {
		case "snapshot":
			return d.snapshot()
		case "nodes", "edges":
			// A second array of either would number its rows again from 0.
			if slices.Contains(d.seen, string(key)) {
				d.w.Warn("a second %q array ignored", key)
				return js.SkipValue()
			}
			d.seen = append(d.seen, string(key))
			if key[0] == 'n' {
				return d.nodesArray()
			}
			return d.edgesArray()
		case "strings":
			return d.strings()
		case "trace_function_infos":
			return d.tuples(d.layoutOf("trace_function_info_fields", functionInfoNames), d.functionInfo)
		case "trace_tree":
			return d.traceTree()
		case "samples":
			return d.tuples(d.layoutOf("sample_fields", sampleNames), d.sample)
		case "locations":
			return d.tuples(d.layoutOf("location_fields", locationNames), d.location)
		}
		return js.SkipValue()
	})
	if err != nil {
		return err
	}
	if !js.AtEOF() {
		d.w.Warn("data after the end of the snapshot object ignored")
	}
	if d.meta == nil {
		return errors.New("no snapshot.meta: not a heap snapshot")
	}
	if d.pendingNodes != nil {
		d.processNodes(d.pendingNodes)
	}
	if d.pendingEdges != nil {
		d.processEdges(d.pendingEdges)
	}
	return nil
}

// Field names of each tuple kind in the V8 order, which is also the fallback
// layout when the snapshot's meta does not name the fields.
var (
	nodeNames         = []string{"type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"}
	edgeNames         = []string{"type", "name_or_index", "to_node"}
	functionInfoNames = []string{"function_id", "name", "script_name", "script_id", "line", "column"}
	traceNodeNames    = []string{"id", "function_info_index", "count", "size", "children"}
	sampleNames       = []string{"timestamp_us", "last_assigned_id"}
	locationNames     = []string{"object_index", "script_id", "line", "column"}
)

// layout maps the wanted fields of a tuple to their positions.
type layout struct {
	stride int
	pos    []int // position of each wanted field in the tuple, -1 if absent
}

func (l layout) get(t []int64, field int) int64 {
	if p := l.pos[field]; p >= 0 {
		return t[p]
	}
	return 0
}

// makeLayout resolves names in fields; without fields, the fixed layout applies.
func makeLayout(fields []string, names []string) layout {
	if len(fields) == 0 {
		l := layout{stride: len(names), pos: make([]int, len(names))}
		for i := range names {
			l.pos[i] = i
		}
		return l
	}
	l := layout{stride: len(fields), pos: make([]int, len(names))}
	for i, n := range names {
		l.pos[i] = -1
		for j, f := range fields {
			if f == n {
				l.pos[i] = j
				break
			}
		}
	}
	return l
}

func (d *decoder) layoutOf(metaKey string, names []string) layout {
	if d.meta == nil {
		return makeLayout(nil, names)
	}
	return makeLayout(d.meta.fields[metaKey], names)
}

// offset is the position in the document the Writer's warnings name: where
// the reading of the values being handed over ended.
func (d *decoder) offset() int64 {
	if d.piped {
		return d.blockEnd
	}
	return d.js.Offset()
}

// tuples streams an integer array as tuples of l.stride values. With more
// than one core, the numbers are read on another goroutine (readAhead), one
// block ahead of the Writer, which takes most of the decoder's time.
func (d *decoder) tuples(l layout, fn func(l layout, t []int64)) error {
	if l.stride <= 0 {
		return errors.New("tuple layout has no fields")
	}
	js := d.js
	if err := js.Expect('['); err != nil {
		return err
	}
	buf := d.ibuf[:len(d.ibuf)/l.stride*l.stride]
	first := true
	var bad jsonscan.NonIntegers
	defer d.warnNonIntegers(&bad)
	read := func(buf []int64) (intRead, bool) {
		n, done, err := js.ReadIntsLenient(buf, &first, &bad)
		return intRead{n: n, done: done, err: err, end: js.Offset()}, done || err != nil
	}
	if runtime.GOMAXPROCS(0) > 1 {
		return d.readAhead(len(buf), read, func(vals []int64, r intRead) error { return d.take(l, fn, vals, r) })
	}
	for {
		r, last := read(buf)
		if err := d.take(l, fn, buf[:r.n], r); last || err != nil {
			return err
		}
	}
}

// intRead is the outcome of one ReadIntsLenient call: how many values it
// read, whether the array ended, its error, and the offset after it.
type intRead struct {
	n    int
	done bool
	err  error
	end  int64
}

// take hands the tuples of the values of one read to fn.
func (d *decoder) take(l layout, fn func(l layout, t []int64), vals []int64, r intRead) error {
	if r.err != nil {
		return r.err
	}
	whole := r.n / l.stride * l.stride
	for i := 0; i < whole; i += l.stride {
		fn(l, vals[i:i+l.stride])
	}
	if r.done && r.n != whole {
		d.w.Warn("%d values at the end of an array do not fill a tuple of %d; ignored", r.n-whole, l.stride)
	}
	return nil
}

// A readAhead block holds up to readsPerBlock reads of the decoder's usual
// size: fewer hand-overs, with the same values, outcomes and offsets as
// reading into d.ibuf one read at a time.
const (
	readsPerBlock = 8
	blocksAhead   = 3
)

// intBlock is what the reading goroutine hands over: the values of up to
// readsPerBlock reads, each read's outcome, and a panic of the next read (a
// bug), raised again on the decoder's goroutine after the reads before it
// are taken.
type intBlock struct {
	vals  []int64
	reads []intRead
	panic any
}

// readAhead runs read (per: the values one read takes) on a goroutine of its
// own until it reports the last read, handing the blocks of values to take
// in order on this goroutine; it returns take's first error. The reading
// goroutine alone uses the JSON decoder until readAhead returns, whatever
// happens (take panics: the reader is stopped and waited for first).
func (d *decoder) readAhead(per int, read func([]int64) (intRead, bool), take func([]int64, intRead) error) error {
	full := make(chan intBlock, blocksAhead)
	free := make(chan intBlock, blocksAhead+1)
	for range blocksAhead + 1 {
		free <- intBlock{vals: make([]int64, per*readsPerBlock), reads: make([]intRead, 0, readsPerBlock)}
	}
	stop, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		defer close(full)
		var b intBlock
		defer func() {
			if p := recover(); p != nil {
				b.panic = p
				full <- b // never blocks: at most blocksAhead blocks are queued
			}
		}()
		for {
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.reads = b.reads[:0]
			last := false
			for i := 0; i < readsPerBlock && !last; i++ {
				var r intRead
				r, last = read(b.vals[i*per : (i+1)*per])
				b.reads = append(b.reads, r)
			}
			full <- b
			if last {
				return
			}
		}
	}()
	d.piped = true
	defer func() {
		d.piped = false
		close(stop)
		for range full { // let a blocked reader finish
		}
		<-exited
	}()
	for b := range full {
		for i, r := range b.reads {
			d.blockEnd = r.end
			if err := take(b.vals[i*per:i*per+r.n], r); err != nil || r.done {
				return err
			}
		}
		if b.panic != nil {
			panic(b.panic)
		}
		free <- b
	}
	return nil
}

// warnNonIntegers reports the values of an array that were not integers: one
// such value must not cost a snapshot of millions of nodes its every row.
func (d *decoder) warnNonIntegers(bad *jsonscan.NonIntegers) {
	if bad.N > 0 {
		d.w.Report(stat.JSHeapValues, stat.InvalidData, int64(bad.N), fmt.Sprintf(
			"%d values that are not 64-bit integers were read as 0 (the first at offset %d)", bad.N, bad.First))
	}
}

// readAll reads a whole integer array into memory (used only when the data it
// depends on comes later in the document).
func (d *decoder) readAll() ([]int64, error) {
	if err := d.js.Expect('['); err != nil {
		return nil, err
	}
	all := []int64{}
	first := true
	var bad jsonscan.NonIntegers
	defer d.warnNonIntegers(&bad)
	for {
		n, done, err := d.js.ReadIntsLenient(d.ibuf, &first, &bad)
		if err != nil {
			return nil, err
		}
		all = append(all, d.ibuf[:n]...)
		if done {
			return all, nil
		}
	}
}

func (d *decoder) nodesArray() error {
	if d.meta == nil {
		all, err := d.readAll()
		d.pendingNodes = all
		return err
	}
	err := d.tuples(d.nodes, d.node)
	d.gotNode = true
	return err
}

func (d *decoder) processNodes(all []int64) {
	l := d.nodes
	whole := len(all) / l.stride * l.stride
	for i := 0; i < whole; i += l.stride {
		d.node(l, all[i:i+l.stride])
	}
	if whole != len(all) {
		d.w.Warn("%d values at the end of nodes do not fill a node; ignored", len(all)-whole)
	}
	d.pendingNodes = nil
	d.gotNode = true
}

const (
	nType = iota
	nName
	nID
	nSelfSize
	nEdgeCount
	nTraceNodeID
	nDetachedness
)

func (d *decoder) node(l layout, t []int64) {
	d.w.Node(heapfile.Node{Type: l.get(t, nType), Name: l.get(t, nName), ID: l.get(t, nID),
		SelfSize: l.get(t, nSelfSize), EdgeCount: l.get(t, nEdgeCount), TraceNodeID: l.get(t, nTraceNodeID),
		Detachedness: l.get(t, nDetachedness), NativeSize: d.nativeSize(t)})
}

// nativeSize is the node's native_size (ArkTS), 0 when the nodes have none.
func (d *decoder) nativeSize(t []int64) int64 {
	if d.native >= 0 {
		return t[d.native]
	}
	return 0
}

func (d *decoder) edgesArray() error {
	if !d.gotNode {
		all, err := d.readAll()
		d.pendingEdges = all
		return err
	}
	return d.tuples(d.layoutOf("edge_fields", edgeNames), d.edge)
}

func (d *decoder) processEdges(all []int64) {
	l := d.layoutOf("edge_fields", edgeNames)
	whole := len(all) / l.stride * l.stride
	for i := 0; i < whole; i += l.stride {
		d.edge(l, all[i:i+l.stride])
	}
	d.pendingEdges = nil
}

const (
	eType = iota
	eNameOrIndex
	eToNode
)

func (d *decoder) edge(l layout, t []int64) {
	d.w.Edge(heapfile.Edge{Type: l.get(t, eType), NameOrIndex: l.get(t, eNameOrIndex), ToNode: l.get(t, eToNode)})
}

func (d *decoder) strings() error {
	js := d.js
	return js.Array(func(i int) (err error) {
		if d.scratch, err = js.ReadString(d.scratch[:0]); err != nil {
			return err
		}
		d.w.String(string(d.scratch))
		return nil
	})
}

func (d *decoder) functionInfo(l layout, t []int64) {
	d.w.FunctionInfo(l.get(t, 0), l.get(t, 1), l.get(t, 2), l.get(t, 3), l.get(t, 4), l.get(t, 5))
}

func (d *decoder) sample(l layout, t []int64) { d.w.Sample(l.get(t, 0), l.get(t, 1)) }

func (d *decoder) location(l layout, t []int64) {
	d.w.Location(l.get(t, 0), l.get(t, 1), l.get(t, 2), l.get(t, 3))
}
