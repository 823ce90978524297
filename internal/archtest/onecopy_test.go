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
)

// TestOneGitRunnerOneAtomicWriter keeps STYLE.md's "one of each" for two pieces of plumbing
// that were copied six and four times: only internal/gitexec starts git, and only
// internal/fsutil puts a temporary file in place of another (CreateTemp, then Rename or Link).
// Tests, benchmarks and their helper programs build their own fixtures and are not counted.
func TestOneGitRunnerOneAtomicWriter(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".git", rel == "bench", rel == "test", rel == "internal/testgit",
				d.Name() == "testdata", d.Name() == "node_modules":
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
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			gitAt, temp, place := checkFunc(fn)
			if gitAt.IsValid() && dir != "internal/gitexec" {
				t.Errorf("%s: %s runs git itself: call internal/gitexec (Run, Cmd.Run or Cmd.Stream)", fset.Position(gitAt), fn.Name.Name)
			}
			if temp && place && dir != "internal/fsutil" {
				t.Errorf("%s: %s writes a temporary file and renames it into place: call fsutil.WriteFile (Options for no fsync or create-only)", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkFunc reports where fn starts git through os/exec (an invalid position if it does not),
// and whether it calls os.CreateTemp and os.Rename or os.Link.
func checkFunc(fn *ast.FuncDecl) (gitAt token.Pos, temp, place bool) {
	ast.Inspect(fn, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch pkg.Name + "." + sel.Sel.Name {
		case "exec.Command":
			if len(call.Args) > 0 && isGit(call.Args[0]) {
				gitAt = call.Pos()
			}
		case "exec.CommandContext":
			if len(call.Args) > 1 && isGit(call.Args[1]) {
				gitAt = call.Pos()
			}
		case "os.CreateTemp":
			temp = true
		case "os.Rename", "os.Link":
			place = true
		}
		return true
	})
	return gitAt, temp, place
}

// isGit reports whether e names the git program: "git", or a variable called git (a path from
// exec.LookPath).
func isGit(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return err == nil && s == "git"
	case *ast.Ident:
		return e.Name == "git"
	}
	return false
}
