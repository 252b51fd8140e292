// Package outfile decides where an output the user named may be written: it
// refuses anything that is not, or does not name, a regular file (devices,
// FIFOs, sockets, directories) and any path that is one of the run's inputs,
// so that a run never replaces a file the user did not name as its output.
//
// It only inspects paths; it must not create, open or remove files.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links followed from an output path (as the
// kernel's ELOOP limit does).
const maxLinks = 40

// Target returns the path of the regular file that writing the output path
// will create or replace. A symbolic link is followed (a chain of them too), so
// that the link stays and the file it names is replaced, as editors do; a link
// to a missing file names the file to create. The output is refused, with an
// error naming it, when it or the file a link names exists and is not a
// regular file, and when it is the same file as one of inputs.
func Target(path string, inputs ...string) (string, error) {
	target := path
	for hops := 0; ; hops++ {
		info, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("output %s: %w", path, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			if !info.Mode().IsRegular() {
				return "", fmt.Errorf("output %s: %s is %s, not a regular file; refusing to replace it", path, target, kind(info.Mode()))
			}
			break
		}
		if hops == maxLinks {
			return "", fmt.Errorf("output %s: more than %d symbolic links", path, maxLinks)
		}
		text, err := os.Readlink(target)
		if err != nil {
			return "", fmt.Errorf("output %s: %w", path, err)
		}
		link := text
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		// A "magic" link of /proc (/dev/stdout → /proc/self/fd/1 →
		// "pipe:[N]") names no path, but the kernel follows it to what it
		// stands for: a pipe, a socket, a terminal.
		if _, err := os.Lstat(link); errors.Is(err, fs.ErrNotExist) {
			if info, err := os.Stat(target); err == nil && !info.Mode().IsRegular() {
				what := kind(info.Mode())
				if strings.HasPrefix(text, "pipe:") {
					what = "a pipe"
				}
				return "", fmt.Errorf("output %s: %s is %s (%s), not a regular file; refusing to replace it",
					path, target, what, text)
			}
		}
		target = link
	}
	if err := NotAnInput(path, target, inputs...); err != nil {
		return "", err
	}
	return target, nil
}

// NotAnInput refuses an output (named path, resolved to target) that is one of
// inputs: the same file, or the same name.
func NotAnInput(path, target string, inputs ...string) error {
	outInfo, statErr := os.Stat(target)
	outAbs, absErr := filepath.Abs(target)
	for _, in := range inputs {
		if statErr == nil {
			if info, err := os.Stat(in); err == nil && os.SameFile(info, outInfo) {
				return fmt.Errorf("output %s is the input %s; refusing to overwrite it", path, in)
			}
		}
		if inAbs, err := filepath.Abs(in); err == nil && absErr == nil && inAbs == outAbs {
			return fmt.Errorf("output %s is the input %s; refusing to overwrite it", path, in)
		}
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe" // an anonymous one too: the kernel makes no difference
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}
