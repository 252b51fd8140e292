package cpuprofile

// Benchmarks of Parse (jsonscan) against github.com/bytedance/sonic doing the
// same job: the finished Profile the writer needs. parseSonic is the sonic
// version that was tried as Parse's fast path (with the configuration closest
// to jsonscan, and with sonic's ConfigStd and ConfigFastest); TestSonicSame
// checks that it gives Parse's Profile on the benchmark inputs, and the test
// after it shows why it was not adopted.
//
// Inputs: the bundled node profile, the reference's ArkTS profile, and any
// .cpuprofile files in .cache/sonicbench (e.g. written by
// testdata/bench/gen-cpuprofile.js).

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/bytedance/sonic"

	"tracestreamer/internal/testutil"
)

// sonicAPI is the sonic configuration closest to jsonscan: keys
// matched exactly as jsonscan matches them, strings copied out of the input
// (the writer's dictionary keeps them after the record buffer is reused), and
// invalid UTF-8, control characters and lone surrogates refused, so that
// jsonscan decides how such text is read.
var sonicAPI = sonic.Config{CaseSensitive: true, CopyString: true, ValidateString: true, UseUnicodeErrors: true}.Froze()

type sonicCallFrame struct {
	FunctionName string                 `json:"functionName"`
	ScriptID     sonic.NoCopyRawMessage `json:"scriptId"`
	URL          string                 `json:"url"`
	LineNumber   int64                  `json:"lineNumber"`
	ColumnNumber int64                  `json:"columnNumber"`
}

type sonicNode struct {
	ID        *int64         `json:"id"`
	CallFrame sonicCallFrame `json:"callFrame"`
	HitCount  *int64         `json:"hitCount"`
	Children  []int64        `json:"children"`
	Parent    int64          `json:"parent"`
}

type sonicProfile struct {
	Nodes      *[]sonicNode           `json:"nodes"`
	StartTime  sonic.NoCopyRawMessage `json:"startTime"`
	EndTime    sonic.NoCopyRawMessage `json:"endTime"`
	Samples    *[]int64               `json:"samples"`
	TimeDeltas *[]int64               `json:"timeDeltas"` // µs, whole only
}

// sonicLimit is the largest whole µs delta whose ns value fits an int64.
const sonicLimit = math.MaxInt64 / 1000

// parseSonic decodes a current-format profile with sonic's typed decoder, as
// a fast path of Parse would: ok is false whenever its result could differ
// from the jsonscan decoder's (any error, the legacy format, null anywhere in the text,
// a repeated "nodes" member, fractional deltas, a scriptId or time that is
// neither string nor number), and the caller then decodes b with jsonscan,
// which also gives the errors their offsets and member paths.
//
// A profile it decoded is finished (parents, hit counts); err is finish's.
func parseSonic(api sonic.API, b []byte) (p *Profile, ok bool, err error) {
	if bytes.Contains(b, []byte("null")) || bytes.Contains(b, []byte(`"head"`)) ||
		bytes.Contains(b, []byte(`"timestamps"`)) || bytes.Count(b, []byte(`"nodes"`)) != 1 {
		return nil, false, nil
	}
	defer func() {
		if recover() != nil {
			p, ok, err = nil, false, nil
		}
	}()
	var s sonicProfile
	if err := api.Unmarshal(b, &s); err != nil || s.Nodes == nil || !isNumber(s.StartTime) ||
		(s.EndTime != nil && !isNumber(s.EndTime)) || (s.TimeDeltas != nil && s.Samples == nil) {
		return nil, false, nil
	}
	p = &Profile{startText: bytes.Clone(s.StartTime), HasEndTime: s.EndTime != nil, endText: bytes.Clone(s.EndTime)}
	if s.Samples != nil {
		p.Samples = *s.Samples
	}
	if s.TimeDeltas != nil {
		p.TimeDeltas = *s.TimeDeltas
		for i, d := range p.TimeDeltas {
			if d > sonicLimit || d < -sonicLimit {
				return nil, false, nil
			}
			p.TimeDeltas[i] = d * 1000
		}
	}
	if len(*s.Nodes) > 0 { // jsonscan leaves an empty list nil
		p.Nodes = make([]Node, len(*s.Nodes))
	}
	for i, n := range *s.Nodes {
		if n.ID == nil {
			return nil, false, nil
		}
		script, ok := scriptID(api, n.CallFrame.ScriptID)
		if !ok {
			return nil, false, nil
		}
		hits := int64(-1)
		if n.HitCount != nil {
			hits = *n.HitCount
		}
		p.Nodes[i] = Node{ID: *n.ID, FunctionName: n.CallFrame.FunctionName, ScriptID: script, URL: n.CallFrame.URL,
			LineNumber: n.CallFrame.LineNumber, ColumnNumber: n.CallFrame.ColumnNumber, HitCount: hits,
			Children: n.Children, Parent: n.Parent}
	}
	if p.times() != nil {
		return nil, false, nil
	}
	if err := p.finish(); err != nil {
		return nil, true, err
	}
	return p, true, nil
}

// isNumber tells whether raw, a valid JSON value, is a number.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

// scriptID returns a scriptId as the jsonscan decoder reads it: a string's
// content or a number's text.
func scriptID(api sonic.API, raw []byte) (string, bool) {
	switch {
	case raw == nil:
		return "", true
	case isNumber(raw):
		return string(raw), true
	case raw[0] == '"':
		if plainASCII(raw[1 : len(raw)-1]) {
			return string(raw[1 : len(raw)-1]), true
		}
		var s string
		if err := api.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// plainASCII tells whether a string's text needs no unescaping or validation.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// benchProfiles returns the benchmark inputs by name.
func benchProfiles(tb testing.TB) map[string][]byte {
	in := map[string][]byte{
		"node":      testutil.Fixture(tb, "node/profile.cpuprofile"),
		"reference": []byte(refProfile),
	}
	files, _ := filepath.Glob(filepath.Join(testutil.Root(), ".cache", "sonicbench", "*.cpuprofile"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		in[strings.TrimSuffix(filepath.Base(f), ".cpuprofile")] = b
	}
	return in
}

func sortedNames(m map[string][]byte) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

var sonicAPIs = []struct {
	name string
	api  sonic.API
}{{"sonic", sonicAPI}, {"sonicStd", sonic.ConfigStd}, {"sonicFastest", sonic.ConfigFastest}}

// sameParse checks that parseSonic, when it takes b, gives what Parse
// gives.
func sameParse(t *testing.T, name string, b []byte) (took bool) {
	t.Helper()
	got, ok, err := parseSonic(sonicAPI, b)
	if !ok {
		return false
	}
	want, werr := Parse(b)
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
		t.Fatalf("%s: sonic error %v, jsonscan error %v", name, err, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: profiles differ:\n%+v\n%+v", name, got, want)
	}
	return true
}

func TestSonicSame(t *testing.T) {
	inputs := benchProfiles(t)
	inputs["legacy"] = testutil.Fixture(t, "node/profile.legacy.cpuprofile")
	inputs["parent form"] = []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"r","scriptId":0}},{"id":2,"parent":1}],"startTime":0,"samples":[2,2,7],"timeDeltas":[1,1,1]}`)
	inputs["escaped"] = []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"a\"b\u00e9","scriptId":"\u0031","url":"x\\y"}}],"startTime":3,"endTime":4}`)
	inputs["duplicate ids"] = []byte(`{"nodes":[{"id":1},{"id":1}],"startTime":0}`)
	inputs["fractional"] = []byte(`{"nodes":[{"id":1},{"id":2}],"startTime":1.5,"samples":[1,2],"timeDeltas":[0.25,1]}`)
	inputs["big delta"] = []byte(`{"nodes":[{"id":1}],"startTime":0,"samples":[1],"timeDeltas":[9223372036854776]}`)
	inputs["largest delta"] = []byte(`{"nodes":[{"id":1}],"startTime":0,"samples":[1],"timeDeltas":[-9223372036854775]}`)
	inputs["null"] = []byte(`{"nodes":[{"id":1,"hitCount":null}],"startTime":0}`)
	inputs["case"] = []byte(`{"nodes":[{"id":1}],"startTime":0,"Samples":[1]}`)
	takes := map[string]bool{"node": true, "reference": true, "parent form": true, "escaped": true, "duplicate ids": true,
		"largest delta": true}
	for _, name := range sortedNames(inputs) {
		took := sameParse(t, name, inputs[name])
		if want, ok := takes[name]; ok && took != want {
			t.Errorf("%s: sonic path taken %v, want %v", name, took, want)
		}
		if name == "legacy" || name == "fractional" || name == "big delta" || name == "null" {
			if took {
				t.Errorf("%s: sonic path taken", name)
			}
		}
	}
}

// TestSonicSkipsUnchecked: sonic's typed decoder (sonic.Valid too) does not
// always check the strings of members it skips, so a profile that Parse
// refuses can decode with it; keeping Parse's behaviour would need a
// validating pass of its own (found by fuzzing the fast path against Parse).
func TestSonicSkipsUnchecked(t *testing.T) {
	b := []byte(`{"nodes":[{"id":0,"":{"":"\0","":""}}],"startTime":0,"":0}`)
	if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), "invalid escape") {
		t.Fatalf("Parse: %v", err)
	}
	if !sonicAPI.Valid(b) {
		t.Errorf("sonic.Valid refused it: the fast path may be reconsidered")
	}
	if _, ok, err := parseSonic(sonicAPI, b); !ok || err != nil {
		t.Errorf("sonic refused it (ok %v, %v): the fast path may be reconsidered", ok, err)
	}
}

// BenchmarkParse compares the decoders on every input.
func BenchmarkParse(b *testing.B) {
	inputs := benchProfiles(b)
	for _, name := range sortedNames(inputs) {
		text := inputs[name]
		b.Run(name+"/jsonscan", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(text); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, a := range sonicAPIs {
			b.Run(name+"/"+a.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					if _, ok, err := parseSonic(a.api, text); !ok || err != nil {
						b.Fatal("sonic path not taken", err)
					}
				}
			})
		}
	}
}
