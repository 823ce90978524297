package hooks

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/testgit"
)

// TestRegistryFilesProtectedBothLines: every configuration file a registry host installs in a
// project is refused to a shell write before the call, and put back after a script wrote it
// during the call; the registry is the list walked, so a host added without its files in
// gating.ProtectedPaths fails here.
func TestRegistryFilesProtectedBothLines(t *testing.T) {
	for _, spec := range Registry() {
		for _, f := range spec.ProjectFiles {
			t.Run(spec.Name+" "+f, func(t *testing.T) {
				root := bankRepo(t)
				os.MkdirAll(filepath.Join(root, "tools"), 0o755)
				const good = "{\"hooks\": {}}\n"
				testgit.Write(t, root, f, good)
				h := newHookRun(t, root, nil)
				h.prompt("tidy up")
				// before: a shell write naming the file
				r := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "echo '{}' > " + f}, "tool_use_id": "toolu_0"})
				if r.Exit != 2 || !strings.Contains(r.Stderr, "[mbguard config]") {
					t.Fatalf("shell write to %s: exit %d %q, want the config guard's refusal", f, r.Exit, r.Stderr)
				}
				// after: a script the gate cannot read into
				input := map[string]any{"command": "bash tools/step.sh"}
				if pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_1"}); pre.Exit != 0 {
					t.Fatalf("pre refused the script call: %s", pre.Stderr)
				}
				runScript(t, root, "printf '{\"hooks\":{\"x\":1}}' > '"+f+"'")
				post := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_1", "tool_response": map[string]any{}})
				if b, _ := os.ReadFile(filepath.Join(root, f)); string(b) != good {
					t.Fatalf("%s after the call = %q, want it put back", f, b)
				}
				var out struct {
					Decision string `json:"decision"`
					Reason   string `json:"reason"`
				}
				if json.Unmarshal(post.Stdout, &out) != nil || out.Decision != "block" || !strings.Contains(out.Reason, f) {
					t.Fatalf("PostToolUse %s: want the undo of %s told", post.Stdout, f)
				}
			})
		}
	}
}

// TestRegistryUserFilesProtected: every file a host's --global install writes is among the
// user-level files the outcome check watches (gating.UserProtectedFiles).
func TestRegistryUserFilesProtected(t *testing.T) {
	home := t.TempDir()
	watched := gating.UserProtectedFiles(home, gating.ProtectedPaths)
	for _, spec := range Registry() {
		t.Run(spec.Name, func(t *testing.T) {
			o := InstallOptions{Home: home, ConfigHome: filepath.Join(home, ".config"), Global: true, Binary: "mbguard"}
			before := filesUnder(t, home)
			if _, err := spec.Install(o); err != nil {
				t.Fatal(err)
			}
			for _, p := range filesUnder(t, home) {
				if slices.Contains(before, p) || strings.Contains(p, string(filepath.Separator)+"skills"+string(filepath.Separator)) {
					continue
				}
				if !slices.Contains(watched, p) {
					t.Errorf("%s --global wrote %s, which the outcome check does not watch", spec.Name, p)
				}
			}
		})
	}
}

func filesUnder(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestRegistryUserFilesReportedAfterCall: a script that changes a user-level hook file during a
// call is undone after it (the file put back from the known-good copy) and reported, for every
// file a host's --global install writes.
func TestRegistryUserFilesReportedAfterCall(t *testing.T) {
	root := bankRepo(t) // testgit points HOME at its own folder: set ours after it
	home := t.TempDir()
	t.Setenv("HOME", home) // the outcome check finds the user's files from $HOME
	for _, spec := range Registry() {
		o := InstallOptions{Home: home, ConfigHome: filepath.Join(home, ".config"), Global: true, Binary: "mbguard"}
		if _, err := spec.Install(o); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	for _, p := range filesUnder(t, home) {
		if !strings.Contains(p, string(filepath.Separator)+"skills"+string(filepath.Separator)) {
			files = append(files, p)
		}
	}
	os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	h := newHookRun(t, root, nil)
	h.prompt("tidy up")
	input := map[string]any{"command": "bash tools/step.sh"}
	if pre := h.call("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_u"}); pre.Exit != 0 {
		t.Fatalf("pre refused the script call: %s", pre.Stderr)
	}
	script := ""
	installed := map[string]string{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		installed[f] = string(b)
		script += "printf '\\n' >> '" + f + "'\n"
	}
	runScript(t, root, script)
	post := h.call("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_u", "tool_response": map[string]any{}})
	told := string(post.Stdout) + post.Stderr
	if !strings.Contains(told, "restored") {
		t.Fatalf("post reply does not say what happened:\n%s", told)
	}
	for _, f := range files {
		if !strings.Contains(told, f) {
			t.Errorf("%s changed during the call, not reported", f)
		}
		if b, _ := os.ReadFile(f); string(b) != installed[f] {
			t.Errorf("%s was not put back as installed", f)
		}
	}
}
