package shell

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the classifier pure: it may parse and handle strings
// and paths, nothing that reaches the file system, the clock or the
// environment. sync builds the command registry once, on first use.
func TestImports(t *testing.T) {
	allowed := map[string]bool{"path": true, "strings": true, "sync": true, "unicode/utf8": true, "mvdan.cc/sh/v3/syntax": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !allowed[p] {
				t.Errorf("%s imports %q, which is not on the shell classifier's allow-list", name, p)
			}
		}
	}
}
