package gating

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is gating's whole world: the standard library's non-I/O packages, the bank
// model and the shell classifier. Anything else would let the file system, the clock or the
// environment into a package that must stay pure and replayable.
var allowedImports = map[string]bool{
	"strings": true, "path": true, "sort": true, "slices": true, "maps": true, "fmt": true,
	"errors": true, "strconv": true, "bytes": true, "encoding/json": true,
	"unicode": true, "unicode/utf8": true, "unicode/utf16": true,
	"github.com/mbguard/mbguard/bank":         true,
	"github.com/mbguard/mbguard/gating/shell": true,
	"github.com/mbguard/mbguard/host":         true,
}

var forbiddenImports = []string{"os", "io/fs", "net", "os/exec", "time", "syscall", "path/filepath"}

func TestDepcheck(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for _, bad := range forbiddenImports {
				if p == bad {
					t.Errorf("%s imports %q: gating must stay free of I/O, clock and environment", name, p)
				}
			}
			if !allowedImports[p] {
				t.Errorf("%s imports %q, which is not on gating's allow-list", name, p)
			}
		}
		full, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(full, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && sel.Sel.Name == "Now" {
					t.Errorf("%s: time.Now at %s: the time comes in Event.Now", name, fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
