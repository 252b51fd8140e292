package traceevent

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/event"
	"tracestreamer/parser/traceevent/extsort"
	"tracestreamer/parser/traceevent/tokenizer"
	"tracestreamer/parser/traceevent/tracker"
)

// TestNodeTrace reads a real trace written by node --trace-events-enabled:
// every element decodes, every B finds its E, the events sort, and the
// process/thread names come from its metadata.
func TestNodeTrace(t *testing.T) {
	r, err := tokenizer.NewReader(bytes.NewReader(testutil.Fixture(t, "node/trace.json")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Form() != tokenizer.ObjectForm {
		t.Fatalf("form %v", r.Form())
	}
	sorter := extsort.NewSorter(1 << 20)
	o := event.NewOrderer()
	phases := map[byte]int{}
	for {
		el, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev, err := event.Decode(el)
		if err != nil {
			t.Fatalf("element %d at %d: %v", el.Seq, el.Offset, err)
		}
		phases[ev.Ph]++
		if err := sorter.Add(o.Key(ev), el.Offset, el.Raw); err != nil {
			t.Fatal(err)
		}
	}
	if r.Problems != (tokenizer.Problems{}) || phases['B'] == 0 || phases['B'] != phases['E'] || phases['X'] == 0 || phases['M'] == 0 {
		t.Fatalf("problems %+v, phases %v", r.Problems, phases)
	}
	var st problems
	st.init()
	th := tracker.NewThreads(&st, 0)
	slices := tracker.NewSlices(&st, 0)
	unmatched := 0
	last := int64(-1)
	err = sorter.Sorted(nil, func(k extsort.Key, off int64, raw []byte) error {
		if k.TS < last {
			t.Errorf("time goes back at offset %d", off)
		}
		last = k.TS
		ev, err := event.Decode(&tokenizer.Element{Seq: k.Seq, Offset: off, Raw: raw})
		if err != nil {
			return err
		}
		ipid, itid, _ := th.Lookup(ev)
		switch ev.Ph {
		case 'B':
			slices.Begin(itid, ev)
		case 'E':
			if slices.End(itid, ev) == nil {
				unmatched++
			}
		case 'X':
			slices.Complete(itid, ev, ev.Dur.NS)
		case 'M':
			th.Metadata(ipid, itid, ev)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Finish()
	if st.counted() != 0 || unmatched != 0 {
		t.Errorf("%d unmatched E, counted %d cells: %+v", unmatched, st.counted(), st.cells)
	}
	if len(slices.Rows()) != phases['B']+phases['X'] {
		t.Errorf("%d slices for %d B and %d X", len(slices.Rows()), phases['B'], phases['X'])
	}
	if name, _ := th.ProcessName(1); name != "node" {
		t.Errorf("process name %q, want node", name)
	}
}
