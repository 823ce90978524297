package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/host"
)

// TestHostNamesReadFromTheTable keeps a host's facts in its host.Spec (issue #27). The rule:
// in production Go code (tests, benchmarks, test/ and testdata are not counted), a string
// literal whose value is a host's name or alias from the table (any case) may not be a case of
// a switch, nor an operand of == or !=, except in host/ and in that host's own files in hooks/
// (hooks/<name>.go and hooks/<name>_*.go: its protocol and installer). Code that asks "is this
// host X?" should read the fact it wants from the table instead (host.Get(name).Kernel,
// .Plugin, .Trust, …). A literal that names the host to the table (host.Get("claude")), a map
// key or a command line (`hook claude`) is no comparison and is allowed; so is help text.
func TestHostNamesReadFromTheTable(t *testing.T) {
	names := map[string]string{} // lower-case name or alias → host
	for _, s := range host.All() {
		names[s.Name] = s.Name
		for _, a := range s.Aliases {
			names[strings.ToLower(a)] = s.Name
		}
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".git", rel == "bench", rel == "test", rel == "host", d.Name() == "testdata", d.Name() == "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			var lits []ast.Expr
			switch n := n.(type) {
			case *ast.CaseClause:
				lits = n.List
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					lits = []ast.Expr{n.X, n.Y}
				}
			}
			for _, e := range lits {
				lit, ok := e.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				h, ok := names[strings.ToLower(v)]
				if !ok || ownFile(rel, h) {
					continue
				}
				t.Errorf("%s: host name %q compared as a literal: read the fact from host.Spec instead", fset.Position(lit.Pos()), v)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d production files: the walk missed the tree", files)
	}
}

// ownFile reports whether rel is one of the host's own files in hooks/: its protocol
// (hooks/<name>.go) or another file named after it (hooks/<name>_install.go, …).
func ownFile(rel, name string) bool {
	dir, file := filepath.Split(filepath.FromSlash(rel))
	if filepath.ToSlash(dir) != "hooks/" {
		return false
	}
	base := strings.TrimSuffix(file, ".go")
	return base == name || strings.HasPrefix(base, name+"_")
}
