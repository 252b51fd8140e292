package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"
)

// figures are one run's wall time, CPU time (user + system), peak RSS and
// database size.
type figures struct {
	wall, cpu time.Duration
	rss, db   int64
}

// measure runs cmd and reads its figures; out is the database it writes.
//
// What earlier runs wrote reaches the disk first: a run must not pay for
// the writeback of the database before it (0.9–3.8 GB for the snapshots).
// The database of the run before is removed first: on the 2-core VM a run
// that started with it still cached was 1.5–2.5 s slower, in the kernel
// (copies into new cache pages, zeroing of new heap pages), for the old
// binary as for the new.
func measure(cmd *exec.Cmd, out string) (figures, error) {
	os.Remove(out)
	syscall.Sync()
	resetPeak()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return figures{}, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	f := figures{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		f.rss = ru.Maxrss * 1024
		f.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	if info, err := os.Stat(out); err == nil {
		f.db = info.Size()
	}
	return f, nil
}

// coresInput reports whether -only selects the cores table's input name:
// every input for "", "cores" (or a part of it); for "cores/NAME" those
// whose name contains NAME; else those whose name contains only.
func coresInput(name, only string) bool {
	if want, ok := strings.CutPrefix(only, "cores/"); ok {
		return strings.Contains(name, want)
	}
	return strings.Contains("cores", only) || strings.Contains(name, only)
}

// resetPeak lowers this process's peak RSS to what it holds now, where
// Linux allows it (/proc/self/clear_refs). A child's peak RSS starts at its
// parent's: os/exec starts it sharing the parent's memory (vfork), and exec
// keeps that memory's high-water mark as the child's. Without the reset every
// run measured after benchrun generated an input in its own memory (a
// 519 MB trace: 226 MB) read at least that much, whatever it used.
func resetPeak() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// Peers' bundles as ../shared/tools/README.md unpacks them under peers.
const (
	perfettoDir   = "trace_processor_shell-v58.2"
	referenceDir  = "trace_streamer-4.3.7"
	translatorDir = "rawheap_translator-2.0.0"
)

// cores converts each input with 1, 2 and every core (--threads; the heap
// inputs, the htrace and the .rawheap, also with --no-analysis), then
// with Perfetto's trace_processor_shell -e (Trace Event JSON), the
// reference trace_streamer (htrace) and rawheap_translator (.rawheap, its
// .heapsnapshot's size in the db column) where their bundles are unpacked
// under peers: the same inputs in the same minutes, so that the figures
// compare.
//
// With base set (a directory holding another build's tracestreamer), each
// tracestreamer run is paired with the same run of that build, marked base,
// the two in turn first: before and after a change, measured in the same
// minutes. The Chrome traces and the .rawheap are generated where they are
// missing.
func cores(bin, base, cache, peers, only string) (err error) {
	procs := slices.Compact([]int{1, 2, runtime.NumCPU()})
	if runtime.NumCPU() < 2 {
		procs = []int{1}
	}
	chrome := func(size int64) func(string) error {
		return func(path string) error {
			fmt.Fprintf(os.Stderr, "generating %s…\n", path)
			return genRealTrace(path, ".", size)
		}
	}
	inputs := []struct {
		name, path string
		gen        func(path string) error // where it is missing; nil: make bench makes it
	}{
		{"trace-real", filepath.Join(cache, "trace-real.json"), chrome(realTraceSize)},
		{"trace-29mb", filepath.Join(cache, "trace-real-29mb.json"), chrome(29e6)},
		{"snapshot", filepath.Join(cache, "snapshot.htrace"), func(path string) error {
			// From the V8 snapshot beside it, as make bench wraps it (a
			// machine without node, given the snapshot: scripts/cores).
			if _, err := os.Stat(filepath.Join(cache, "snapshot.heapsnapshot")); err != nil {
				return noInput{"snapshot"}
			}
			fmt.Fprintf(os.Stderr, "generating %s…\n", path)
			return ensure(benchCase{raw: "snapshot.heapsnapshot", wrap: []string{"-snapshot"}, htrace: filepath.Base(path)}, cache, bin)
		}},
		{"rawheap", filepath.Join(cache, "snapshot.rawheap"), func(path string) error { return genRawheap(bin, ".", path) }},
	}
	builds := []struct{ dir, name string }{{bin, "tracestreamer"}}
	if base != "" {
		builds = append(builds, struct{ dir, name string }{base, "base"})
	}
	fmt.Printf("\ncores and peers (%d cores here; CPU = user + system; the same inputs in the same run)\n", runtime.NumCPU())
	if base != "" {
		fmt.Printf("tracestreamer: %s, base: %s\n", bin, base)
	}
	if runtime.NumCPU() >= 2 {
		// What two threads of independent work get here, before and
		// after the runs: the bound of their GOMAXPROCS 2/1 ratios.
		fmt.Printf("this machine's 2-thread ceiling (wall at GOMAXPROCS 2 / 1 of two independent units): %v\n", measureCeiling(3))
		defer func() {
			if err == nil {
				fmt.Printf("the 2-thread ceiling again, after the runs: %v\n", measureCeiling(3))
			}
		}()
	}
	fmt.Printf("%-11s %-36s %8s %8s %8s %8s\n", "input", "run", "wall s", "CPU s", "peak MB", "db MB")
	line := func(input, run string, f figures) {
		fmt.Printf("%-11s %-36s %8.2f %8.2f %8.0f %8.1f\n", input, run, f.wall.Seconds(), f.cpu.Seconds(),
			float64(f.rss)/1e6, float64(f.db)/1e6)
	}
	out, err := filepath.Abs(filepath.Join(cache, "cores.db"))
	if err != nil {
		return err
	}
	defer os.Remove(out)
	for _, in := range inputs {
		if !coresInput(in.name, only) {
			continue
		}
		abs, err := filepath.Abs(in.path)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			err = noInput{in.name}
			if in.gen != nil {
				err = in.gen(abs)
			}
			var missing noInput
			if errors.As(err, &missing) {
				fmt.Printf("%-11s (%v)\n", in.name, missing)
				continue
			}
			if err != nil {
				return err
			}
		}
		htrace, rawheap := strings.HasSuffix(abs, ".htrace"), strings.HasSuffix(abs, ".rawheap")
		flags := [][]string{nil}
		if htrace || rawheap {
			flags = append(flags, []string{"--no-analysis"})
		}
		for _, fl := range flags {
			for _, p := range procs {
				slices.Reverse(builds) // each build first in turn
				for _, b := range builds {
					args := append(append([]string{"-q", "--threads", fmt.Sprint(p)}, fl...), abs, "-o", out)
					cmd := exec.Command(filepath.Join(b.dir, "tracestreamer"), args...)
					var stderr bytes.Buffer // the input's warnings, printed only if it fails
					cmd.Stderr = &stderr
					f, err := measure(cmd, out)
					if err != nil {
						os.Stderr.Write(stderr.Bytes())
						return err
					}
					line(in.name, strings.TrimSpace(fmt.Sprintf("%s -tn %d %s", b.name, p, strings.Join(fl, " "))), f)
				}
			}
		}
		peer, name := filepath.Join(peers, perfettoDir), "perfetto -e"
		switch {
		case htrace:
			peer, name = filepath.Join(peers, referenceDir), "reference"
		case rawheap:
			peer, name = filepath.Join(peers, translatorDir), "rawheap_translator"
		}
		run := filepath.Join(peer, "run.sh")
		if _, err := os.Stat(run); err != nil {
			fmt.Printf("%-11s %-36s (not unpacked under %s)\n", in.name, name, peers)
			continue
		}
		var cmd *exec.Cmd
		peerOut := out
		switch {
		case htrace:
			// It reads config/config.json from the current folder and writes
			// OUT.ohos.ts beside the output.
			cmd = exec.Command("./run.sh", abs, "-e", out)
			cmd.Dir = peer
			defer os.Remove(out + ".ohos.ts")
		case rawheap:
			// It writes the DevTools JSON, no database: its size stands in
			// the db column.
			peerOut = strings.TrimSuffix(out, ".db") + ".heapsnapshot"
			cmd = exec.Command(run, abs, peerOut)
			defer os.Remove(peerOut)
		default:
			cmd = exec.Command(run, "-e", out, abs)
		}
		f, err := measure(cmd, peerOut)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			fmt.Printf("%-11s %-36s failed: %v\n", in.name, name, err)
			continue
		}
		if err != nil {
			return err
		}
		if rawheap && f.db == 0 {
			// It exits 0 also when it fails.
			fmt.Printf("%-11s %-36s failed: wrote no %s\n", in.name, name, filepath.Base(peerOut))
			continue
		}
		line(in.name, name, f)
		if rawheap {
			fmt.Printf("%-11s %-36s (db MB: the .heapsnapshot it writes)\n", "", "")
		}
	}
	return nil
}
