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
	"sync"

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
	maxString    int // bytes of a string kept (maxString)

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
func Decoder(r io.Reader) heapfile.Decoder { return (*Buffers)(nil).Decoder(r) }

// Buffers keeps the read buffers of decoders that are done (a JSON buffer
// of 256 KB, an integer buffer of 96 KB) for the next ones: a stream of many
// small snapshots (an .htrace may hold thousands) then makes them once, not
// once a snapshot, and its collections become rare (1 000 one-node
// snapshots: 0.40 s → 0.13 s). Safe for concurrent use; the zero value is
// ready, and a nil *Buffers keeps nothing.
type Buffers struct{ pool sync.Pool }

// Decoder is the package's Decoder, with buffers from b.
func (b *Buffers) Decoder(r io.Reader) heapfile.Decoder {
	return b.decoderOf(r, 256<<10, 3*4096, maxString)
}

// maxString is the most bytes of a string of the strings array kept: a
// longer one is cut (counted as js_heap_strings data_lost; a Trace Event
// file's strings are cut past the same length), so that a string of any length
// costs bounded memory (a 400 MB one in a 1.3 MB .gz took 2.3 GB whole). V8
// writes none longer than 1 024 characters: the longest of the 5 M-node
// bench snapshot has 1 024 bytes.
const maxString = 32 << 20

// readBuffers are the buffers of one decoder.
type readBuffers struct {
	js   *jsonscan.Decoder
	size int // js's buffer
	ibuf []int64
}

// get returns buffers for a decoder reading r: b's, or new ones.
func (b *Buffers) get(r io.Reader, size, perRead int) *readBuffers {
	var rb *readBuffers
	if b != nil {
		rb, _ = b.pool.Get().(*readBuffers)
	}
	if rb == nil {
		return &readBuffers{js: jsonscan.NewReader(r, size), size: size, ibuf: make([]int64, perRead)}
	}
	rb.js.Reset(r, size)
	rb.size = size
	if len(rb.ibuf) != perRead {
		rb.ibuf = make([]int64, perRead)
	}
	return rb
}

// put hands the buffers of a decoder that is done back to b.
func (b *Buffers) put(rb *readBuffers) {
	if b != nil {
		rb.js.Reset(nil, rb.size) // nothing of the document is kept
		b.pool.Put(rb)
	}
}

// decoderOf is Decoder reading r through a JSON buffer of size bytes, and
// an integer array perRead values at a time, keeping maxString bytes of a
// string (tests make them small, so that small documents take the paths of
// big ones), with buffers from b.
func (b *Buffers) decoderOf(r io.Reader, size, perRead, maxString int) heapfile.Decoder {
	return func(w *heapfile.Writer) (err error) {
		rb := b.get(r, size, perRead)
		defer b.put(rb)
		d := &decoder{js: rb.js, w: w, native: -1, ibuf: rb.ibuf, maxString: maxString}
		defer func() {
			if p := recover(); p != nil {
				err = internalError(p, d.js.Offset())
			}
		}()
		w.SetOffset(d.offset)
		return d.decode()
	}
}

// internalError is the error of a panic p while decoding, at offset at
// unless p is that of a read of text (textPanic), which has its own.
func internalError(p any, at int64) error {
	if tp, ok := p.(textPanic); ok {
		p, at = tp.p, tp.at
	}
	return fmt.Errorf("internal error at offset %d (please report it): %v", at, p)
}

// textPanic is a panic while the values of a read of text were read (by a
// worker, while the stream was read on past it), and where that text starts.
type textPanic struct {
	p  any
	at int64
}

func (d *decoder) decode() error {
	js := d.js
	err := js.Object(func(key []byte) error {
		switch string(key) {
		case "snapshot":
			return d.snapshot()
		case "nodes", "edges", "strings", "trace_function_infos", "trace_tree", "samples", "locations":
			// A second array of a kind would number its rows again from 0
			// (nodes, edges) or add to the first's as if they were one.
			if slices.Contains(d.seen, string(key)) {
				d.w.Warn("a second %q array ignored", key)
				return js.SkipValue()
			}
			d.seen = append(d.seen, string(key))
		}
		switch string(key) {
		case "nodes":
			return d.nodesArray()
		case "edges":
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

// tuples streams an integer array as tuples of l.stride values, read one
// block ahead of the Writer (readAhead), and with many cores the values of
// each block read on other goroutines (parseWorkers).
func (d *decoder) tuples(l layout, fn func(l layout, t []int64)) error {
	if l.stride <= 0 {
		return errors.New("tuple layout has no fields")
	}
	// A read takes whole tuples: with none, the array would never end.
	if l.stride > len(d.ibuf) {
		return fmt.Errorf("offset %d: tuples of %d fields: more than the %d values read at a time",
			d.js.Offset(), l.stride, len(d.ibuf))
	}
	js := d.js
	if err := js.Expect('['); err != nil {
		return err
	}
	per := len(d.ibuf) / l.stride * l.stride
	procs := runtime.GOMAXPROCS(0)
	ahead, reads, workers := procs > 1, readsPerBlock, parseWorkers(procs)
	if !ahead {
		reads = 1 // the block is taken at once: one read, into d.ibuf
	}
	first := true
	var bad jsonscan.NonIntegers
	defer d.warnNonIntegers(&bad)
	// A block holds up to reads reads of per values: the values,
	// outcomes and offsets of reading into d.ibuf one read at a time.
	fill := func(b *intBlock) bool {
		b.reads, b.text = b.reads[:0], b.text[:0]
		for i := range reads {
			if workers > 0 {
				start, lo := js.Offset(), len(b.text)
				if text, ok := js.IntsText(b.text, per, first, maxTextPerValue*per); ok {
					b.text = text
					b.reads = append(b.reads, intRead{text: true, first: first, start: start, lo: lo, hi: len(b.text)})
					first = false
					continue
				}
			}
			var rb jsonscan.NonIntegers
			n, done, err := js.ReadIntsLenient(b.vals[i*per:(i+1)*per], &first, &rb)
			b.reads = append(b.reads, intRead{n: n, done: done, err: err, end: js.Offset(), bad: rb})
			if done || err != nil {
				return true
			}
		}
		return false
	}
	var parse func(b *intBlock)
	if workers > 0 {
		parse = func(b *intBlock) { b.parse(per) }
	}
	take := func(b *intBlock) (bool, error) {
		for i, r := range b.reads {
			bad.Add(r.bad)
			d.blockEnd = r.end
			if r.err != nil {
				return true, r.err
			}
			vals := b.vals[i*per : i*per+r.n]
			whole := r.n / l.stride * l.stride
			for j := 0; j < whole; j += l.stride {
				fn(l, vals[j:j+l.stride])
			}
			if r.done {
				if r.n != whole {
					d.w.Warn("%d values at the end of an array do not fill a tuple of %d; ignored", r.n-whole, l.stride)
				}
				return true, nil
			}
			if r.after != nil {
				return true, r.after
			}
		}
		return false, nil
	}
	if ahead {
		// The first read at once, into d.ibuf: an array that ends within
		// it (a snapshot's small arrays, every array of a small snapshot)
		// starts no goroutine and makes no block.
		var rb jsonscan.NonIntegers
		n, done, err := js.ReadIntsLenient(d.ibuf[:per], &first, &rb)
		b := &intBlock{vals: d.ibuf[:per], reads: []intRead{{n: n, done: done, err: err, end: js.Offset(), bad: rb}}}
		if stop, err := take(b); stop {
			return err
		}
	}
	return readAhead(d, ahead, workers, func() *intBlock {
		if !ahead {
			return &intBlock{vals: d.ibuf[:per], reads: make([]intRead, 0, 1)}
		}
		return &intBlock{vals: make([]int64, per*reads), reads: make([]intRead, 0, reads)}
	}, fill, parse, take)
}

// parseWorkers is the number of goroutines that read the values of the
// blocks that the reading goroutine takes the text of (IntsText), given
// procs cores, or 0 where the reading goroutine reads them itself. Taking
// the text goes at 2.3-2.5 GB/s where reading the values goes at 0.87-0.90
// (BenchmarkIntsText, BenchmarkReadInts), and costs a copy and a pass more
// in all. On 16 cores the reading goroutine was busy all the time the
// big arrays were read, the Writer waiting for it; on 2 it has time to
// spare.
func parseWorkers(procs int) int {
	if procs < 8 {
		return 0
	}
	return min(4, procs/4)
}

// intBlock is a block of an integer array: up to readsPerBlock (1 on one core)
// reads' values, and each read's outcome: how many values it read, whether
// the array ended, its error, and the offset after it. A read that took the
// text of its values (IntsText) has it in text until parse reads it.
type intBlock struct {
	vals  []int64
	reads []intRead
	text  []byte
}

type intRead struct {
	n    int
	done bool
	err  error
	end  int64
	bad  jsonscan.NonIntegers // the values it read as 0
	// A read of text (IntsText): where it starts in the document, where
	// it lies in the block's text, and the first it was taken with; after
	// is the error of reading on past its values where they are not
	// well-formed (More fails where their last comma was expected).
	text   bool
	first  bool
	start  int64
	lo, hi int
	after  error
}

// parse reads the values of the block's reads of text, as ReadIntsLenient
// would have read them from the stream (jsonscan.IntsText says why they
// are the same).
func (b *intBlock) parse(per int) {
	for i := range b.reads {
		if b.reads[i].text {
			b.parseText(i, per)
		}
	}
}

// parseText reads the values of read i, a read of text. A panic there is
// raised again as a textPanic, naming where the text starts.
func (b *intBlock) parseText(i, per int) {
	r := &b.reads[i]
	defer func() {
		if p := recover(); p != nil {
			panic(textPanic{p: p, at: r.start})
		}
	}()
	js, first := jsonscan.NewBytesAt(b.text[r.lo:r.hi], r.start), r.first
	n, done, err := js.ReadIntsLenient(b.vals[i*per:(i+1)*per], &first, &r.bad)
	r.n, r.err, r.end = n, err, js.Offset()
	if err == nil {
		if done || n != per {
			panic(fmt.Sprintf("read %d values of a text of %d, done %v", n, per, done))
		}
		if more, err := js.More(false); err != nil {
			r.after = err
		} else if !more || !js.AtEOF() {
			panic("the values of a text are not followed by its last comma")
		}
	}
}

const readsPerBlock = 8

// maxTextPerValue bounds the text of a read that IntsText takes, per value
// (snapshots have 2 to 10 bytes a value, separators included): the blocks
// in flight hold at most 25 MB of it (8 blocks of 8 reads of 12 285
// values, with 4 workers), however much white space the array has or
// however far a long string made the JSON buffer grow. A read with more is
// read from the stream.
const maxTextPerValue = 32

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

// strings reads the strings array, one block ahead of the Writer
// (readAhead).
func (d *decoder) strings() error {
	js := d.js
	if err := js.Expect('['); err != nil {
		return err
	}
	var cuts stringCuts
	defer cuts.report(d.w, d.maxString)
	first := true
	fill := func(b *stringBlock) bool {
		b.s, b.err, b.cuts = b.s[:0], nil, stringCuts{}
		for len(b.s) < stringsPerBlock {
			more, err := js.More(first)
			if err != nil || !more {
				b.err, b.end = err, js.Offset()
				return true
			}
			first = false
			at := js.Offset()
			var cut bool
			if d.scratch, cut, err = js.ReadStringMax(d.scratch[:0], d.maxString); err != nil {
				b.err, b.end = err, js.Offset()
				return true
			}
			if cut {
				b.cuts.add(stringCuts{n: 1, first: at})
			}
			b.s = append(b.s, string(d.scratch))
		}
		b.end = js.Offset()
		return false
	}
	take := func(b *stringBlock) (bool, error) {
		d.blockEnd = b.end
		for _, s := range b.s {
			d.w.String(s)
		}
		cuts.add(b.cuts)
		clear(b.s) // the Writer keeps what it needs
		return b.err != nil || len(b.s) < stringsPerBlock, b.err
	}
	ahead := runtime.GOMAXPROCS(0) > 1
	if ahead {
		// The first block at once, grown as it is read: a small array
		// (every small snapshot's) starts no goroutine and makes no block
		// of stringsPerBlock.
		var b stringBlock
		last := fill(&b)
		if done, err := take(&b); done || last {
			return err
		}
	}
	return readAhead(d, ahead, 0, func() *stringBlock { return &stringBlock{s: make([]string, 0, stringsPerBlock)} }, fill, nil, take)
}

// stringCuts counts the strings cut to maxString bytes and names the
// offset of the first.
type stringCuts struct {
	n     int64
	first int64
}

func (c *stringCuts) add(o stringCuts) {
	if c.n == 0 {
		c.first = o.first
	}
	c.n += o.n
}

// report counts the cut strings as js_heap_strings data_lost, with a warning.
func (c *stringCuts) report(w *heapfile.Writer, maxString int) {
	if c.n > 0 {
		w.Report(stat.JSHeapStrings, stat.DataLost, c.n, fmt.Sprintf(
			"%d strings longer than %d bytes were cut to their first %d (the first at offset %d)",
			c.n, maxString, maxString, c.first))
	}
}

// stringBlock is a block of the strings array: up to stringsPerBlock
// strings, the error that ended the reading, if any, the offset after
// the block and the strings cut.
type stringBlock struct {
	s    []string
	err  error
	end  int64
	cuts stringCuts
}

const stringsPerBlock = 4096

func (d *decoder) functionInfo(l layout, t []int64) {
	d.w.FunctionInfo(l.get(t, 0), l.get(t, 1), l.get(t, 2), l.get(t, 3), l.get(t, 4), l.get(t, 5))
}

func (d *decoder) sample(l layout, t []int64) { d.w.Sample(l.get(t, 0), l.get(t, 1)) }

func (d *decoder) location(l layout, t []int64) {
	d.w.Location(l.get(t, 0), l.get(t, 1), l.get(t, 2), l.get(t, 3))
}
