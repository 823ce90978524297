package shell

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"testing"
)

// TestSwitchCommandsMatchTheSwitch: switchCommands is the list of names command() and
// unwrap() handle by name; knownCommand (and so every wrapper) relies on it. The list and
// the switches' case labels must agree both ways, and every name of the tables must be known.
func TestSwitchCommandsMatchTheSwitch(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "commands.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	handled := map[string]bool{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "command" && fn.Name.Name != "unwrap" {
			continue
		}
		for _, st := range fn.Body.List {
			sw, ok := st.(*ast.SwitchStmt)
			if !ok {
				continue
			}
			if id, ok := sw.Tag.(*ast.Ident); !ok || id.Name != "name" {
				continue
			}
			for _, c := range sw.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						handled[s] = true
					}
				}
			}
		}
	}
	if len(handled) < 50 {
		t.Fatalf("found only %d case labels: the test no longer reads the switches", len(handled))
	}
	var unlisted, unhandled []string
	for n := range handled {
		if !switchCommands[n] {
			unlisted = append(unlisted, n)
		}
	}
	for n := range switchCommands {
		if !handled[n] {
			unhandled = append(unhandled, n)
		}
	}
	sort.Strings(unlisted)
	sort.Strings(unhandled)
	if len(unlisted) > 0 {
		t.Errorf("handled by name but missing from switchCommands (wrappers will not find them): %q", unlisted)
	}
	if len(unhandled) > 0 {
		t.Errorf("in switchCommands but handled nowhere: %q", unhandled)
	}
	// every table's names are known commands
	for name := range formatters {
		if !knownCommand(name) {
			t.Errorf("formatter %q is not a known command", name)
		}
	}
	for name := range pkgManagers {
		if !knownCommand(name) {
			t.Errorf("package manager %q is not a known command", name)
		}
	}
	for name := range readers {
		if !knownCommand(name) {
			t.Errorf("reader %q is not a known command", name)
		}
	}
	for name := range wrappers {
		if !knownCommand(name) {
			t.Errorf("wrapper %q is not a known command", name)
		}
	}
}
