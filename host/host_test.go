package host

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEveryHostIsWhole: each entry says all a floor may ask of it, once.
func TestEveryHostIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All() {
		if s.Name == "" || s.Title == "" {
			t.Errorf("%+v: a host needs a name and a title", s)
		}
		if seen[s.Name] {
			t.Errorf("%s is listed twice", s.Name)
		}
		seen[s.Name] = true
		if (s.E2E == "") == (s.NotRun == "") {
			t.Errorf("%s: exactly one of E2E (the package that runs it for real) and NotRun (why none can) must be set", s.Name)
		}
		if s.E2E != "" && !strings.HasPrefix(s.E2E, "test/e2e/") {
			t.Errorf("%s: E2E %q is not under test/e2e/", s.Name, s.E2E)
		}
		for _, v := range []string{s.Fails.Crash, s.Fails.Timeout, s.Fails.BadReply} {
			if v != "open" && v != "closed" {
				t.Errorf("%s: Fails %+v: each failure is open or closed", s.Name, s.Fails)
			}
		}
		if s.Fails.How == "" {
			t.Errorf("%s: Fails.How must say what makes it so", s.Name)
		}
		if (s.Tools.Shell == "") != (s.Tools.Write == "") || (s.Tools.Write == "") != (s.Tools.Edit == "") {
			t.Errorf("%s: Tools %+v: all three names or none", s.Name, s.Tools)
		}
		if got, ok := Lookup(s.Name); !ok || got.Name != s.Name {
			t.Errorf("Lookup(%q) = %+v, %v", s.Name, got, ok)
		}
	}
	if z := Get("no-such-host"); z.Secrets != Tell || z.Serial || z.Tools.Shell != "" {
		t.Errorf("an unknown host gets %+v; want the careful zero answer", z)
	}
}

// TestStandardLibraryOnly keeps the table importable from every floor, gating included.
func TestStandardLibraryOnly(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") || p == "os" || p == "os/exec" || p == "time" {
				t.Errorf("%s imports %s: host is a pure table (standard library, no I/O)", name, p)
			}
		}
	}
}

func TestFailModeLine(t *testing.T) {
	if s := Get("cursor").Fails.String(); !strings.HasPrefix(s, "a crash, a timeout or a reply it rejects fails closed") {
		t.Errorf("cursor: %q", s)
	}
	if s := Get("copilot").Fails.String(); !strings.Contains(s, "a timeout open") || !Get("copilot").Fails.Open() {
		t.Errorf("copilot: %q", s)
	}
	if Get("claude").Fails.Open() {
		t.Error("claude's gates fail closed as installed")
	}
}
