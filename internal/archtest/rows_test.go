package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tracestreamer/internal/testutil"
)

// rowFields returns the fields of every row type of package tables, from its
// generated source.
func rowFields(t *testing.T) map[string][]string {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(testutil.Root(), "tables", "tables_gen.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok || strings.HasSuffix(ts.Name.Name, "Writer") {
				continue
			}
			for _, fl := range st.Fields.List {
				for _, n := range fl.Names {
					out[ts.Name.Name] = append(out[ts.Name.Name], n.Name)
				}
			}
		}
	}
	return out
}

// eachGoFile parses every Go file of the module (generated ones and, unless
// tests is set, test files left out) and calls fn with its path relative to
// the module, its package folder and its syntax tree.
func eachGoFile(t *testing.T, tests bool, fn func(rel, pkg string, fset *token.FileSet, f *ast.File)) {
	root := testutil.Root()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_gen.go") ||
			(!tests && strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(rel, filepath.Dir(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRowsNameEveryColumn checks every composite literal of a row type of
// package tables in the module's code: it must set each column by name, so
// that a column forgotten when writing a row is a test failure and not a
// silent 0 or NULL (a NULL is written as rows.Int{} or rows.Text{}, on
// purpose).
func TestRowsNameEveryColumn(t *testing.T) {
	fields := rowFields(t)
	if len(fields) < 50 || len(fields["Callstack"]) != 19 {
		t.Fatalf("%d row types, callstack with %d columns", len(fields), len(fields["Callstack"]))
	}
	literals := 0
	eachGoFile(t, true, func(rel, _ string, fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "tables" || fields[sel.Sel.Name] == nil {
				return true
			}
			literals++
			var set []string
			for _, e := range lit.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					set = append(set, kv.Key.(*ast.Ident).Name)
				}
			}
			for _, want := range fields[sel.Sel.Name] {
				if !slices.Contains(set, want) {
					t.Errorf("%s:%d: tables.%s literal does not set %s", rel, fset.Position(lit.Pos()).Line, sel.Sel.Name, want)
				}
			}
			return true
		})
	})
	if literals < 40 {
		t.Errorf("found only %d row literals", literals)
	}
}

// TestOneWriterPerTable checks that the writer of each table is made in one
// package only (tests aside), so that a table's rows have one author.
func TestOneWriterPerTable(t *testing.T) {
	makers := map[string]map[string]bool{} // constructor → packages calling it
	eachGoFile(t, false, func(_, pkg string, _ *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "New") {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "tables" {
				if makers[sel.Sel.Name] == nil {
					makers[sel.Sel.Name] = map[string]bool{}
				}
				makers[sel.Sel.Name][pkg] = true
			}
			return true
		})
	})
	if len(makers) < 45 {
		t.Errorf("only %d table writers made", len(makers))
	}
	for name, pkgs := range makers {
		if len(pkgs) > 1 {
			t.Errorf("tables.%s is called from %d packages: %v", name, len(pkgs), pkgs)
		}
	}
}
