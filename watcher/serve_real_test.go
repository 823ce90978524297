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

// TestServeRealServicePersists runs Serve over the real Service twice: an armed recovery
// survives the first serve's end (stdin closed), as it must when OpenCode restarts the child.
func TestServeRealServicePersists(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- x\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(t, dir, "memory-bank/details/patterns.md", "# P\n")
	r, err := repo.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	round := func(lines ...string) []Response {
		var out strings.Builder
		svc := NewService(r, cfg, ServiceOptions{Resident: true})
		if err := Serve(context.Background(), svc, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		var resps []Response
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var resp Response
			if err := json.Unmarshal([]byte(l), &resp); err != nil {
				t.Fatalf("bad response line %q", l)
			}
			resps = append(resps, resp)
		}
		if len(resps) != len(lines) {
			t.Fatalf("%d responses to %d requests", len(resps), len(lines))
		}
		return resps
	}
	first := round(
		`{"id":1,"op":"event","event":{"kind":"message","host":"opencode","session":"s","message":"m1"}}`,
		`{"id":2,"op":"event","event":{"kind":"compaction","host":"opencode","session":"s"}}`)
	if !first[1].RecoveryArmed || first[1].Mode != "warn" {
		t.Fatalf("compaction response = %+v, want recovery_armed and mode warn", first[1])
	}
	second := round(`{"id":3,"op":"event","event":{"kind":"tool.before","host":"opencode","session":"s","message":"m1","tool":"write","args":{"filePath":"src/auth/a.ts","content":"x"}}}`)
	if d := second[0].Decision; d == nil || d.Verdict != "block" || d.Gate != "recovery" {
		t.Fatalf("after a restart = %+v, want the recovery gate to block", second[0])
	}
}
