package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
	"tracestreamer/parser/arkts/arktstest"
	"tracestreamer/parser/htrace"
	"tracestreamer/proto/hiprofpb"
	"tracestreamer/stat"
)

// A small valid snapshot (3 nodes, 5 edges with valid targets) and CPU profile.
const (
	faultSnap = `{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id","detachedness"],` +
		`"node_types":[["hidden","array","string","object"],"string","number","number","number","number","number"],` +
		`"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context","element","property"],"string_or_number","node"]},` +
		`"node_count":3,"edge_count":5,"trace_function_count":0},` +
		`"nodes":[3,1,1,0,1,0,0,3,2,3,432,3,0,0,3,3,9949,40,1,0,0],"edges":[2,3,7,2,4,14,2,4,0,1,0,14,2,2,0],` +
		`"trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],"strings":["<dummy>","","GC roots","a","b"]}`
	faultProfile = `{"startTime":100,"endTime":200,"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"work","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":1},"hitCount":2,"children":[]}],"samples":[2,2],"timeDeltas":[5,5]}`
)

// faultCase is one faulty input: the capture it writes (around the fault, a good
// snapshot before and after), an optional edit of the file's bytes, and what
// the run must show.
type faultCase struct {
	name   string
	write  func(t *testing.T, s *arktstest.Session) // the fault, between the good snapshots
	edit   func(b []byte) []byte                    // applied to the finished file
	files  []string                                 // js_heap_files names expected
	cpu    int                                      // CPU profiles expected
	event  stat.Event                               // stat row that must count the fault
	typ    stat.Type
	warn   string // stderr must contain it
	errMsg string // fatal: Run's error must contain it
}

func snapshotChunks(t *testing.T, s *arktstest.Session, text string) {
	s.ChunkSize = 100
	must(t, s.Chunks([]byte(text)))
}

func faultCases() []faultCase {
	recordsEnd := func(b []byte) int { return len(b) }
	return []faultCase{
		{name: "bad magic", edit: func(b []byte) []byte { copy(b, "NOTAPROF"); return b },
			errMsg: "unsupported input"},
		{name: "header shorter than 1024 bytes", edit: func(b []byte) []byte { return b[:700] },
			errMsg: "header is 700 bytes, want 1024"},
		{name: "header length beyond the file", edit: func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[8:], uint64(len(b)+5000))
			return b
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.HTraceRecord, typ: stat.DataLost,
			warn: "in.htrace: offset"},
		{name: "truncated record", edit: func(b []byte) []byte { return b[:recordsEnd(b)-10] },
			files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.HTraceRecord, typ: stat.DataLost,
			warn: "file ends inside record"},
		{name: "length prefix beyond the remaining bytes", edit: func(b []byte) []byte {
			off := lastRecord(b)
			binary.LittleEndian.PutUint32(b[off:], 1<<30)
			return b
		}, files: []string{"Snapshot0", "Snapshot1"}, event: stat.HTraceRecord, typ: stat.InvalidData,
			warn: "exceeds the"},
		{name: "corrupt length in the middle", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "arkts-plugin", Data: []byte("MARK-CORRUPT-LENGTH")}))
		}, edit: func(b []byte) []byte {
			i := bytes.Index(b, []byte("MARK-CORRUPT-LENGTH"))
			off := i - 2 - len("arkts-plugin") - 2 - 4 // name field, data field tag+len, length prefix
			binary.LittleEndian.PutUint32(b[off:], 0x7fffff00)
			return b
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.HTraceRecord, typ: stat.InvalidData,
			warn: "bytes skipped to the next record"},
		{name: "protobuf garbage", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.RawBytes([]byte{0xff, 0xff, 0xff, 0x07, 0x0a, 0x99}))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.HTraceRecord, typ: stat.InvalidData,
			warn: "malformed ProfilerPluginData"},
		{name: "unknown plugins interleaved", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "mystery-plugin", Data: []byte("x")}))
			must(t, s.Raw(&hiprofpb.ProfilerPluginData{Name: "cpu-plugin", Data: []byte("x")}))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.Other, typ: stat.InvalidData},
		{name: "non-JSON message", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.Message(`{"method":"HeapProfiler.reportHeapSnapshotProgress",`))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.JSMemory, typ: stat.InvalidData,
			warn: "message is not valid JSON"},
		{name: "garbage inside a heap chunk", write: func(t *testing.T, s *arktstest.Session) {
			snapshotChunks(t, s, strings.Replace(faultSnap, `"strings":[`, `"strings":[@@`, 1))
			must(t, s.Message(arktstest.Marker(1)))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.JSMemory, typ: stat.InvalidData,
			warn: "Snapshot1 dropped: snapshot text: strings: offset"},
		{name: "end marker with no chunks", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.Message(arktstest.Marker(1)))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.JSMemory, typ: stat.InvalidData,
			warn: "without heap snapshot chunks"},
		{name: "snapshot still open at end of file", edit: nil, write: nil, files: []string{"Snapshot0", "Snapshot1"},
			cpu: 1, event: stat.JSMemory, typ: stat.DataLost, warn: "has no end marker and is incomplete"},
		{name: "node_fields in a different order", write: func(t *testing.T, s *arktstest.Session) {
			text := strings.NewReplacer(`["type","name","id","self_size","edge_count","trace_node_id","detachedness"]`,
				`["id","type","name","self_size","edge_count","trace_node_id","detachedness"]`,
				`"nodes":[3,1,1,0,1,0,0,3,2,3,432,3,0,0,3,3,9949,40,1,0,0]`, `"nodes":[1,3,1,0,1,0,0,3,3,2,432,3,0,0,9949,3,3,40,1,0,0]`).Replace(faultSnap)
			snapshotChunks(t, s, text)
			must(t, s.Message(arktstest.Marker(1)))
		}, files: []string{"Snapshot0", "Snapshot1", "Snapshot2"}, cpu: 1},
		{name: "edges pointing outside the node array", write: func(t *testing.T, s *arktstest.Session) {
			snapshotChunks(t, s, strings.Replace(faultSnap, `"edges":[2,3,7,`, `"edges":[2,3,700,`, 1))
			must(t, s.Message(arktstest.Marker(1)))
		}, files: []string{"Snapshot0", "Snapshot1", "Snapshot2"}, cpu: 1, event: stat.JSMemory, typ: stat.InvalidData,
			warn: "points to node offset 700"},
		{name: "invalid UTF-8 in strings", write: func(t *testing.T, s *arktstest.Session) {
			snapshotChunks(t, s, strings.Replace(faultSnap, `"a","b"`, "\"a\xff\xfeb\",\"b\"", 1))
			must(t, s.Message(arktstest.Marker(1)))
		}, files: []string{"Snapshot0", "Snapshot1", "Snapshot2"}, cpu: 1, event: stat.JSMemory, typ: stat.InvalidData,
			warn: "not valid UTF-8"},
		{name: "CPU profile whose leaf nodes lack children", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.CPUProfile([]byte(strings.Replace(faultProfile, `,"children":[]}`, `}`, 1))))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 2},
		{name: "negative timeDeltas", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.CPUProfile([]byte(strings.Replace(faultProfile, `"timeDeltas":[5,5]`, `"timeDeltas":[5,-3]`, 1))))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 2},
		{name: "samples naming unknown node ids", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.CPUProfile([]byte(strings.Replace(faultProfile, `"samples":[2,2]`, `"samples":[2,42]`, 1))))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 2, event: stat.JSCPUProfiler, typ: stat.NotMatch,
			warn: "1 samples name node ids that are not in the profile"},
		{name: "empty samples", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.CPUProfile([]byte(strings.Replace(faultProfile, `"samples":[2,2],"timeDeltas":[5,5]`, `"samples":[],"timeDeltas":[]`, 1))))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 2},
		{name: "ArkTS names without JSON escaping", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.CPUProfile([]byte(strings.Replace(faultProfile, `"functionName":"work"`, `"functionName":"say "hi" \o/"`, 1))))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 2, event: stat.JSCPUProfiler, typ: stat.InvalidData,
			warn: "CPU profile repaired: 1 function or module names"},
		{name: "CPU profile that is not JSON", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.MessageBytes([]byte(`{"id":3,"result":{"profile":{"nodes":[{"id":}}`)))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.JSCPUProfiler, typ: stat.InvalidData,
			warn: "CPU profile dropped"},
		{name: "truncated CPU profile message", write: func(t *testing.T, s *arktstest.Session) {
			must(t, s.MessageBytes([]byte(`{"id":3,"result":{"profile":{"nodes":[{"id":`)))
		}, files: []string{"Snapshot0", "Snapshot1"}, cpu: 1, event: stat.JSMemory, typ: stat.InvalidData,
			warn: "message is not valid JSON"},
	}
}

// lastRecord returns the offset of the last record's length prefix.
func lastRecord(b []byte) int {
	off, last := htrace.HeaderSize, 0
	for off+4 <= len(b) {
		last = off
		off += 4 + int(binary.LittleEndian.Uint32(b[off:]))
	}
	return last
}

// TestFaultyInputs runs the faulty-input matrix: each fault sits between good
// data, and everything complete before and after it must be in the database.
func TestFaultyInputs(t *testing.T) {
	for _, tc := range faultCases() {
		t.Run(tc.name, func(t *testing.T) {
			in := capture(t, testClocks(900_000_000_000), func(s *arktstest.Session) {
				must(t, s.Config(&hiprofpb.ArkTSConfig{Pid: 1, Type: hiprofpb.ArkTSConfig_SNAPSHOT, EnableCpuProfiler: true}))
				must(t, s.CPUStart())
				snapshotChunks(t, s, faultSnap)
				must(t, s.Message(arktstest.Marker(1)))
				if tc.write != nil {
					tc.write(t, s)
				}
				snapshotChunks(t, s, faultSnap)
				must(t, s.Message(arktstest.Marker(1)))
				must(t, s.CPUProfile([]byte(faultProfile)))
				if tc.name == "snapshot still open at end of file" {
					snapshotChunks(t, s, faultSnap[:len(faultSnap)/2])
				}
				if tc.name == "truncated record" {
					snapshotChunks(t, s, faultSnap)
				}
			})
			if tc.edit != nil {
				b, err := os.ReadFile(in)
				must(t, err)
				must(t, os.WriteFile(in, tc.edit(b), 0o644))
			}
			out := filepath.Join(t.TempDir(), "out.db")
			var warn strings.Builder
			_, err := Run(context.Background(), []string{in}, Options{Output: out, Warnings: &warn})
			if tc.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
					t.Fatalf("error %v, want %q", err, tc.errMsg)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Error("a fatal run left an output")
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, warn.String())
			}
			db := testutil.OpenDB(t, out)
			if got := testutil.Query(t, db, "SELECT file_name FROM js_heap_files"); !reflect.DeepEqual(got, tc.files) {
				t.Errorf("heap files %v, want %v\n%s", got, tc.files, warn.String())
			}
			for _, f := range tc.files {
				n := testutil.Query(t, db, `SELECT (SELECT count(*) FROM js_heap_nodes n WHERE n.file_id = h.id),
					(SELECT count(*) FROM js_heap_edges e WHERE e.file_id = h.id) FROM js_heap_files h WHERE file_name = ?`, f)
				if n[0] != "3|5" {
					t.Errorf("%s: nodes|edges = %s, want 3|5", f, n[0])
				}
			}
			if got := testutil.Query(t, db, "SELECT count(*) FROM js_cpu_profile"); got[0] != strconv.Itoa(tc.cpu) {
				t.Errorf("%s CPU profiles, want %d\n%s", got[0], tc.cpu, warn.String())
			}
			if tc.typ != stat.Received { // the cases that name a stat row name a problem
				got := testutil.Query(t, db, "SELECT count FROM stat WHERE event_name = ? AND stat_type = ?",
					tc.event.String(), tc.typ.String())
				if len(got) != 1 || got[0] == "0" {
					t.Errorf("stat %s/%s = %v, want ≥ 1", tc.event, tc.typ, got)
				}
			}
			if !strings.Contains(warn.String(), tc.warn) || (tc.warn != "" && !strings.Contains(warn.String(), "in.htrace")) {
				t.Errorf("stderr %q does not name the input and %q", warn.String(), tc.warn)
			}
		})
	}
}

// TestHugeRecord: a record larger than 256 MiB (the reference drops such
// protobuf fields silently) is read like any other: here one chunk message of
// a 257 MiB snapshot text, padded with white space.
func TestHugeRecord(t *testing.T) {
	const pad = 257 << 20
	text := strings.Replace(faultSnap, `"nodes":[`, `"nodes":[`+strings.Repeat(" ", pad), 1)
	in := capture(t, testClocks(900_000_000_000), func(s *arktstest.Session) {
		must(t, s.Config(&hiprofpb.ArkTSConfig{Type: hiprofpb.ArkTSConfig_SNAPSHOT}))
		s.ChunkSize = len(text)
		must(t, s.Chunks([]byte(text)))
		must(t, s.Message(arktstest.Marker(1)))
		s.ChunkSize = 100
		must(t, s.Chunks([]byte(faultSnap)))
		must(t, s.Message(arktstest.Marker(1)))
	})
	if info, _ := os.Stat(in); info.Size() < pad {
		t.Fatalf("input is only %d bytes", info.Size())
	}
	out, _ := convert(t, in, Options{})
	got := testutil.Query(t, testutil.OpenDB(t, out), "SELECT file_name, (SELECT count(*) FROM js_heap_nodes n WHERE n.file_id = h.id) FROM js_heap_files h")
	if !reflect.DeepEqual(got, []string{"Snapshot0|3", "Snapshot1|3"}) {
		t.Errorf("heap files %v", got)
	}
}
