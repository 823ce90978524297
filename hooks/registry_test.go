package hooks

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/host"
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

// TestRegistryFollowsHostTable: the registry holds the host table's entries, in its order, and
// adds only behaviour to them.
func TestRegistryFollowsHostTable(t *testing.T) {
	var got, want []string
	for _, s := range Registry() {
		got = append(got, s.Name)
		if !reflect.DeepEqual(s.Spec, host.Get(s.Name)) {
			t.Errorf("%s: the registry's facts differ from host's table", s.Name)
		}
		if s.Plugin == s.HookHost() {
			t.Errorf("%s: Plugin is %v but `mbguard hook` answers it: %v", s.Name, s.Plugin, s.HookHost())
		}
	}
	for _, s := range host.All() {
		want = append(want, s.Name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("registry %v, host table %v", got, want)
	}
	if !strings.HasPrefix(host.Get("opencode").Marker, "//") || host.Get("opencode").Marker != openCodeHeader {
		t.Errorf("OpenCode's marker %q is not the plugin's header %q", host.Get("opencode").Marker, openCodeHeader)
	}
}

// TestDocNamesEveryHost: the package comment names every host of the table and its protocol
// file.
func TestDocNamesEveryHost(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n//", " ")), " ")
	for _, s := range host.All() {
		if !strings.Contains(doc, s.Title+" ("+s.Name+".go") {
			t.Errorf("doc.go does not name %s (%s.go)", s.Title, s.Name)
		}
	}
}
