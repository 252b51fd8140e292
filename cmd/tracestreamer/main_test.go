package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/trace"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"tracestreamer/heapfile"
	"tracestreamer/ingest"
	"tracestreamer/internal/testutil"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args    []string
		inputs  string
		out     string
		wantErr string
	}{
		{[]string{"in.htrace", "-o", "out.db"}, "in.htrace", "out.db", ""},
		{[]string{"-e", "out.db", "a.htrace", "b.htrace", "-nm", "--compat-timing", "-q"}, "a.htrace,b.htrace", "out.db", ""},
		{[]string{"in.htrace"}, "", "", "no output database given"},
		{[]string{"-o", "out.db"}, "", "", "no input file given"},
		{[]string{"in.htrace", "-o"}, "", "", "-o needs a path"},
		{[]string{"in.htrace", "-o", "x.db", "--bogus"}, "", "", "unknown flag --bogus"},
		{[]string{"t.json", "-o", "x.db", "--sort-mem", "0"}, "", "", "--sort-mem needs a positive number of MB, not 0"},
		{[]string{"t.json", "-o", "x.db", "--sort-mem"}, "", "", "--sort-mem needs a size in MB"},
		{[]string{"t.json", "-o", "x.db", "--max-event", "2000"}, "", "", "--max-event needs a number of MB from 1 to 1024, not 2000"},
		{[]string{"t.json", "-o", "x.db", "--max-event"}, "", "", "--max-event needs a size in MB"},
		{[]string{"t.json", "-o", "x.db", "--max-threads", "0"}, "", "", "--max-threads needs a positive number, not 0"},
		{[]string{"t.json", "-o", "x.db", "--max-pending"}, "", "", "--max-pending needs a number"},
		{[]string{"t.json", "-o", "x.db", "--threads", "0"}, "", "", "--threads needs a positive number, not 0"},
		{[]string{"t.json", "-o", "x.db", "-tn"}, "", "", "-tn needs a number of threads"},
		{[]string{"-", "-o", "x.db"}, "-", "x.db", ""},
		{[]string{"--", "-o", "x.db"}, "", "", "unknown flag --"},
		{[]string{"a", "-o", "x.db", "--leaks"}, "", "", "--leaks needs three heap file ids B,T,F or none"},
		{[]string{"a", "-o", "x.db", "--leaks", "0,1"}, "", "", `--leaks: want three heap file ids B,T,F, not "0,1"`},
		{[]string{"a", "-o", "x.db", "--leaks", "0,2,1"}, "", "", "must come in that order"},
		{[]string{"a", "-o", "x.db", "--leaks", "0,x,2"}, "", "", `"x" is not a heap file id`},
	}
	for _, tt := range tests {
		c, err := parseArgs(tt.args)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: error %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(c.inputs, ",") != tt.inputs || c.opts.Output != tt.out {
			t.Errorf("%v: %+v, %v", tt.args, c, err)
		}
	}
	if c, _ := parseArgs([]string{"t.json", "-o", "x.db", "-tn", "3"}); c.threads != 3 {
		t.Errorf("-tn 3: threads %d", c.threads)
	}
	c, _ := parseArgs([]string{"-e", "out.db", "a.htrace", "-nm", "--compat-timing", "-q"})
	if !c.opts.NoMeta || !c.opts.CompatTiming || !c.quiet {
		t.Errorf("flags not set: %+v", c)
	}
	if c, err := parseArgs([]string{"t.json", "-o", "x.db", "--max-event", "300"}); err != nil || c.opts.MaxEvent != 300<<20 {
		t.Errorf("--max-event 300: %+v %v", c, err)
	}
	if c, err := parseArgs([]string{"t.json", "-o", "x.db", "--sort-mem", "64"}); err != nil || c.opts.SortBudget != 64<<20 {
		t.Errorf("--sort-mem 64: %+v, %v", c, err)
	}
	if c, err := parseArgs([]string{"a", "-o", "x.db", "--leaks", "1, 3,4"}); err != nil || c.opts.Leaks == nil ||
		*c.opts.Leaks != (heapfile.LeakFiles{Baseline: 1, Target: 3, Final: 4}) || c.opts.NoLeaks {
		t.Errorf("--leaks 1,3,4: %+v, %v", c, err)
	}
	if c, err := parseArgs([]string{"a", "-o", "x.db", "--leaks", "none"}); err != nil || !c.opts.NoLeaks {
		t.Errorf("--leaks none: %+v, %v", c, err)
	}
}

// example builds the bundled example htrace with mkhtrace's code path.
func example(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "mkhtrace")
	build := exec.Command("go", "build", "-o", bin, "tracestreamer/cmd/mkhtrace")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build mkhtrace: %v\n%s", err, out)
	}
	in := filepath.Join(dir, "example.htrace")
	root := testutil.Root()
	cmd := exec.Command(bin, "-snapshot", filepath.Join(root, "testdata/node/snapshot.heapsnapshot.gz"),
		"-cpuprofile", filepath.Join(root, "testdata/node/profile.cpuprofile"), "-o", in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mkhtrace: %v\n%s", err, out)
	}
	return in
}

// TestProfiles: each profile flag writes its file, stopped and complete at
// the end of the run: pprof's CPU and heap profiles with their sample types,
// the execution trace with its header, the tracer stopped.
func TestProfiles(t *testing.T) {
	in := example(t)
	for _, tt := range []struct {
		flag  string
		check func(t *testing.T, b []byte)
	}{
		{"--cpuprofile", sampleTypes("samples/count", "cpu/nanoseconds")},
		{"--memprofile", sampleTypes("alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes")},
		{"--exectrace", func(t *testing.T, b []byte) {
			if !bytes.HasPrefix(b, []byte("go 1.")) || len(b) < 1000 {
				t.Errorf("trace of %d bytes starting %q, want a Go execution trace", len(b), b[:min(len(b), 16)])
			}
		}},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			dir := t.TempDir()
			prof := filepath.Join(dir, "run.prof")
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"-q", in, "-o", filepath.Join(dir, "out.db"), tt.flag, prof},
				&stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if trace.IsEnabled() {
				t.Error("the execution tracer still runs after the run")
			}
			b, err := os.ReadFile(prof)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, b)
		})
		// A profile that cannot be written fails before the run: the heap
		// profile too, written only at its end.
		t.Run(tt.flag+" unwritable", func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.db")
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"-q", in, "-o", out, tt.flag, filepath.Join(dir, "no", "run.prof")},
				&stdout, &stderr)
			if want := "tracestreamer: " + tt.flag + ": open " + filepath.Join(dir, "no", "run.prof") + ": no such file or directory\n"; code != 1 || stderr.String() != want {
				t.Errorf("exit %d, stderr %q; want 1, %q", code, stderr.String(), want)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the database was written: %v", err)
			}
		})
	}
	// A run that a later profile stops before it starts has no heap
	// profile: the file made for it stays empty.
	t.Run("--memprofile, then a profile that cannot be made", func(t *testing.T) {
		dir := t.TempDir()
		mem := filepath.Join(dir, "mem.prof")
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"-q", in, "-o", filepath.Join(dir, "out.db"), "--memprofile", mem,
			"--exectrace", filepath.Join(dir, "no", "run.trace")}, &stdout, &stderr)
		if code != 1 || !strings.HasPrefix(stderr.String(), "tracestreamer: --exectrace: open ") {
			t.Errorf("exit %d, stderr %q; want 1 and the trace's error", code, stderr.String())
		}
		if b, err := os.ReadFile(mem); err != nil || len(b) != 0 {
			t.Errorf("heap profile of a run not made: %d bytes (%v), want an empty file", len(b), err)
		}
	})
}

// sampleTypes checks that a profile parses as pprof's and has the sample
// types want ("type/unit").
func sampleTypes(want ...string) func(t *testing.T, b []byte) {
	return func(t *testing.T, b []byte) {
		p, err := profile.ParseData(b)
		if err != nil {
			t.Fatalf("not a pprof profile: %v", err)
		}
		var got []string
		for _, st := range p.SampleType {
			got = append(got, st.Type+"/"+st.Unit)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("sample types %v, want %v", got, want)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	in := example(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.db")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{in, "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	line := stdout.String()
	for _, want := range []string{out + ": js_heap_files 1, js_heap_edges 204578,", "js_heap_nodes 47953", "js_cpu_profiler_node 24", "; 0 problems"} {
		if !strings.Contains(line, want) {
			t.Errorf("summary %q lacks %q", line, want)
		}
	}
	if strings.Count(line, "\n") != 1 || stderr.Len() != 0 {
		t.Errorf("stdout %q stderr %q", line, stderr.String())
	}
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("hello"), 0o644)
	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{notes, "-o", filepath.Join(dir, "x.db")}, 1, "unsupported input"},
		{[]string{in}, 2, "no output database given"},
		{[]string{"-h"}, 0, ""},
		{[]string{in, "-o", in}, 1, "refusing to overwrite it"},
		{[]string{in, "-o", dir}, 1, "is a directory, not a regular file; refusing to replace it"},
		{[]string{in, "-o", filepath.Join(dir, "x.db"), "--cpuprofile", in}, 1, "is the input " + in},
		{[]string{in, "-o", filepath.Join(dir, "x.db"), "--memprofile", filepath.Join(dir, "x.db")}, 1,
			"is the output database; refusing to overwrite it"},
		{[]string{in, "-o", filepath.Join(dir, "x.db"), "--cpuprofile", filepath.Join(dir, "p.prof"), "--memprofile",
			filepath.Join(dir, ".", "p.prof")}, 2, "--cpuprofile and --memprofile name the same file " + filepath.Join(dir, "p.prof")},
		{[]string{in, "-o", filepath.Join(dir, "x.db"), "--exectrace", filepath.Join(dir, "p.prof"), "--cpuprofile",
			filepath.Join(dir, "p.prof")}, 2, "--cpuprofile and --exectrace name the same file " + filepath.Join(dir, "p.prof")},
		{[]string{in, "-o", filepath.Join(dir, "x.db"), "--exectrace", in}, 1, "is the input " + in},
		{[]string{"export", "-pprof", out, out}, 1, "export: output " + out + " is the input " + out},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("%v: exit %d stderr %q, want %d %q", tt.args, code, stderr.String(), tt.code, tt.err)
		}
	}
	for _, name := range []string{"x.db", "p.prof"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("failed run left %s: %v", name, err)
		}
	}
	// Neither the input nor the database was touched by the refused runs.
	if b, err := os.ReadFile(in); err != nil || !bytes.HasPrefix(b, []byte("OHOSPROF")) {
		t.Errorf("input changed: %v", err)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("SQLite format 3")) {
		t.Errorf("database changed: %v", err)
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		phase       string
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{"reading", 0, 100e6, time.Second, "[..............................] 0.0/100.0 MB  0.0 MB/s  ETA ?"},
		{"reading", 50e6, 100e6, 5 * time.Second, "[###############...............] 50.0/100.0 MB  10.0 MB/s  ETA 5s"},
		// Once every byte is read, the phase is shown instead of "100 % ETA 0s".
		{"processing", 100e6, 100e6, 4 * time.Second, "read 100.0 MB · processing · 4s"},
		{"writing", 100e6, 100e6, 6500 * time.Millisecond, "read 100.0 MB · writing · 7s"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.phase, tt.done, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("progressLine(%s, %d, %d, %v) = %q, want %q", tt.phase, tt.done, tt.total, tt.elapsed, got, tt.want)
		}
	}
	p := &ingest.Progress{}
	if got := p.Phase(); got != "" {
		t.Errorf("phase before the run %q", got)
	}
	var buf bytes.Buffer
	if isTerminal(&buf) {
		t.Error("a buffer is not a terminal")
	}
}

// TestInterrupt sends SIGINT to a running conversion: it must exit 130 and
// leave neither the output nor its temporary file.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracestreamer")
	if out, err := exec.Command("go", "build", "-o", bin, "tracestreamer/cmd/tracestreamer").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// A large input: the node snapshot many times over, as standalone files.
	snap := filepath.Join(testutil.Root(), "testdata/node/snapshot.heapsnapshot.gz")
	args := []string{}
	for i := 0; i < 40; i++ {
		args = append(args, snap)
	}
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	out := filepath.Join(outDir, "out.db")
	cmd := exec.Command(bin, append(args, "-o", out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the temporary database exists, so the signal lands mid-run.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(outDir, ".out.db.tracestreamer-*.tmp")); len(m) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != 130 {
		t.Fatalf("exit %d (%v), want 130; stderr %q", code, err, stderr.String())
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Errorf("files left after Ctrl-C: %v", entries)
	}
	if !strings.Contains(stderr.String(), "interrupted; no output written") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestSecondInterrupt: a process whose run does not stop at the first
// SIGTERM (this test binary again, waiting on interruptible's context and
// then forever, as a run stuck in a long step would) is ended by the
// second, by the signal's default action. (SIGTERM: a process started with
// SIGINT ignored, as a script's background job is, keeps it ignored once
// it stops catching it.)
func TestSecondInterrupt(t *testing.T) {
	if os.Getenv("TRACESTREAMER_TEST_STUCK") == "1" {
		ctx, stop := interruptible(context.Background())
		defer stop()
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Stdout.WriteString("interrupted\n")
		select {}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondInterrupt$")
	cmd.Env = append(os.Environ(), "TRACESTREAMER_TEST_STUCK=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for _, want := range []string{"ready", "interrupted"} {
		if want == "interrupted" {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		if !lines.Scan() || lines.Text() != want {
			cmd.Process.Kill()
			t.Fatalf("child said %q (%v), want %q", lines.Text(), lines.Err(), want)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the second SIGTERM did not end the process")
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("child ended with %v, want killed by SIGTERM", cmd.ProcessState)
	}
}

// TestExportPprof converts the node capture, exports its CPU profile and checks
// that go tool pprof -top puts the busy function fib first.
func TestExportPprof(t *testing.T) {
	dir, db := exampleDB(t)
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "cpu.pb.gz")
	if code := run(context.Background(), []string{"export", "-pprof", out, db}, &stdout, &stderr); code != 0 {
		t.Fatalf("export: exit %d %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	flat := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		flat[s.Location[0].Line[0].Function.Name] += s.Value[0]
		total += s.Value[0]
	}
	best := ""
	for name, v := range flat {
		if best == "" || v > flat[best] {
			best = name
		}
	}
	if best != "fib" || len(p.Sample) != 333 {
		t.Errorf("hottest function %q (%v of %v ns), %d samples; want fib, 333", best, flat[best], total, len(p.Sample))
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	// The first function row after the header is the hottest.
	lines := strings.Split(string(top), "\n")
	for i, l := range lines {
		if strings.Contains(l, "flat%") {
			if i+1 >= len(lines) || !strings.HasSuffix(strings.TrimSpace(lines[i+1]), " fib") {
				t.Errorf("pprof -top:\n%s", top)
			}
			break
		}
	}
	if code := run(context.Background(), []string{"export", "-pprof", out, "-profile", "7", db}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "no CPU profile 7") {
		t.Errorf("missing profile: exit %d, %s", code, stderr.String())
	}
}

// TestExportParquet: the command adds databases to a dataset, prints a line
// for each, and refuses a folder that is a file, a missing database or an
// interrupted export with the usual exit codes.
func TestExportParquet(t *testing.T) {
	dir, db := exampleDB(t)
	var stdout, stderr bytes.Buffer
	ds := filepath.Join(dir, "dataset")
	stdout.Reset()
	if code := run(context.Background(), []string{"export", "-parquet", ds, db}, &stdout, &stderr); code != 0 {
		t.Fatalf("export: exit %d %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), db+": trace=") || !strings.Contains(stdout.String(), " rows, ") {
		t.Errorf("summary %q", stdout.String())
	}
	parts, _ := filepath.Glob(filepath.Join(ds, "js_heap_nodes", "trace=*", "part-0.parquet"))
	if len(parts) != 1 {
		t.Errorf("js_heap_nodes partitions: %v", parts)
	}
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		ctx  context.Context
		args []string
		code int
		msg  string
	}{
		{context.Background(), []string{"export", "-parquet", db, db}, 1, "is not a folder"},
		{context.Background(), []string{"export", "-parquet", ds, filepath.Join(dir, "missing.db")}, 1, "missing.db"},
		{context.Background(), []string{"export", "-parquet", ds}, 2, "usage"},
		{context.Background(), []string{"export", "-parquet", ds, "-pprof", "x.pb.gz", db}, 2, "usage"},
		{interrupted, []string{"export", "-parquet", ds, db}, 130, "context canceled"},
	} {
		stderr.Reset()
		if code := run(tt.ctx, tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, stderr.String(), tt.code, tt.msg)
		}
	}
}

// exampleDB converts the bundled example htrace with the command and returns
// the folder of the database and its path.
func exampleDB(t *testing.T) (dir, db string) {
	t.Helper()
	in := example(t)
	dir = t.TempDir()
	db = filepath.Join(dir, "out.db")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-q", in, "-o", db}, &stdout, &stderr); code != 0 {
		t.Fatalf("convert: exit %d %s", code, stderr.String())
	}
	return dir, db
}

// TestExportDevTools: the command writes the example capture's heap file and
// CPU profile, prints a line for each, refuses to overwrite them on a second
// run, and refuses a folder that is a file, a missing database, a mix of
// export kinds and an interrupted export with the usual exit codes.
func TestExportDevTools(t *testing.T) {
	dir, db := exampleDB(t)
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "devtools")
	if code := run(context.Background(), []string{"export", "-devtools", out, db}, &stdout, &stderr); code != 0 {
		t.Fatalf("export: exit %d %s", code, stderr.String())
	}
	names, _ := filepath.Glob(filepath.Join(out, "*"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if want := []string{"Profile0.cpuprofile", "Snapshot0.heapsnapshot"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
	if !strings.Contains(stdout.String(), db+": 2 files, ") {
		t.Errorf("summary %q", stdout.String())
	}
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		ctx  context.Context
		args []string
		code int
		msg  string
	}{
		{context.Background(), []string{"export", "-devtools", out, db}, 1, "Snapshot0.heapsnapshot exists already"},
		{context.Background(), []string{"export", "-devtools", db, db}, 1, "is not a folder"},
		{context.Background(), []string{"export", "-devtools", out, filepath.Join(dir, "missing.db")}, 1, "missing.db"},
		{context.Background(), []string{"export", "-devtools", out}, 2, "usage"},
		{context.Background(), []string{"export", "-devtools", out, "-pprof", "x.pb.gz", db}, 2, "usage"},
		{interrupted, []string{"export", "-devtools", filepath.Join(dir, "other"), db}, 130, "context canceled"},
	} {
		stderr.Reset()
		if code := run(tt.ctx, tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, stderr.String(), tt.code, tt.msg)
		}
	}
}
