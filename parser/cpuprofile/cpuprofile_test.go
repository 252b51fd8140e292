package cpuprofile

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// refProfile is the profile of the reference's CPU tests (docs/format/cpuprofile.md#current-format).
const refProfile = `{"tid":1394,"startTime":8013755173,"endTime":8034596087,"gcTime":0,"cInterpreterTime":0,` +
	`"asmInterpreterTime":0,"aotTime":0,"builtinTime":0,"napiTime":0,"arkuiEngineTime":0,"runtimeTime":0,"otherTime":20840914,` +
	`"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3,4]},` +
	`{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":113097,"children":[]},` +
	`{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[]},` +
	`{"id":4,"callFrame":{"functionName":"anonymous","scriptId":"1","url":"D:/workspace_ohos_system/Music/entry/build/default/intermediates/assets_jsbundle/default/ets/pages/index_.js","lineNumber":2922,"columnNumber":36},"hitCount":1,"children":[]}],` +
	`"samples":[2,3,4,2,2,2,2,3,3,3,3,4,4,4],"timeDeltas":[99,72,215,637,96,288,36,89,94,54,26,598,784,522]}`

func mustParse(t *testing.T, s string) *Profile {
	t.Helper()
	p, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestReferenceProfileNodes(t *testing.T) {
	p := mustParse(t, refProfile)
	if len(p.Nodes) != 4 {
		t.Fatalf("%d nodes", len(p.Nodes))
	}
	want := []Node{
		{ID: 1, FunctionName: "(root)", ScriptID: "0", LineNumber: -1, ColumnNumber: -1, HitCount: 0, Children: []int64{2, 3, 4}},
		{ID: 2, FunctionName: "(program)", ScriptID: "0", LineNumber: -1, ColumnNumber: -1, HitCount: 113097, Children: []int64{}, Parent: 1},
		{ID: 3, FunctionName: "(idle)", ScriptID: "0", LineNumber: -1, ColumnNumber: -1, Children: []int64{}, Parent: 1},
		{ID: 4, FunctionName: "anonymous", ScriptID: "1", URL: "D:/workspace_ohos_system/Music/entry/build/default/intermediates/assets_jsbundle/default/ets/pages/index_.js",
			LineNumber: 2922, ColumnNumber: 36, HitCount: 1, Children: []int64{}, Parent: 1},
	}
	if !reflect.DeepEqual(p.Nodes, want) {
		t.Errorf("nodes:\n%+v\nwant\n%+v", p.Nodes, want)
	}
	if p.StartTime != 8013755173000 || p.EndTime != 8034596087000 || len(p.Problems) != 0 {
		t.Errorf("start %d end %d problems %q", p.StartTime, p.EndTime, p.Problems)
	}
}

func TestRuns(t *testing.T) {
	p := mustParse(t, refProfile)
	// The reference's timing (docs/format/cpuprofile.md#compat-timing): timeDeltas[0] ignored,
	// the last run ends at the last sample.
	compat := []Run{
		{2, 8013755173000, 8013755245000},
		{3, 8013755245000, 8013755460000},
		{4, 8013755460000, 8013756097000},
		{2, 8013756097000, 8013756606000},
		{3, 8013756606000, 8013757378000},
		{4, 8013757378000, 8013758684000},
	}
	if got := p.CompatRuns(); !reflect.DeepEqual(got, compat) {
		t.Errorf("CompatRuns:\n%v\nwant\n%v", got, compat)
	}
	// Standard timing: every start 99 µs later; the last run lasts one median
	// interval (99 µs) after the last sample at 8013758783 µs.
	std := []Run{
		{2, 8013755272000, 8013755344000},
		{3, 8013755344000, 8013755559000},
		{4, 8013755559000, 8013756196000},
		{2, 8013756196000, 8013756705000},
		{3, 8013756705000, 8013757477000},
		{4, 8013757477000, 8013758882000},
	}
	if got := p.Runs(); !reflect.DeepEqual(got, std) {
		t.Errorf("Runs:\n%v\nwant\n%v", got, std)
	}
}

func TestRunsEdgeCases(t *testing.T) {
	tests := []struct {
		name, json string
		want       []Run
	}{
		{"empty samples", `{"nodes":[{"id":1}],"startTime":5,"samples":[],"timeDeltas":[]}`, nil},
		{"one sample, endTime bounds the run", `{"nodes":[{"id":1}],"startTime":5,"endTime":9,"samples":[1],"timeDeltas":[2]}`,
			[]Run{{1, 7000, 9000}}},
		{"negative deltas are sorted", `{"nodes":[{"id":1},{"id":2}],"startTime":0,"endTime":100,"samples":[1,2,1],"timeDeltas":[10,20,-5]}`,
			[]Run{{1, 10000, 30000}, {2, 30000, 50000}}},
		{"endTime before last sample is ignored", `{"nodes":[{"id":1},{"id":2}],"startTime":0,"endTime":1,"samples":[1,2],"timeDeltas":[10,10]}`,
			[]Run{{1, 10000, 20000}, {2, 20000, 30000}}},
		{"fractional µs", `{"nodes":[{"id":1},{"id":2}],"startTime":1.5,"samples":[1,2],"timeDeltas":[0.25,1]}`,
			[]Run{{1, 1750, 2750}, {2, 2750, 3750}}},
		{"large fractional µs stay exact", `{"nodes":[{"id":1}],"startTime":1795349816583.282,"samples":[1],"timeDeltas":[0.001]}`,
			[]Run{{1, 1795349816583283, 1795349816583284}}}, // one interval (1 ns) long
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.json).Runs(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParentFormAndDerivedHitCounts(t *testing.T) {
	// Leaf nodes without "children", a profile in the "parent" form, a numeric
	// scriptId, no hitCount, and a sample naming an unknown node.
	p := mustParse(t, `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"url":"","lineNumber":-1,"columnNumber":-1}},`+
		`{"id":2,"parent":1,"callFrame":{"functionName":"a","scriptId":"3","url":"x.js","lineNumber":1,"columnNumber":2}},`+
		`{"id":3,"parent":2,"callFrame":{"functionName":"b","scriptId":"3","url":"x.js","lineNumber":5,"columnNumber":0}},`+
		`{"id":4,"parent":1,"callFrame":{"functionName":"c","scriptId":"3","url":"x.js","lineNumber":9,"columnNumber":0}}],`+
		`"startTime":0,"endTime":10,"samples":[3,3,4,9],"timeDeltas":[1,1,1,1]}`)
	var parents, hits []int64
	var children [][]int64
	for _, n := range p.Nodes {
		parents = append(parents, n.Parent)
		hits = append(hits, n.HitCount)
		children = append(children, n.Children)
	}
	if !reflect.DeepEqual(parents, []int64{0, 1, 2, 1}) || !reflect.DeepEqual(hits, []int64{0, 0, 2, 1}) ||
		!reflect.DeepEqual(children, [][]int64{{2, 4}, {3}, nil, nil}) {
		t.Errorf("parents %v hits %v children %v", parents, hits, children)
	}
	if p.Nodes[0].ScriptID != "0" {
		t.Errorf("numeric scriptId = %q", p.Nodes[0].ScriptID)
	}
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0], "1 samples name node ids") {
		t.Errorf("problems %q", p.Problems)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{"startTime":1,"samples":[],"timeDeltas":[]}`, "no nodes"},
		{`{"nodes":[],"samples":[]}`, "no startTime"},
		{`{"nodes":[{"id":1},{"id":1}],"startTime":0}`, "node id 1 appears twice"},
		{`{"nodes":[{"callFrame":{}}],"startTime":0}`, "node 0: no id"},
		{`{"nodes":[{"id":1,"callFrame":{"functionName":"a"b"}}],"startTime":0}`, "node 0: callFrame"},
		{`{"nodes":[],"startTime":0} x`, "data after the profile object"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.json, err, tt.want)
		}
	}
}

// TestDeepLegacyTree: a legacy call tree nested past the limit (65 538 levels,
// as in a 182 KB .gz that once took over 6 GB) fails with a short error in
// memory proportional to its depth.
func TestDeepLegacyTree(t *testing.T) {
	const depth = 1<<16 + 2
	var b strings.Builder
	b.WriteString(`{"startTime":0,"endTime":1,"head":`)
	for range depth {
		b.WriteString(`{"functionName":"f","children":[`)
	}
	b.WriteString(strings.Repeat("]}", depth))
	b.WriteString(`,"timestamps":[],"samples":[]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse([]byte(b.String()))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "call tree nested too deeply") || len(err.Error()) > 300 {
		t.Errorf("error %.300v", err)
	}
	if !strings.HasPrefix(err.Error(), "head: children: children: children: … 65530 more: children: children: children: children: call tree") {
		t.Errorf("error %.300v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("parsing allocated %d MB", alloc>>20)
	}
}

// TestNodeProfile checks a real profile from node against encoding/json.
func TestNodeProfile(t *testing.T) {
	raw := testutil.Fixture(t, "node/profile.cpuprofile")
	var want struct {
		Nodes []struct {
			ID        int64   `json:"id"`
			HitCount  int64   `json:"hitCount"`
			Children  []int64 `json:"children"`
			CallFrame struct {
				FunctionName string `json:"functionName"`
				URL          string `json:"url"`
				LineNumber   int64  `json:"lineNumber"`
			} `json:"callFrame"`
		} `json:"nodes"`
		StartTime  int64   `json:"startTime"`
		EndTime    int64   `json:"endTime"`
		Samples    []int64 `json:"samples"`
		TimeDeltas []int64 `json:"timeDeltas"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, string(raw))
	if len(p.Nodes) != len(want.Nodes) || len(p.Samples) != len(want.Samples) || len(p.Problems) != 0 {
		t.Fatalf("%d nodes %d samples %q", len(p.Nodes), len(p.Samples), p.Problems)
	}
	for i, n := range p.Nodes {
		w := want.Nodes[i]
		if n.ID != w.ID || n.HitCount != w.HitCount || n.FunctionName != w.CallFrame.FunctionName ||
			n.URL != w.CallFrame.URL || n.LineNumber != w.CallFrame.LineNumber || len(n.Children) != len(w.Children) {
			t.Errorf("node %d = %+v, want %+v", i, n, w)
		}
	}
	runs := p.Runs()
	var total int64
	for i, r := range runs {
		if r.End < r.Start || (i > 0 && r.Start != runs[i-1].End) || (i > 0 && r.NodeID == runs[i-1].NodeID) {
			t.Fatalf("run %d = %+v after %+v", i, r, runs[i-1])
		}
		total += r.End - r.Start
	}
	last := want.StartTime
	for _, d := range want.TimeDeltas {
		last += d
	}
	if runs[0].Start != (want.StartTime+want.TimeDeltas[0])*1000 || runs[len(runs)-1].End > want.EndTime*1000 ||
		runs[len(runs)-1].End <= last*1000 {
		t.Errorf("runs span [%d, %d], profile [%d, %d] µs, last sample %d µs", runs[0].Start,
			runs[len(runs)-1].End, want.StartTime, want.EndTime, last)
	}
}

// TestRepairUnescapedNames: ArkTS writes functionName and moduleName without
// escaping; the names are recovered intact.
func TestRepairUnescapedNames(t *testing.T) {
	raw := `{"tid":1,"startTime":0,"endTime":9,"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3]},` +
		`{"id":2,"callFrame":{"functionName":"say "hi"","moduleName":"m"x\","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"hitCount":1,"children":[]},` +
		`{"id":3,"callFrame":{"functionName":"C:\dir\file","scriptId":"1","url":"a.js","lineNumber":3,"columnNumber":4},"hitCount":1,"children":[]}],` +
		`"samples":[2,3],"timeDeltas":[1,1]}`
	if _, err := Parse([]byte(raw)); err == nil {
		t.Fatal("the unescaped profile parsed without repair")
	}
	p, repaired, err := ParseRepairing(context.Background(), []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if repaired != 3 {
		t.Errorf("repaired %d names, want 3", repaired)
	}
	var names []string
	for _, n := range p.Nodes {
		names = append(names, n.FunctionName)
	}
	if want := []string{"(root)", `say "hi"`, `C:\dir\file`}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if p.Nodes[1].URL != "a.js" || p.Nodes[1].LineNumber != 1 || p.Nodes[2].ColumnNumber != 4 {
		t.Errorf("nodes after repair: %+v", p.Nodes)
	}
	// A well-formed profile is never rewritten.
	if _, n, _ := Repair(context.Background(), []byte(refProfile)); n != 0 {
		t.Errorf("Repair changed %d names of a valid profile", n)
	}
	if _, _, err := ParseRepairing(context.Background(), []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"a"b"}}]`)); err == nil {
		t.Error("a profile that cannot be repaired parsed")
	}
}
