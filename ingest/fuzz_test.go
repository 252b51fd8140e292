package ingest

import (
	"testing"

	"tracestreamer/internal/testutil"
)

// FuzzDetect feeds arbitrary starts of files to format detection: it must not
// panic and must only name a JSON format for input that starts like JSON.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{`{"snapshot":{"meta":{}},"nodes":[1,2]}`, `{"nodes":[{"id":1}],"startTime":0}`,
		`{"head":{"id":1},"timestamps":[]}`, "\xef\xbb\xbf{\"nodes\":[0,1]}", "OHOSPROF", `[{"ph":"B"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		testutil.CountExec("FuzzDetect")
		switch detect(head) {
		case formatHeapSnapshot, formatCPUProfile:
			i := 0
			if len(head) >= 3 && string(head[:3]) == "\xef\xbb\xbf" {
				i = 3
			}
			for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n') {
				i++
			}
			if i == len(head) || head[i] != '{' {
				t.Fatalf("JSON format detected for %q", head)
			}
		}
	})
}
