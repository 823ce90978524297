package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitecturePage keeps docs/architecture.md true: every package and file it names in
// backquotes exists, and every top-level package with a floor is on the page.
func TestArchitecturePage(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, m := range regexp.MustCompile("`([a-z][a-z0-9_/.-]*)`").FindAllStringSubmatch(page, -1) {
		name := m[1]
		if !strings.Contains(name, "/") && !strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, ".md") {
			if _, ok := floor[name]; !ok {
				continue // a word in backquotes, not a package
			}
		}
		if strings.Contains(name, "*") || strings.Contains(name, "<") || strings.HasPrefix(name, "reg_") {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, ".go") && !strings.Contains(name, "/") {
			continue // a file named beside its package on the same line
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", name)
		}
	}
	for unit := range floor {
		if unit == "internal" || unit == "cmd" {
			continue
		}
		if !strings.Contains(page, "`"+unit+"`") && !strings.Contains(page, "`"+unit+"/") {
			t.Errorf("package %s has a floor but no line in docs/architecture.md", unit)
		}
	}
}
