package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
)

// TestRegistryComplete: every host entry is whole — its files are protected, its events
// named, its window-closing events among them, its end-to-end package present or its absence
// explained, and every hook host answered by `mbguard hook`.
func TestRegistryComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Registry() {
		t.Run(s.Name, func(t *testing.T) {
			if s.Name == "" || s.Title == "" || seen[s.Name] {
				t.Fatalf("entry %+v: a name and title, once", s.Name)
			}
			seen[s.Name] = true
			if len(s.Events) == 0 || s.Install == nil || s.Marker == "" || s.SessionField == "" {
				t.Errorf("entry lacks events, installer, marker or session field")
			}
			for _, ev := range s.Closes {
				if !slices.Contains(s.Events, ev) {
					t.Errorf("closing event %q is not installed", ev)
				}
			}
			if len(s.ProjectFiles) == 0 {
				t.Errorf("no project configuration files")
			}
			for _, f := range s.ProjectFiles {
				if !slices.Contains(gating.ProtectedPaths, f) {
					t.Errorf("%s is not in gating.ProtectedPaths: an agent could switch the guard off", f)
				}
			}
			if (s.E2E == "") == (s.NotRun == "") {
				t.Errorf("want either an e2e package or a reason it is not run end to end")
			}
			if dir, ok := strings.CutPrefix(s.E2E, "test/e2e/"); ok {
				if _, err := os.Stat(filepath.Join("..", "test", "e2e", dir)); err != nil {
					t.Errorf("e2e package %s: %v", s.E2E, err)
				}
			}
			if s.HookHost() {
				h := &Hook{Host: s.Name}
				if _, err := h.proto(); err != nil {
					t.Errorf("hook %s: %v", s.Name, err)
				}
				if !slices.Contains(Hosts, s.Name) {
					t.Errorf("Hosts lacks %s", s.Name)
				}
			}
		})
	}
}
