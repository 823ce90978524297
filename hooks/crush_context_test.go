package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

func crushInstallOptions(t *testing.T, root string) InstallOptions {
	t.Helper()
	r, err := repo.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Binary: "mbguard"}
}

func crushContextPathsOf(t *testing.T, root string) []string {
	t.Helper()
	var cfg struct {
		Options struct {
			ContextPaths []string `json:"context_paths"`
		} `json:"options"`
	}
	b, err := os.ReadFile(filepath.Join(root, "crush.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("crush.json %s: %v", b, err)
	}
	return cfg.Options.ContextPaths
}

// install --agent crush points options.context_paths at the view and writes it; uninstall takes
// the entry out again, keeping the user's own paths and options.
func TestInstallCrushContextView(t *testing.T) {
	root := bankRepo(t)
	testgit.Write(t, root, "crush.json", `{"options":{"debug":true,"context_paths":["CRUSH.md"]}}`)
	o := crushInstallOptions(t, root)
	for i := 0; i < 2; i++ {
		if _, err := InstallCrush(o); err != nil {
			t.Fatal(err)
		}
	}
	if got := crushContextPathsOf(t, root); len(got) != 2 || got[0] != "CRUSH.md" || got[1] != ".git/mbguard/crush-context.md" {
		t.Fatalf("context_paths %q: want the user's path, then the view once", got)
	}
	view, err := os.ReadFile(filepath.Join(root, ".git/mbguard/crush-context.md"))
	if err != nil || !strings.HasPrefix(string(view), gating.ContextSentinel) || !strings.Contains(string(view), "ship the payment retry queue") {
		t.Fatalf("view %q (%v): want the memory-bank block with MEMORY.md", view, err)
	}
	o.Uninstall = true
	if _, err := InstallCrush(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "crush.json"))
	if got := crushContextPathsOf(t, root); len(got) != 1 || got[0] != "CRUSH.md" || !strings.Contains(string(b), `"debug": true`) || strings.Contains(string(b), "hook crush") {
		t.Fatalf("after uninstall crush.json is\n%s", b)
	}

	// a crush.json that held only mbguard's settings goes away whole
	root = bankRepo(t)
	o = crushInstallOptions(t, root)
	if _, err := InstallCrush(o); err != nil {
		t.Fatal(err)
	}
	o.Uninstall = true
	if _, err := InstallCrush(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "crush.json")); !os.IsNotExist(err) {
		t.Fatalf("crush.json still there after uninstall: %v", err)
	}
}

func TestInstallCrushContextPathsBad(t *testing.T) {
	root := bankRepo(t)
	testgit.Write(t, root, "crush.json", `{"options":{"context_paths":"MEMORY.md"}}`)
	_, err := InstallCrush(crushInstallOptions(t, root))
	if err == nil || !strings.Contains(err.Error(), "fix it by hand") {
		t.Fatalf("err %v: want a refusal naming the next step", err)
	}
}

// The view is what the other hosts inject: truncated at context.max_chars, secrets redacted.
func TestCrushContextViewRedactedAndTruncated(t *testing.T) {
	secret := "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	root := bankRepo(t)
	long := strings.Replace(testMemory, "my notes", "token "+secret+"\n"+strings.Repeat("a long line of notes\n", 100), 1)
	testgit.Write(t, root, "memory-bank/MEMORY.md", long)
	testgit.Write(t, root, ".mbguard.yaml", "context:\n  max_chars: 600\n")
	if _, err := InstallCrush(crushInstallOptions(t, root)); err != nil {
		t.Fatal(err)
	}
	view, _ := os.ReadFile(filepath.Join(root, ".git/mbguard/crush-context.md"))
	if strings.Contains(string(view), secret) {
		t.Fatalf("the secret is in the view:\n%s", view)
	}
	if !strings.Contains(string(view), "truncated") || len(view) > 600+2000 {
		t.Fatalf("view of %d bytes, want it truncated like the injected context:\n%s", len(view), view)
	}
}

// A hook call brings the view up to date when MEMORY.md changed, and only then.
func TestCrushContextRefreshedAtHookCall(t *testing.T) {
	root := bankRepo(t)
	if _, err := InstallCrush(crushInstallOptions(t, root)); err != nil {
		t.Fatal(err)
	}
	viewPath := filepath.Join(root, ".git/mbguard/crush-context.md")
	h := newHostRun(t, "crush", root, nil)
	testgit.Write(t, root, "memory-bank/MEMORY.md", strings.Replace(testMemory, "ship the payment retry queue", "ship the invoice exporter", 1))
	crushCall(h, "view", map[string]any{"file_path": "src/app.go"})
	if view, _ := os.ReadFile(viewPath); !strings.Contains(string(view), "ship the invoice exporter") {
		t.Fatalf("view not refreshed after MEMORY.md changed:\n%s", view)
	}
	// unchanged MEMORY.md: the view is left as it is (here: a marker survives)
	os.WriteFile(viewPath, []byte("marker\n"), 0o644)
	crushCall(h, "view", map[string]any{"file_path": "src/app.go"})
	if view, _ := os.ReadFile(viewPath); string(view) != "marker\n" {
		t.Fatalf("view rewritten although MEMORY.md did not change: %q", view)
	}
	// a view removed is written again
	os.Remove(viewPath)
	crushCall(h, "view", map[string]any{"file_path": "src/app.go"})
	if view, _ := os.ReadFile(viewPath); !strings.Contains(string(view), "ship the invoice exporter") {
		t.Fatalf("a removed view was not written again: %q", view)
	}
}

// The view lives in mbguard's state folder, which agents may not write.
func TestCrushContextViewProtected(t *testing.T) {
	if !gating.DefaultPolicy().Protects(crushContextRel, false) {
		t.Fatalf("%s is not protected", crushContextRel)
	}
}

// --global writes the view's path relative to the project Crush runs in; a linked worktree,
// whose git directory lies outside it, gets the absolute path.
func TestCrushContextEntryPlaces(t *testing.T) {
	cfgHome := t.TempDir()
	g := InstallOptions{Global: true, Home: t.TempDir(), ConfigHome: cfgHome, Binary: "mbguard"}
	if _, err := InstallCrush(g); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(cfgHome, "crush", "crush.json"))
	if !strings.Contains(string(b), `"context_paths": [`+"\n"+`      ".git/mbguard/crush-context.md"`) {
		t.Fatalf("global crush.json:\n%s", b)
	}
	g.Uninstall = true
	if _, err := InstallCrush(g); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfgHome, "crush", "crush.json")); !os.IsNotExist(err) {
		t.Fatalf("global crush.json still there after uninstall: %v", err)
	}

	root := bankRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Git(t, root, "worktree", "add", "-q", wt)
	o := crushInstallOptions(t, wt)
	if _, err := InstallCrush(o); err != nil {
		t.Fatal(err)
	}
	got := crushContextPathsOf(t, wt)
	if len(got) != 1 || !filepath.IsAbs(got[0]) || !strings.HasSuffix(got[0], "crush-context.md") {
		t.Fatalf("worktree context_paths %q: want the view's absolute path", got)
	}
	if view, err := os.ReadFile(got[0]); err != nil || !strings.Contains(string(view), "ship the payment retry queue") {
		t.Fatalf("worktree view %q: %v", view, err)
	}
}
