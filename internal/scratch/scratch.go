// Package scratch makes the temporary files and folders of a run — the
// database being built beside its destination, the sort's spill folder — under
// names that say whose they are (".NAME.tracestreamer-PID-RANDOM.tmp",
// "tracestreamer-PID-sort-RANDOM"), and removes those that a run killed
// before it could clean up (SIGKILL, power loss) left behind.
//
// It must not touch any entry whose name it did not make, nor one whose
// process may still be running: an entry is stale only when the process id in
// its name no longer exists.
package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	fileTag = ".tracestreamer-"
	fileExt = ".tmp"
	dirTag  = "tracestreamer-"
	dirKind = "-sort-"
	// maxBase bounds the part of the destination's name kept in the
	// temporary name, so that a destination name of up to 255 bytes still
	// gives a valid temporary name.
	maxBase = 120
)

// File creates a new temporary file in dir for the destination named base,
// with the mode a new file gets under the user's umask (0666 &^ umask).
func File(dir, base string) (*os.File, error) {
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	for range 100 {
		name := filepath.Join(dir, fmt.Sprintf(".%s%s%d-%08x%s", base, fileTag, os.Getpid(), rand.Uint32(), fileExt))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("scratch: no unused temporary name in %s", dir)
}

// Dir creates a new private folder for sorted runs in parent ("" for the
// system's temporary folder).
func Dir(parent string) (string, error) {
	return os.MkdirTemp(parent, fmt.Sprintf("%s%d%s", dirTag, os.Getpid(), dirKind))
}

// pidOf returns the process id in a name this package made, and whether the
// name is one.
func pidOf(name string) (int, bool) {
	var rest string
	switch {
	case strings.HasPrefix(name, ".") && strings.HasSuffix(name, fileExt) && strings.Contains(name, fileTag):
		rest = name[strings.LastIndex(name, fileTag)+len(fileTag):]
	case strings.HasPrefix(name, dirTag) && strings.Contains(name, dirKind):
		rest = name[len(dirTag):]
	default:
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// Stale lists the entries of dir that this package made for processes that no
// longer exist.
func Stale(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if pid, ok := pidOf(e.Name()); ok && pid != os.Getpid() && !alive(pid) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Clean removes the stale entries of dir (see Stale) and returns them.
func Clean(dir string) []string {
	var removed []string
	for _, p := range Stale(dir) {
		if os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// Sync flushes a file's data to stable storage.
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
