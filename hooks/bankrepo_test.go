package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// The repository is found from the call's target paths as well as from cwd: where the agent's
// session runs must not switch the guard off for the bank a call writes into.
func TestRepositoryFromTargetPath(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) (cwd string, path string)
	}{
		{"cwd outside any repository, absolute target", func(t *testing.T, root string) (string, string) {
			return t.TempDir(), filepath.Join(root, "memory-bank/x.json")
		}},
		{"cwd in a nested repository without a bank", func(t *testing.T, root string) (string, string) {
			sub := filepath.Join(root, "vendor/lib")
			os.MkdirAll(sub, 0o755)
			testgit.Git(t, sub, "init", "-q")
			return sub, "../../memory-bank/x.json"
		}},
		{"cwd under a fake .git folder inside the bank", func(t *testing.T, root string) (string, string) {
			os.MkdirAll(filepath.Join(root, "memory-bank/.git"), 0o755)
			return filepath.Join(root, "memory-bank"), "x.json"
		}},
		{"cwd under a fake .git file", func(t *testing.T, root string) (string, string) {
			testgit.Write(t, root, "src/.git", "not a gitdir line\n")
			return filepath.Join(root, "src"), "../memory-bank/x.json"
		}},
		{"target through a symlink from outside", func(t *testing.T, root string) (string, string) {
			out := t.TempDir()
			link := filepath.Join(out, "proj")
			if err := os.Symlink(root, link); err != nil {
				testhost.Missing(t, "symlinks ("+err.Error()+")", "a file system that has them")
			}
			return out, "proj/memory-bank/x.json"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, host := range Hosts {
				root := bankRepo(t)
				cwd, path := tc.setup(t, root)
				h := newHostRun(t, host, root, nil)
				h.cwd = cwd
				var r Reply
				switch host {
				case "claude":
					r = h.call("PreToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": path, "content": "{}"}})
				case "copilot":
					r = h.call("preToolUse", map[string]any{"toolName": "create", "toolArgs": map[string]any{"path": path, "file_text": "{}"}})
				default:
					r = h.write(path, "{}")
				}
				if got := denied(t, host, r); !strings.Contains(got, "[mbguard bank]") {
					t.Fatalf("%s: refusal %q (stderr %q), want the bank guard of %s", host, got, r.Stderr, root)
				}
			}
		})
	}
}

// A shell command run from outside the repository is judged against the bank it names.
func TestShellFromOutsideTheRepository(t *testing.T) {
	root := bankRepo(t)
	h := newHostRun(t, "codex", root, nil)
	h.cwd = t.TempDir()
	ev, f := shapes["codex"].shell(h, "echo x > "+filepath.Join(root, "memory-bank/notes.md"))
	if got := denied(t, "codex", h.call(ev, f)); !strings.Contains(got, "[mbguard bank]") {
		t.Fatalf("refusal %q, want the bank guard", got)
	}
}

func TestFindBankRepo(t *testing.T) {
	root := bankRepo(t)
	plain := testgit.New(t) // a repository without a bank
	os.MkdirAll(filepath.Join(root, "memory-bank/.git"), 0o755)
	tests := []struct {
		path string
		want string
	}{
		{filepath.Join(root, "memory-bank/details/new/deep.md"), root},
		{filepath.Join(root, "memory-bank/.git/x"), root},
		{root, root},
		{filepath.Join(plain, "a.go"), ""},
		{"relative/path", ""},
		{"/", ""},
	}
	for _, tc := range tests {
		r, ok := findBankRepo(tc.path)
		if ok != (tc.want != "") || r.Root != tc.want {
			t.Errorf("findBankRepo(%s) = %q %v, want %q", tc.path, r.Root, ok, tc.want)
		}
	}
}
