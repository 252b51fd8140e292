package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

// genTrace writes a Chrome Trace Event file of about size bytes, shaped like a
// browser trace: 8 processes × 6 threads running tasks (B/E with nested X
// slices written child-first, as Chrome writes them at scope end, with tts and
// args), and among them thread instants, process and global instants,
// counters, nestable async pairs, legacy async S/T/F, v1 and v2 flows, P
// samples, object N/O/D and metadata. Threads are written in interleaved
// bursts, so the file is not in time order. The content is deterministic.
func genTrace(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := &traceGen{w: w, rnd: rand.New(rand.NewPCG(1, 2))}
	w.WriteString("{\"traceEvents\":[\n")
	const procs, threads = 8, 6
	for p := range procs {
		pid := 1000 + p*37
		g.meta(pid, pid, "process_name", fmt.Sprintf(`{"name":"Renderer %d"}`, p))
		for t := range threads {
			g.meta(pid, pid+t, "thread_name", fmt.Sprintf(`{"name":"Worker/%d"}`, t))
		}
	}
	clocks := make([]float64, procs*threads)
	for i := range clocks {
		clocks[i] = 1e9 + float64(i)*13.7
	}
	for n := 0; g.n < size; n++ {
		i := g.rnd.IntN(len(clocks))
		pid := 1000 + (i/threads)*37
		tid := pid + i%threads
		// A burst of tasks on one thread.
		for range 1 + g.rnd.IntN(4) {
			clocks[i] = g.task(pid, tid, clocks[i])
		}
	}
	w.WriteString("{\"ph\":\"M\",\"pid\":1000,\"tid\":1000,\"name\":\"trace_end\",\"args\":{}}\n],\"displayTimeUnit\":\"ms\",\"metadata\":{\"generator\":\"benchrun\"}}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type traceGen struct {
	w     *bufio.Writer
	rnd   *rand.Rand
	n     int64 // bytes written
	buf   []byte
	ids   int
	flows int
}

var taskNames = []string{"ThreadControllerImpl::RunTask", "SimpleWatcher::OnHandleReady", "Blink.Layout",
	"v8.run", "V8.GCScavenger", "Paint", "ParseHTML", "FunctionCall", "EventDispatch", "UpdateLayoutTree"}
var cats = []string{"toplevel", "blink", "v8", "disabled-by-default-devtools.timeline", "cc,benchmark", "loading"}

func (g *traceGen) emit() {
	g.buf = append(g.buf, ",\n"...)
	g.n += int64(len(g.buf))
	g.w.Write(g.buf)
	g.buf = g.buf[:0]
}

func (g *traceGen) head(ph string, pid, tid int, ts float64, cat, name string) {
	b := g.buf
	b = append(b, `{"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"ts":`...)
	b = strconv.AppendFloat(b, ts, 'f', 3, 64)
	b = append(b, `,"ph":"`...)
	b = append(b, ph...)
	b = append(b, `","cat":"`...)
	b = append(b, cat...)
	b = append(b, `","name":"`...)
	b = append(b, name...)
	b = append(b, '"')
	g.buf = b
}

func (g *traceGen) meta(pid, tid int, name, args string) {
	g.buf = append(g.buf, `{"pid":`...)
	g.buf = strconv.AppendInt(g.buf, int64(pid), 10)
	g.buf = append(g.buf, `,"tid":`...)
	g.buf = strconv.AppendInt(g.buf, int64(tid), 10)
	g.buf = append(g.buf, `,"ph":"M","name":"`...)
	g.buf = append(g.buf, name...)
	g.buf = append(g.buf, `","args":`...)
	g.buf = append(g.buf, args...)
	g.buf = append(g.buf, '}')
	g.emit()
}

// x writes a complete slice with thread time and args.
func (g *traceGen) x(pid, tid int, ts, dur float64, cat, name string) {
	g.head("X", pid, tid, ts, cat, name)
	g.buf = append(g.buf, `,"dur":`...)
	g.buf = strconv.AppendFloat(g.buf, dur, 'f', 3, 64)
	g.buf = append(g.buf, `,"tts":`...)
	g.buf = strconv.AppendFloat(g.buf, ts/3, 'f', 3, 64)
	g.buf = append(g.buf, `,"tdur":`...)
	g.buf = strconv.AppendFloat(g.buf, dur*0.8, 'f', 3, 64)
	// A page has a few frames: their ids repeat, as in Chrome traces.
	g.buf = append(g.buf, `,"args":{"data":{"frame":"0x7f3a`...)
	g.buf = strconv.AppendUint(g.buf, uint64(0x1000+g.rnd.IntN(64)*0x40), 16)
	g.buf = append(g.buf, `","nodes":`...)
	g.buf = strconv.AppendInt(g.buf, int64(g.rnd.IntN(5000)), 10)
	g.buf = append(g.buf, `}}}`...)
	g.emit()
}

// task writes one top-level task of a thread starting at t and returns the
// time after it.
func (g *traceGen) task(pid, tid int, t float64) float64 {
	r := g.rnd
	start := t + 1 + float64(r.IntN(50))
	name := taskNames[r.IntN(len(taskNames))]
	g.head("B", pid, tid, start, "toplevel", name)
	g.buf = append(g.buf, `,"tts":`...)
	g.buf = strconv.AppendFloat(g.buf, start/3, 'f', 3, 64)
	g.buf = append(g.buf, `,"args":{"src_file":"../../base/task/sequence_manager.cc","src_func":"PostTask"}}`...)
	g.emit()
	cur := start + 0.5
	for range 1 + r.IntN(4) {
		d := 5 + float64(r.IntN(400))/4
		// Grand-children first: Chrome writes X events when they end.
		inner := cur + 0.25
		for range r.IntN(3) {
			id := 1 + float64(r.IntN(40))/8
			if inner+id >= cur+d {
				break
			}
			g.x(pid, tid, inner, id, cats[r.IntN(len(cats))], taskNames[r.IntN(len(taskNames))])
			inner += id + 0.125
		}
		g.x(pid, tid, cur, d, cats[r.IntN(len(cats))], taskNames[r.IntN(len(taskNames))])
		cur += d + 0.5
	}
	switch k := r.IntN(20); {
	case k < 4: // thread instant
		g.head("i", pid, tid, cur-0.25, "devtools.timeline", "InvalidateLayout")
		g.buf = append(g.buf, `,"s":"t","args":{"frame":"F1"}}`...)
		g.emit()
	case k < 5: // process instant
		g.head("I", pid, tid, cur-0.25, "loading", "MarkLoad")
		g.buf = append(g.buf, `,"s":"p"}`...)
		g.emit()
	case k < 8: // counters
		g.head("C", pid, tid, start, "v8", "JSHeap")
		g.buf = append(g.buf, `,"args":{"used":`...)
		g.buf = strconv.AppendInt(g.buf, int64(1e6+r.IntN(1e7)), 10)
		g.buf = append(g.buf, `,"total":`...)
		g.buf = strconv.AppendInt(g.buf, int64(2e7), 10)
		g.buf = append(g.buf, `}}`...)
		g.emit()
	case k < 10: // nestable async pair
		g.ids++
		id := strconv.Itoa(g.ids)
		g.head("b", pid, tid, start, "loading", "Request")
		g.buf = append(g.buf, `,"id2":{"local":"0x`+id+`"},"args":{"url":"https://example.com/r/`+id+`"}}`...)
		g.emit()
		g.head("e", pid, tid, cur, "loading", "Request")
		g.buf = append(g.buf, `,"id2":{"local":"0x`+id+`"}}`...)
		g.emit()
	case k < 11: // legacy async
		g.ids++
		id := strconv.Itoa(g.ids)
		g.head("S", pid, tid, start, "net", "Load")
		g.buf = append(g.buf, `,"id":"`+id+`"}`...)
		g.emit()
		g.head("T", pid, tid, (start+cur)/2, "net", "Load")
		g.buf = append(g.buf, `,"id":"`+id+`","args":{"step":"Parse"}}`...)
		g.emit()
		g.head("F", pid, tid, cur, "net", "Load")
		g.buf = append(g.buf, `,"id":"`+id+`"}`...)
		g.emit()
	case k < 13: // v1 flow start inside the task, v2 producer on a child
		g.flows++
		g.head("s", pid, tid, start+0.25, "ipc", "Mojo")
		g.buf = append(g.buf, `,"id":`...)
		g.buf = strconv.AppendInt(g.buf, int64(g.flows), 10)
		g.buf = append(g.buf, '}')
		g.emit()
		g.head("f", pid, tid+1-2*(tid%2), cur+10, "ipc", "Mojo")
		g.buf = append(g.buf, `,"id":`...)
		g.buf = strconv.AppendInt(g.buf, int64(g.flows), 10)
		g.buf = append(g.buf, `,"bp":"e"}`...)
		g.emit()
	case k < 14: // sample
		g.head("P", pid, tid, cur-0.125, "cpu", "sample")
		g.buf = append(g.buf, `}`...)
		g.emit()
	case k < 15: // object life
		g.ids++
		id := strconv.Itoa(g.ids)
		g.head("N", pid, tid, start, "cc", "Layer")
		g.buf = append(g.buf, `,"id":"0x`+id+`"}`...)
		g.emit()
		g.head("O", pid, tid, start+0.5, "cc", "Layer")
		g.buf = append(g.buf, `,"id":"0x`+id+`","args":{"snapshot":{"bounds":[0,0,100,200],"opacity":1}}}`...)
		g.emit()
		g.head("D", pid, tid, cur, "cc", "Layer")
		g.buf = append(g.buf, `,"id":"0x`+id+`"}`...)
		g.emit()
	}
	g.head("E", pid, tid, cur, "toplevel", name)
	g.buf = append(g.buf, `,"tts":`...)
	g.buf = strconv.AppendFloat(g.buf, cur/3, 'f', 3, 64)
	g.buf = append(g.buf, '}')
	g.emit()
	return cur
}
