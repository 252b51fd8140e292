package event

// Benchmarks of the element decoder (Decoder.Decode: fastDecode, falling
// back to jsonscan) against github.com/bytedance/sonic doing the same job on
// real Trace Event elements: the Event the importer needs and its record
// (AppendRecord), which is what the first pass's workers make of each
// element. The inputs are the bundled captures (the same ones
// internal/cmd/benchrun's realistic trace tiles). TestSonicSame checks that the
// sonic version gives the same events on them; doc.go gives the figures and
// the choice.

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/bytedance/sonic"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/traceevent/tokenizer"
)

// captureElements returns the traceEvents elements of the bundled captures,
// copied, and their total size.
func captureElements(tb testing.TB) ([][]byte, int64) {
	tb.Helper()
	var els [][]byte
	var size int64
	files, _ := testutil.Captures(tb)
	for _, data := range files {
		rd, err := tokenizer.NewReader(bytes.NewReader(data))
		if err != nil {
			tb.Fatal(err)
		}
		for {
			el, err := rd.Next()
			if err != nil {
				break
			}
			els = append(els, bytes.Clone(el.Raw))
			size += int64(len(el.Raw))
		}
	}
	if len(els) < 100000 {
		tb.Fatalf("%d elements in the captures, want at least 100000", len(els))
	}
	return els, size
}

// sonicElement is an element's members as sonic finds them, each left as its
// raw JSON so that Event.field gives them the importer's meaning (exact
// µs → ns, numeric strings, string pids, invalid UTF-8 replaced, interning).
type sonicElement struct {
	Ph      sonic.NoCopyRawMessage `json:"ph"`
	TS      sonic.NoCopyRawMessage `json:"ts"`
	Dur     sonic.NoCopyRawMessage `json:"dur"`
	TTS     sonic.NoCopyRawMessage `json:"tts"`
	TDur    sonic.NoCopyRawMessage `json:"tdur"`
	Pid     sonic.NoCopyRawMessage `json:"pid"`
	Tid     sonic.NoCopyRawMessage `json:"tid"`
	Name    sonic.NoCopyRawMessage `json:"name"`
	Cat     sonic.NoCopyRawMessage `json:"cat"`
	Args    sonic.NoCopyRawMessage `json:"args"`
	ID      sonic.NoCopyRawMessage `json:"id"`
	ID2     sonic.NoCopyRawMessage `json:"id2"`
	Scope   sonic.NoCopyRawMessage `json:"scope"`
	S       sonic.NoCopyRawMessage `json:"s"`
	BP      sonic.NoCopyRawMessage `json:"bp"`
	BindID  sonic.NoCopyRawMessage `json:"bind_id"`
	FlowIn  sonic.NoCopyRawMessage `json:"flow_in"`
	FlowOut sonic.NoCopyRawMessage `json:"flow_out"`
	SF      sonic.NoCopyRawMessage `json:"sf"`
	ESF     sonic.NoCopyRawMessage `json:"esf"`
	CName   sonic.NoCopyRawMessage `json:"cname"`
	Stack   sonic.NoCopyRawMessage `json:"stack"`
	EStack  sonic.NoCopyRawMessage `json:"estack"`
}

// sonicTyped lets sonic decode the strings and numbers itself (the shape a
// sonic-based decoder would naturally take); times stay as number text, the
// only way to keep µs exact.
type sonicTyped struct {
	Ph   string                 `json:"ph"`
	TS   sonic.NoCopyRawMessage `json:"ts"`
	Dur  sonic.NoCopyRawMessage `json:"dur"`
	TTS  sonic.NoCopyRawMessage `json:"tts"`
	TDur sonic.NoCopyRawMessage `json:"tdur"`
	Pid  sonic.NoCopyRawMessage `json:"pid"`
	Tid  sonic.NoCopyRawMessage `json:"tid"`
	Name string                 `json:"name"`
	Cat  string                 `json:"cat"`
	Args sonic.NoCopyRawMessage `json:"args"`
	ID   sonic.NoCopyRawMessage `json:"id"`
	ID2  sonic.NoCopyRawMessage `json:"id2"`
	Bind sonic.NoCopyRawMessage `json:"bind_id"`
}

// sonicAPI matches keys exactly, as our decoders do, and refuses invalid
// UTF-8 (an element sonic refuses would go to the general decoder).
var sonicAPI = sonic.Config{CaseSensitive: true, ValidateString: true}.Froze()

// decodeSonic fills d.ev from raw as Decode does, with sonic finding the
// members. Duplicate keys (counted by Decode) are not seen: sonic keeps the
// last value.
func (d *Decoder) decodeSonic(raw []byte, el *sonicElement) error {
	*el = sonicElement{}
	if err := sonicAPI.Unmarshal(raw, el); err != nil {
		return err
	}
	d.target()
	*d.ev = Event{dec: d}
	ev := d.ev
	// In the order Event.field would see them in Chrome's elements; a
	// field's meaning does not depend on the order except for duplicates.
	for _, m := range [...]struct {
		key string
		raw []byte
	}{{"ph", el.Ph}, {"ts", el.TS}, {"dur", el.Dur}, {"tts", el.TTS}, {"tdur", el.TDur}, {"pid", el.Pid},
		{"tid", el.Tid}, {"name", el.Name}, {"cat", el.Cat}, {"args", el.Args}, {"id", el.ID}, {"id2", el.ID2},
		{"scope", el.Scope}, {"s", el.S}, {"bp", el.BP}, {"bind_id", el.BindID}, {"flow_in", el.FlowIn},
		{"flow_out", el.FlowOut}, {"sf", el.SF}, {"esf", el.ESF}, {"cname", el.CName}, {"stack", el.Stack},
		{"estack", el.EStack}} {
		if m.raw != nil {
			ev.field([]byte(m.key), m.raw)
		}
	}
	ev.dec = nil
	return nil
}

// TestSonicSame checks that decodeSonic gives Decode's events on the
// captures (they have no duplicate keys), so that the benchmarks compare
// the same work.
func TestSonicSame(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the captures")
	}
	els, _ := captureElements(t)
	var ours, theirs Decoder
	var el sonicElement
	for i, raw := range els {
		want, err := ours.Decode(&tokenizer.Element{Raw: raw})
		if err != nil {
			t.Fatalf("element %d: %v", i, err)
		}
		if err := theirs.decodeSonic(raw, &el); err != nil {
			t.Fatalf("element %d: sonic: %v", i, err)
		}
		if !reflect.DeepEqual(*theirs.ev, *want) {
			t.Fatalf("element %d %s:\nsonic %+v\nours  %+v", i, raw, *theirs.ev, *want)
		}
	}
}

// BenchmarkElements decodes every element of the captures into its Event
// and record: ours, sonic with raw members and the importer's field
// decoding, and sonic decoding strings itself (a lower bound for sonic: its
// values still need the importer's conversions). ns/element and MB/s are
// per element byte.
func BenchmarkElements(b *testing.B) {
	els, size := captureElements(b)
	run := func(b *testing.B, decode func(raw []byte, rec []byte) []byte) {
		b.SetBytes(size)
		rec := make([]byte, 0, 1<<16)
		for b.Loop() {
			for _, raw := range els {
				rec = decode(raw, rec[:0])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(els)), "ns/element")
	}
	b.Run("ours", func(b *testing.B) {
		var d Decoder
		run(b, func(raw, rec []byte) []byte {
			ev, err := d.Decode(&tokenizer.Element{Raw: raw})
			if err != nil {
				b.Fatal(err)
			}
			return AppendRecord(rec, ev)
		})
	})
	b.Run("sonic", func(b *testing.B) {
		var d Decoder
		var el sonicElement
		run(b, func(raw, rec []byte) []byte {
			if err := d.decodeSonic(raw, &el); err != nil {
				b.Fatal(err)
			}
			return AppendRecord(rec, d.ev)
		})
	})
	b.Run("sonic-typed", func(b *testing.B) {
		var el sonicTyped
		run(b, func(raw, rec []byte) []byte {
			el = sonicTyped{}
			if err := sonicAPI.Unmarshal(raw, &el); err != nil {
				b.Fatal(err)
			}
			ev := Event{Name: el.Name, Cat: el.Cat, HasName: el.Name != "", HasCat: el.Cat != "", Args: el.Args,
				ID: el.ID, ID2: el.ID2, BindID: el.Bind}
			if el.Ph != "" {
				ev.Ph = el.Ph[0]
			}
			for _, t := range [...]struct {
				dst *Time
				raw []byte
			}{{&ev.TS, el.TS}, {&ev.Dur, el.Dur}, {&ev.TTS, el.TTS}, {&ev.TDur, el.TDur}} {
				if t.raw != nil {
					*t.dst = ev.time(t.raw)
				}
			}
			if el.Pid != nil {
				ev.Pid = ev.ident(el.Pid)
			}
			if el.Tid != nil {
				ev.Tid = ev.ident(el.Tid)
			}
			return AppendRecord(rec, &ev)
		})
	})
}

// BenchmarkFlattenArgs flattens the args of every element of the captures
// that has them, sharing strings through one Decoder as the importer's
// workers do. MB/s are per byte of args.
func BenchmarkFlattenArgs(b *testing.B) {
	els, _ := captureElements(b)
	var args [][]byte
	var size int64
	var d Decoder
	for _, raw := range els {
		ev, err := d.Decode(&tokenizer.Element{Raw: raw})
		if err != nil {
			b.Fatal(err)
		}
		if len(ev.Args) > 0 && ev.Args[0] == '{' {
			args = append(args, bytes.Clone(ev.Args))
			size += int64(len(ev.Args))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var list []Arg
	for b.Loop() {
		for _, raw := range args {
			var err error
			if list, _, err = AppendArgs(list[:0], raw, &d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(args)), "ns/args")
}
