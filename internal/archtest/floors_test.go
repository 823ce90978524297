package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mbguard/mbguard"

// floor ranks each top-level package; a package may import only packages on a lower floor
// (or its own subpackages). Within STYLE.md's bottom floor, gating and templates may read the
// bank model, so bank sits a step lower. internal/ is plumbing below everything, except
// internal/config, which turns configuration into the gating policy, and internal/state, which
// persists gating.State: both sit above gating.
var floor = map[string]int{
	"cmd":             50,
	"action":          50, // the GitHub Action's script and its test: beside cmd, at the top
	"hooks":           40,
	"watcher":         30,
	"outcome":         25,
	"stale":           22, // reads the bank and judges it with scanner's findings
	"scanner":         20,
	"lifecycle":       20,
	"internal/config": 15,
	"internal/state":  15,
	"gating":          12,
	"templates":       11,
	"skills":          11,
	"bank":            10,
	"host":            5, // the one table of agent hosts: standard library only
	"internal":        0,
}

type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
	Dir        string
}

func list(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ps []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return ps
}

// top is the unit a floor is given to: the top-level folder, or internal/<name>.
func top(importPath string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
	first, after, _ := strings.Cut(rest, "/")
	if first == "internal" {
		if name, _, _ := strings.Cut(after, "/"); name == "config" || name == "state" {
			return "internal/" + name
		}
	}
	return first
}

// TestFloors fails when a package imports a package on its own floor from another top-level
// package, or on a higher floor: the layering in STYLE.md that keeps gating pure and the CLI thin.
func TestFloors(t *testing.T) {
	for _, p := range list(t) {
		from := top(p.ImportPath)
		ff, ok := floorOf(from)
		if !ok {
			if from == "bench" || from == "test" || from == "examples" {
				continue
			}
			t.Errorf("%s: top-level package %q has no floor; add it to archtest and STYLE.md", p.ImportPath, from)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := top(imp)
			if to == from {
				continue
			}
			if tf, _ := floorOf(to); tf >= ff {
				t.Errorf("%s imports %s: %s (floor %d) may only import lower floors, %s is floor %d", p.ImportPath, imp, from, ff, to, tf)
			}
		}
	}
}

// TestOneMainPackage keeps `go install ./...` (which the pre-commit framework runs) yielding
// exactly mbguard's two programs: mbguard and the hook program beside it, mbguard-hook.
func TestOneMainPackage(t *testing.T) {
	var mains []string
	for _, p := range list(t) {
		if p.Name == "main" {
			mains = append(mains, p.ImportPath)
		}
	}
	if want := []string{module + "/cmd/mbguard", module + "/cmd/mbguard-hook"}; !slices.Equal(mains, want) {
		t.Fatalf("main packages = %v, want only %v (put helper programs under a testdata/ folder)", mains, want)
	}
}

func floorOf(unit string) (int, bool) {
	if f, ok := floor[unit]; ok {
		return f, true
	}
	return 0, false
}
