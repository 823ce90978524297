package watcher

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// A typo in .mbguard.yaml (issue 20) leaves the file out: harmless calls go on under the
// built-in defaults, the bank guard still holds, and the person is told which key on which
// line, in the context of the message.
func TestConfigTypoFallsBackToDefaults(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", realMemory)
	testgit.Write(t, dir, "src/a.go", "package a\n")
	testgit.Write(t, dir, ".mbguard.yaml", "gating: {mod: block}\n")
	testgit.Commit(t, dir, "init")
	r, err := repo.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("a typo stopped the configuration: %v", err)
	}
	svc := NewService(r, cfg, ServiceOptions{Resident: true})
	lines := []string{
		`{"id":1,"op":"event","event":{"kind":"message","host":"claude","session":"s","message":"m1"}}`,
		`{"id":2,"op":"event","event":{"kind":"tool.before","host":"claude","session":"s","message":"m1","tool":"Write","args":{"file_path":"src/b.go","content":"package a\n"}}}`,
		`{"id":3,"op":"event","event":{"kind":"tool.before","host":"claude","session":"s","message":"m1","tool":"Bash","args":{"command":"go test ./..."}}}`,
		`{"id":4,"op":"event","event":{"kind":"tool.before","host":"claude","session":"s","message":"m1","tool":"Bash","args":{"command":"rm memory-bank/MEMORY.md"}}}`,
	}
	var out strings.Builder
	if err := Serve(context.Background(), svc, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	byID := map[string]Response{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var resp Response
		if err := json.Unmarshal([]byte(l), &resp); err != nil {
			t.Fatalf("bad response %q", l)
		}
		byID[string(resp.ID)] = resp
	}
	if n := byID["1"].Notice; !strings.Contains(n, `.mbguard.yaml line 1: unknown key "gating.mod"`) || !strings.Contains(n, "built-in defaults") {
		t.Errorf("message notice %q does not name the key, the line and the fallback", n)
	}
	for _, id := range []string{"2", "3"} {
		if d := byID[id].Decision; d == nil || d.Verdict == "block" || byID[id].Error != "" {
			t.Errorf("call %s: %+v, want it allowed under the defaults", id, byID[id])
		}
	}
	if d := byID["4"].Decision; d == nil || d.Verdict != "block" {
		t.Errorf("bank write: %+v, want the bank guard to hold", byID["4"])
	}
}
