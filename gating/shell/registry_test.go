package shell

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRegistryEntries: every entry says what it is and does something, and every name of
// every table a handler consults is registered (knownCommand, and so every wrapper,
// relies on the registry alone).
func TestRegistryEntries(t *testing.T) {
	names := map[string]bool{}
	for _, fam := range families() {
		for _, c := range fam {
			if strings.TrimSpace(c.names) == "" || c.family == "" || c.does == "" {
				t.Errorf("entry %q: names, family and does must all be set: %+v", c.names, c)
			}
			if c.prefix != nil && c.handle != nil {
				t.Errorf("entry %q is both a prefix and a command", c.names)
			}
			if c.prefix == nil && c.handle == nil && c.runs == nil {
				t.Errorf("entry %q has no handler", c.names)
			}
			for _, n := range strings.Fields(c.names) {
				names[n] = true
				if len(registered(n)) == 0 {
					t.Errorf("%q is in an entry but not registered", n)
				}
			}
		}
	}
	if len(names) < 300 {
		t.Fatalf("only %d names registered: families() lost a family", len(names))
	}
	for table, ks := range nameTables() {
		for _, n := range ks {
			if !names[n] {
				t.Errorf("%s[%q] is handled but not registered", table, n)
			}
		}
	}
	// versioned names fold onto their family's entry only
	for _, n := range []string{"python3", "python3.12", "pip3.11", "php8.2", "perl5.36", "lua5.4", "ruby3.3"} {
		if !knownCommand(n) {
			t.Errorf("%q should fold onto its family", n)
		}
	}
	if cs := lookup("perl5.36"); len(cs) != 1 || cs[0].family != "interpreters" {
		t.Errorf("perl5.36 folds onto %d entries, want the interpreter's only", len(cs))
	}
	if knownCommand("no-such-tool") {
		t.Error("an unknown name is known")
	}
	// a tool known only by its run subcommand, or only for the files it runs, is not a
	// command wrappers stop at: flock l docker install x is not coreutils' install
	for _, n := range []string{"docker", "conda", "make"} {
		if len(lookup(n)) == 0 || knownCommand(n) {
			t.Errorf("%q: registered %v, known %v; want registered and not known", n, len(lookup(n)) > 0, knownCommand(n))
		}
	}
	if r := Classify("flock l docker install x", "/repo"); !r.Write {
		t.Errorf("flock l docker install x: %+v, want install's write as before the registry", r)
	}
}

// nameTables are the tables handlers look a command's name up in; every name in them must be
// registered. TestNoNameOutsideTheRegistry fails when a handler consults another.
func nameTables() map[string][]string {
	return map[string][]string{
		"readers": keys(readers()), "formatters": keys(formatters()), "subFormatters": keys(subFormatters),
		"pkgManagers": keys(pkgManagers()), "pkgAliases": keys(pkgAliases), "interpreters": keys(interpreters()),
		"wrappers": keys(wrappers()), "wrapperRunners": keys(wrapperRunners), "harmless": keys(harmless()),
	}
}

// TestNoNameOutsideTheRegistry: the dispatch (command, unwrap, runsOf, call) names no
// command, and every command name a handler compares its name with (`name == "ed"`,
// `switch name { case … }`) is registered, and every table a handler looks a name up in
// (`readers[name]`) is one whose names TestRegistryEntries checks. Adding a name to a
// handler or a new name table without registering it fails here.
func TestNoNameOutsideTheRegistry(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	compared, looked := 0, 0
	tables := nameTables()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if file == "registry.go" && (fn.Name.Name == "command" || fn.Name.Name == "unwrap") {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						t.Errorf("%s: %s names %s: put what a command does in its registry entry", fset.Position(lit.Pos()), fn.Name.Name, lit.Value)
					}
					return true
				})
			}
			// name is a command's name where it is a parameter (handlers, tables' helpers)
			named := false
			for _, f := range fn.Type.Params.List {
				for _, id := range f.Names {
					named = named || id.Name == "name"
				}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var lits []*ast.BasicLit
				switch x := n.(type) {
				case *ast.IndexExpr:
					byName := isCommandName(x.Index, named)
					if call, ok := x.Index.(*ast.CallExpr); ok {
						for _, a := range call.Args {
							byName = byName || isCommandName(a, named)
						}
					}
					table, _ := x.X.(*ast.Ident)
					if call, ok := x.X.(*ast.CallExpr); ok && len(call.Args) == 0 {
						table, _ = call.Fun.(*ast.Ident) // a table built on first use: readers()[name]
					}
					if byName {
						looked++
						if table == nil || table.Name != "registry" && tables[table.Name] == nil {
							t.Errorf("%s: a handler looks a command name up in a table TestRegistryEntries does not check: add it to nameTables", fset.Position(x.Pos()))
						}
					}
				case *ast.BinaryExpr:
					if (x.Op == token.EQL || x.Op == token.NEQ) && isCommandName(x.X, named) {
						lits = append(lits, stringLit(x.Y))
					}
					if (x.Op == token.EQL || x.Op == token.NEQ) && isCommandName(x.Y, named) {
						lits = append(lits, stringLit(x.X))
					}
				case *ast.SwitchStmt:
					if x.Tag != nil && isCommandName(x.Tag, named) {
						for _, cc := range x.Body.List {
							for _, e := range cc.(*ast.CaseClause).List {
								lits = append(lits, stringLit(e))
							}
						}
					}
				}
				for _, lit := range lits {
					if lit == nil || lit.Value == `""` {
						continue
					}
					compared++
					s, _ := strconv.Unquote(lit.Value)
					if !knownCommand(s) {
						t.Errorf("%s: a handler tells %q apart, but no registry entry names it", fset.Position(lit.Pos()), s)
					}
				}
				return true
			})
		}
	}
	if looked < 8 {
		t.Fatalf("found only %d name lookups: the test no longer reads the handlers", looked)
	}
	if compared < 20 {
		t.Fatalf("found only %d name comparisons: the test no longer reads the handlers", compared)
	}
}

// isCommandName reports an expression holding a command's name: c.name in a handler,
// mname (a package manager's), name where it is a parameter.
func isCommandName(e ast.Expr, named bool) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "name" && named || x.Name == "mname"
	case *ast.SelectorExpr:
		return x.Sel.Name == "name" && isIdentNamed(x.X, "c")
	}
	return false
}

func isIdentNamed(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func stringLit(e ast.Expr) *ast.BasicLit {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		return lit
	}
	return nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
