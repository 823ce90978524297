package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mbguard/mbguard/internal/testgit"
)

// install --hooks in a lefthook repository adds mbguard's command to lefthook.yml, keeps the
// user's text, changes nothing the second time, and --uninstall gives back the exact file.
func TestInstallLefthook(t *testing.T) {
	tests := []struct {
		name, file, body string
	}{
		{"empty file", "lefthook.yml", ""},
		{"other hooks only", "lefthook.yml", "# team hooks\npre-push:\n  commands:\n    test:\n      run: go test ./...\n"},
		{"pre-commit with commands, 4-space indent", ".lefthook.yml",
			"pre-commit:\n    parallel: true\n    commands:\n        # format first\n        fmt:\n            run: gofmt -l .\n        lint:\n            glob: \"*.go\"\n            run: go vet ./...\npost-checkout:\n    commands:\n        x:\n            run: true\n"},
		{"pre-commit without commands", "lefthook.yaml", "pre-commit:\n  parallel: true\n  jobs:\n    - run: echo hi\n"},
		{"empty pre-commit", "lefthook.yml", "pre-commit:\npre-push:\n  commands:\n    t:\n      run: true\n"},
		{"empty commands, no final newline", ".config/lefthook.yml", "pre-commit:\n  commands:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := testgit.New(t)
			cfg := filepath.Join(root, filepath.FromSlash(tc.file))
			os.MkdirAll(filepath.Dir(cfg), 0o755)
			if err := os.WriteFile(cfg, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			o := opts(root)
			o.Binary = "mbguard"
			cs, err := InstallGitHook(o)
			if err != nil || len(cs) != 1 || cs[0].Action != "updated" || cs[0].Path != tc.file {
				t.Fatalf("install: %v, %v", actions(cs), err)
			}
			got := read(t, cfg)
			var doc struct {
				PreCommit struct {
					Commands map[string]struct {
						Run string `yaml:"run"`
					} `yaml:"commands"`
				} `yaml:"pre-commit"`
			}
			if err := yaml.Unmarshal([]byte(got), &doc); err != nil {
				t.Fatalf("result is not YAML: %v\n%s", err, got)
			}
			if run := doc.PreCommit.Commands["mbguard"].Run; run != "mbguard check --staged" {
				t.Fatalf("pre-commit.commands.mbguard.run = %q in\n%s", run, got)
			}
			for _, l := range strings.Split(tc.body, "\n") {
				if !strings.Contains(got, l) {
					t.Errorf("the user's line %q is gone:\n%s", l, got)
				}
			}
			if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
				t.Error("a git hook was written beside lefthook's")
			}
			if cs, err := InstallGitHook(o); err != nil || actions(cs) != "unchanged "+tc.file {
				t.Fatalf("second install: %v, %v", actions(cs), err)
			}
			o.Uninstall = true
			if cs, err := InstallGitHook(o); err != nil || actions(cs) != "updated "+tc.file {
				t.Fatalf("uninstall: %v, %v", actions(cs), err)
			}
			want := tc.body
			if want != "" && !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			if back := read(t, cfg); back != want {
				t.Fatalf("uninstall left\n%q\nwant\n%q", back, want)
			}
			if cs, _ := InstallGitHook(o); !strings.Contains(cs[0].Note, "nothing to remove") {
				t.Fatalf("second uninstall: %+v", cs)
			}
		})
	}
}

// What mbguard cannot edit safely gets the snippet to paste, and the file stays as it was.
func TestInstallLefthookPrintsSnippet(t *testing.T) {
	for name, c := range map[string][2]string{
		"flow style": {"lefthook.yml", "pre-commit: {commands: {fmt: {run: gofmt}}}\n"},
		"toml":       {"lefthook.toml", "[pre-commit.commands.fmt]\nrun = \"gofmt\"\n"},
		"broken":     {"lefthook.yml", "pre-commit:\n  commands: [\n"},
	} {
		t.Run(name, func(t *testing.T) {
			root := testgit.New(t)
			cfg := filepath.Join(root, c[0])
			os.WriteFile(cfg, []byte(c[1]), 0o644)
			o := opts(root)
			o.Binary = "mbguard"
			_, err := InstallGitHook(o)
			if err == nil || !strings.Contains(err.Error(), LefthookSnippet("mbguard")) {
				t.Fatalf("got %v, want the snippet", err)
			}
			if read(t, cfg) != c[1] {
				t.Fatal("the file changed")
			}
		})
	}
}

// An uninstall where nothing was installed says so, instead of "not mbguard's hook".
func TestUninstallGitHookNothingThere(t *testing.T) {
	o := opts(testgit.New(t))
	o.Uninstall = true
	cs, err := InstallGitHook(o)
	if err != nil || len(cs) != 1 || cs[0].Action != "skipped" || !strings.Contains(cs[0].Note, "nothing to remove") {
		t.Fatalf("%+v, %v", cs, err)
	}
}

// doctor's source of truth: what really runs mbguard before a commit, and the step that works.
func TestGitHookState(t *testing.T) {
	tests := []struct {
		name      string
		prep      func(t *testing.T, root string)
		installed bool
		detail    string
		next      string
	}{
		{"nothing", func(t *testing.T, root string) {}, false, "no pre-commit hook", "mbguard install --hooks"},
		{"plain hook", func(t *testing.T, root string) {
			o := opts(root)
			if _, err := InstallGitHook(o); err != nil {
				t.Fatal(err)
			}
		}, true, ".git/hooks/pre-commit", ""},
		{"hook in a local core.hooksPath", func(t *testing.T, root string) {
			testgit.Git(t, root, "config", "core.hooksPath", ".githooks")
			testgit.Write(t, root, ".githooks/pre-commit", "#!/bin/sh\nmbguard check --staged\n")
		}, true, ".githooks/pre-commit", ""},
		{"core.hooksPath of another tool", func(t *testing.T, root string) {
			testgit.Git(t, root, "config", "core.hooksPath", ".githooks")
		}, false, "core.hooksPath is .githooks", `add "mbguard check --staged" to its pre-commit hook`},
		{"husky path without the line", func(t *testing.T, root string) {
			testgit.Git(t, root, "config", "core.hooksPath", ".husky/_")
			os.MkdirAll(filepath.Join(root, ".husky", "_"), 0o755)
		}, false, "core.hooksPath is .husky/_", "mbguard install --hooks --husky"},
		{"pre-commit framework configured, not installed", func(t *testing.T, root string) {
			testgit.Write(t, root, ".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks:\n      - id: mbguard-system\n")
		}, false, "git does not run the pre-commit framework", "pre-commit install"},
		{"pre-commit framework installed", func(t *testing.T, root string) {
			testgit.Write(t, root, ".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks:\n      - id: mbguard-system\n")
			testgit.Write(t, root, ".git/hooks/pre-commit", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
		}, true, "pre-commit framework", ""},
		{"lefthook without mbguard", func(t *testing.T, root string) {
			testgit.Write(t, root, "lefthook.yml", "pre-commit:\n  commands:\n    fmt:\n      run: gofmt\n")
		}, false, "lefthook (lefthook.yml) runs no mbguard command", "mbguard install --hooks (adds it to lefthook.yml)"},
		{"lefthook configured, not installed", func(t *testing.T, root string) {
			testgit.Write(t, root, "lefthook.yml", "")
			o := opts(root)
			o.Binary = "mbguard"
			if _, err := InstallGitHook(o); err != nil {
				t.Fatal(err)
			}
		}, false, "git does not run lefthook", "lefthook install"},
		{"lefthook configured and installed", func(t *testing.T, root string) {
			testgit.Write(t, root, "lefthook.yml", "")
			o := opts(root)
			o.Binary = "mbguard"
			if _, err := InstallGitHook(o); err != nil {
				t.Fatal(err)
			}
			testgit.Write(t, root, ".git/hooks/pre-commit", "#!/bin/sh\nlefthook run pre-commit \"$@\"\n")
		}, true, "lefthook (lefthook.yml)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := testgit.New(t)
			tc.prep(t, root)
			o := opts(root)
			o.Binary = "mbguard"
			st := GitHookState(o)
			if st.Installed != tc.installed || !strings.Contains(st.Detail, tc.detail) || !strings.Contains(st.Next, tc.next) || (tc.next == "") != (st.Next == "") {
				t.Fatalf("got %+v, want installed=%v detail~%q next~%q", st, tc.installed, tc.detail, tc.next)
			}
		})
	}
}
