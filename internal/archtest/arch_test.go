// Package archtest checks the dependency rules of docs/architecture.md.
package archtest

import (
	"go/ast"
	"go/build"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

const module = "tracestreamer/"

// imports returns every package of the module (by path inside it) with the
// imports of its non-test files.
func imports(t *testing.T) map[string][]string {
	root := testutil.Root()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = p.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// traceEventStages lists what of the module each stage of the Trace Event
// importer (and a few other packages with narrow rules) may import.
var traceEventStages = map[string][]string{
	"parser/traceevent/tokenizer": {"parser/jsonscan"},
	"parser/traceevent/extsort":   {"internal/scratch"},
	"parser/traceevent/event":     {"parser/jsonscan", "parser/traceevent/tokenizer", "parser/traceevent/extsort"},
	"tables":                      {"rows", "schema"},
	// Analyses on top of the heap graph know the graph, nothing else; the
	// graph knows only how to run a step on another goroutine.
	"analysis/leaks":            {"analysis/heapgraph"},
	"analysis/heapgraph":        {"internal/task"},
	"parser/traceevent/tracker": {"parser/jsonscan", "parser/traceevent/tokenizer", "parser/traceevent/event", "stat"},
	// query reads databases: it converts nothing and writes nothing.
	"query": {"store"},
	// info knows no format: an input is described by its format's entry in
	// ingest's registry (Sniffed.Describe), a database read through store.
	"inspect": {"ingest", "store"},
	// The JSON heap snapshot decoder knows JSON and hands what it reads to
	// the heap-file layer, counting what it cannot use under stat's typed
	// keys (the counts themselves go through the heap-file Writer).
	"parser/heapsnapshot": {"parser/jsonscan", "heapfile", "stat"},
}

// heapDecoder reports whether pkg is a heap file decoder: parser/rawheap
// (and what is under it), or a parser that hands heap files to heapfile
// (parser/arkts routes the plugin's messages and writes js_config; the
// snapshots in them go through parser/heapsnapshot).
func heapDecoder(pkg string, imps []string) bool {
	return pkg == "parser/rawheap" || strings.HasPrefix(pkg, "parser/rawheap/") ||
		strings.HasPrefix(pkg, "parser/") && pkg != "parser/arkts" && slices.Contains(imps, module+"heapfile")
}

func TestDependencyRules(t *testing.T) {
	pkgs := imports(t)
	if len(pkgs) < 15 {
		t.Fatalf("found only %d packages", len(pkgs))
	}
	for pkg, imps := range pkgs {
		for _, imp := range imps {
			inModule := strings.HasPrefix(imp, module)
			dep := strings.TrimPrefix(imp, module)
			switch {
			// Leaf packages: nothing of the module.
			case slices.Contains([]string{"schema", "stat", "parser/jsonscan", "analysis/flowchains",
				"internal/outfile", "internal/scratch", "internal/sqlitefile", "internal/task"}, pkg) && inModule:
				t.Errorf("%s imports %s: it must import nothing of the module", pkg, dep)
			// Parsers and analyses never write SQL or run conversions.
			case (strings.HasPrefix(pkg, "parser/") || strings.HasPrefix(pkg, "analysis/")) &&
				(dep == "store" || dep == "ingest" || imp == "database/sql" || strings.HasPrefix(imp, "modernc.org/")):
				t.Errorf("%s imports %s: parsers know no SQL and no conversion", pkg, imp)
			// The stages of the Trace Event importer below the importer itself
			// know no rows, tables or stat rows, and each only the stages
			// before it (docs/architecture.md).
			case inModule && traceEventStages[pkg] != nil && !slices.Contains(traceEventStages[pkg], dep):
				t.Errorf("%s imports %s: it may import only %v of the module", pkg, dep, traceEventStages[pkg])
			// Heap file decoders hand their content to heapfile.Writer: the
			// rows, the tables and the analysis are the layer's.
			case heapDecoder(pkg, imps) && (dep == "rows" || dep == "tables" || dep == "schema" ||
				strings.HasPrefix(dep, "analysis/")):
				t.Errorf("%s imports %s: a heap file decoder writes through heapfile only", pkg, dep)
			// The heap-file layer knows no format, no SQL and no conversion.
			case pkg == "heapfile" && (strings.HasPrefix(dep, "parser/") || dep == "store" || dep == "ingest"):
				t.Errorf("%s imports %s: the heap-file layer knows no format and no conversion", pkg, dep)
			// Only the store writes SQLite; exports read databases back.
			case strings.HasPrefix(imp, "modernc.org/sqlite") && pkg != "store" &&
				!strings.HasPrefix(pkg, "export/") && !strings.HasPrefix(pkg, "internal/"):
				t.Errorf("%s imports %s: only store writes SQLite", pkg, imp)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(testutil.Root(), "docs", "architecture.md")); err != nil {
		t.Error(err)
	}
}

// TestCommandsUnderCmd: a command (package main) lives under cmd/ (the ones
// users run) or internal/cmd/ (generators, benchmarks, the storebench
// module); internal/ otherwise holds libraries and test support, as in Go's
// x/exp.
func TestCommandsUnderCmd(t *testing.T) {
	commands := 0
	eachGoFile(t, false, func(rel, pkg string, _ *token.FileSet, f *ast.File) {
		if f.Name.Name != "main" {
			return
		}
		commands++
		pkg = filepath.ToSlash(pkg)
		if !strings.HasPrefix(pkg, "cmd/") && !strings.HasPrefix(pkg, "internal/cmd/") {
			t.Errorf("%s: package main outside cmd/ and internal/cmd/", rel)
		}
	})
	if commands < 5 {
		t.Errorf("found only %d files of commands", commands)
	}
}
