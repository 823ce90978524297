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

// TestServeRefusesBadArgs: write calls whose arguments have the wrong type reach serve --stdio
// as well as the Claude hook (issue 11); in every mode they are refused, never allowed as nothing.
func TestServeRefusesBadArgs(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# M\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n## Current Focus\n- x\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
	testgit.Write(t, dir, "src/a.go", "package a\n")
	testgit.Commit(t, dir, "init")
	r, err := repo.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"bash command list":       `"tool":"bash","args":{"command":["rm","-rf","memory-bank"]}`,
		"write filePath number":   `"tool":"write","args":{"filePath":42,"content":"x"}`,
		"write no args":           `"tool":"write"`,
		"write bank md object":    `"tool":"write","args":{"filePath":"memory-bank/x.md","content":{"a":1}}`,
		"multiedit edits string":  `"tool":"multiedit","args":{"filePath":"memory-bank/MEMORY.md","edits":"x"}`,
		"edit newString number":   `"tool":"edit","args":{"filePath":"src/a.go","oldString":"a","newString":5}`,
		"write args a string":     `"tool":"write","args":"memory-bank/x.md"`,
		"bash args a list":        `"tool":"bash","args":["rm","-rf","memory-bank"]`,
		"batch tool_calls number": `"tool":"batch","args":{"tool_calls":5}`,
		"batch tool_calls string": `"tool":"batch","args":{"tool_calls":"write memory-bank/x.json"}`,
	}
	for _, mode := range []string{"off", "warn", "block"} {
		cfg, err := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(k string) string {
			if k == "MEMORY_BANK_GUARD_MODE" {
				return mode
			}
			return ""
		}})
		if err != nil {
			t.Fatal(err)
		}
		for name, ev := range cases {
			t.Run(mode+"/"+name, func(t *testing.T) {
				var out strings.Builder
				svc := NewService(r, cfg, ServiceOptions{Resident: true})
				line := `{"id":1,"op":"event","event":{"kind":"tool.before","host":"opencode","session":"s","message":"m1",` + ev + `}}` + "\n"
				if err := Serve(context.Background(), svc, strings.NewReader(line), &out); err != nil {
					t.Fatal(err)
				}
				var resp Response
				if err := json.Unmarshal([]byte(strings.TrimSpace(out.String())), &resp); err != nil {
					t.Fatalf("bad response %q", out.String())
				}
				if resp.Decision == nil || resp.Decision.Verdict != "block" {
					t.Fatalf("response = %s, want a block", out.String())
				}
				if strings.Contains(out.String(), "interface {}") {
					t.Fatalf("response leaks a Go type: %s", out.String())
				}
			})
		}
	}
}
