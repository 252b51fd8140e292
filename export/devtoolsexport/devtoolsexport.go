// Package devtoolsexport writes the heap files and CPU profiles of a
// tracestreamer database back out as the JSON files Chrome DevTools, DevEco
// Profiler and node read: each heap file (js_heap_files with its js_heap_*
// rows) as a .heapsnapshot, or a .heaptimeline when it has allocation tracking
// data, and each CPU profile (js_cpu_profile) as a .cpuprofile
// (docs/format/heapsnapshot.md#writing-heap-files-back-out,
// docs/format/cpuprofile.md#writing-profiles-back-out).
//
// It streams: rows are read in rowid order and written as they come, so a heap
// file of any size is written in the memory of a buffer (plus the depth of
// its allocation tree). A CPU profile's runs and per-node counts are held
// while it is written (profiles are small next to heap files).
//
// It must not change the database, and must not write any file but the ones
// it names: they are written under temporary names and put in place together
// at the end, after checking that none of them exists.
package devtoolsexport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"tracestreamer/internal/scratch"
	"tracestreamer/store"
)

// File is one file written.
type File struct {
	Path  string
	Kind  string // "heapsnapshot", "heaptimeline" or "cpuprofile"
	ID    int64  // js_heap_files.id or js_cpu_profile.id
	Bytes int64
}

// Export writes every heap file and CPU profile of the database at dbPath into
// dir (made if missing), as Snapshot<id>.heapsnapshot, Timeline<id>.heaptimeline
// and Profile<id>.cpuprofile, ids being js_heap_files.id and js_cpu_profile.id.
// It fails, writing nothing, when one of these files exists already or the
// database holds neither heap files nor profiles. An export that fails or is
// cancelled (ctx) leaves no file behind.
func Export(ctx context.Context, dir, dbPath string) ([]File, error) {
	r, err := store.OpenReader(dbPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dbPath, err)
	}
	defer r.Close()
	stop := context.AfterFunc(ctx, r.Interrupt)
	defer stop()
	e := &exporter{ctx: ctx, r: r, dir: dir}
	files, err := e.run()
	if err != nil {
		for _, t := range e.tmps {
			os.Remove(t)
		}
		if ctx.Err() != nil {
			err = ctx.Err() // SQLite says "interrupted"
		}
		return nil, fmt.Errorf("export %s: %w", dbPath, err)
	}
	return files, nil
}

type exporter struct {
	ctx  context.Context
	r    *store.Reader
	dir  string
	tmps []string // temporary files written so far
}

// item is a file to write: a heap file or a CPU profile.
type item struct {
	kind string
	id   int64
	name string
}

func (e *exporter) run() ([]File, error) {
	items, err := e.items()
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, errors.New("the database holds no heap file and no CPU profile")
	}
	if err := os.MkdirAll(e.dir, 0o777); err != nil {
		return nil, err
	}
	for _, it := range items {
		p := filepath.Join(e.dir, it.name)
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s exists already: not overwritten (export into an empty folder)", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	var ix *heapIndex
	var heapIDs []int64
	for _, it := range items {
		if it.kind != "cpuprofile" {
			heapIDs = append(heapIDs, it.id)
		}
	}
	var files []File
	for _, it := range items {
		f, err := scratch.File(e.dir, it.name)
		if err != nil {
			return nil, err
		}
		e.tmps = append(e.tmps, f.Name())
		w := newWriter(f)
		if it.kind == "cpuprofile" {
			err = e.writeProfile(w, it.id)
		} else {
			if ix == nil {
				ix, err = e.findRanges(heapIDs)
			}
			if err == nil {
				err = e.writeHeapFile(w, it.id, ix)
			}
			if errors.Is(err, errInterleaved) && !ix.exact {
				// Rows not in file order: find them with a pass over each
				// table, and write the file again.
				if ix, err = e.exactRanges(); err == nil {
					w = newWriter(f)
					if _, err = f.Seek(0, 0); err == nil {
						err = f.Truncate(0)
					}
				}
				if err == nil {
					err = e.writeHeapFile(w, it.id, ix)
				}
			}
		}
		if err == nil {
			err = w.flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = scratch.Sync(f.Name())
		}
		if err != nil {
			return nil, fmt.Errorf("%s %d: %w", it.kind, it.id, err)
		}
		files = append(files, File{Path: filepath.Join(e.dir, it.name), Kind: it.kind, ID: it.id, Bytes: w.n})
	}
	for i, f := range files {
		if err := os.Rename(e.tmps[i], f.Path); err != nil {
			for _, g := range files[:i] {
				os.Remove(g.Path)
			}
			return nil, err
		}
	}
	e.tmps = nil
	return files, scratch.SyncDir(e.dir)
}

// items lists the heap files (id order) and CPU profiles (id order) of the
// database with the names of their files.
func (e *exporter) items() ([]item, error) {
	// A heap file is a timeline when it has allocation tracking data, as the
	// importer decides (docs/format/heapsnapshot.md#js_heap_files).
	timelines := map[int64]bool{}
	err := e.each(`SELECT file_id FROM js_heap_sample UNION SELECT file_id FROM js_heap_trace_function_info
		UNION SELECT file_id FROM js_heap_trace_node`, func(q *store.Rows) error {
		timelines[q.Int(0)] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("no heap tables (not a tracestreamer database?): %w", err)
	}
	var items []item
	err = e.each(`SELECT id FROM js_heap_files ORDER BY id`, func(q *store.Rows) error {
		id := q.Int(0)
		if timelines[id] {
			items = append(items, item{"heaptimeline", id, "Timeline" + strconv.FormatInt(id, 10) + ".heaptimeline"})
		} else {
			items = append(items, item{"heapsnapshot", id, "Snapshot" + strconv.FormatInt(id, 10) + ".heapsnapshot"})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = e.each(`SELECT id FROM js_cpu_profile ORDER BY id`, func(q *store.Rows) error {
		id := q.Int(0)
		items = append(items, item{"cpuprofile", id, "Profile" + strconv.FormatInt(id, 10) + ".cpuprofile"})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("no CPU profile table (not a tracestreamer database?): %w", err)
	}
	return items, nil
}

// each runs sql and calls fn for every row, checking for cancellation every
// 64 Ki rows.
func (e *exporter) each(sql string, fn func(q *store.Rows) error) error {
	q, err := e.r.Query(sql)
	if err != nil {
		return err
	}
	defer q.Close()
	for n := 0; q.Next(); n++ {
		if n&0xffff == 0xffff {
			if err := e.ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(q); err != nil {
			return err
		}
	}
	if err := q.Err(); err != nil {
		return fmt.Errorf("%.80q: %w", strings.Join(strings.Fields(sql), " "), err)
	}
	return nil
}
