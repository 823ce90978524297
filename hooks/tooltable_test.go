//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

const (
	toolTableBegin = "// BEGIN tool taxonomy"
	toolTableEnd   = "// END tool taxonomy"
)

// pluginToolTable renders gating's taxonomy as the plugin's TOOL_CLASSES literal.
func pluginToolTable() string {
	classes := gating.ToolClasses()
	names := make([]string, 0, len(classes))
	for n := range classes {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("const TOOL_CLASSES = {\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %q: %q,\n", n, classes[n])
	}
	b.WriteString("}\n")
	return b.String()
}

// TestOpenCodePluginToolTable keeps the plugin's copy of the tool taxonomy equal to gating's,
// so an unknown tool gets the same answer under OpenCode as under every Go adapter.
func TestOpenCodePluginToolTable(t *testing.T) {
	const path = "opencode/mbguard.js"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, toolTableBegin), strings.Index(s, toolTableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated tool table between %q and %q", path, toolTableBegin, toolTableEnd)
	}
	start := i + strings.Index(s[i:], "const TOOL_CLASSES")
	want := pluginToolTable()
	if got := s[start:j]; got != want {
		if !*update {
			t.Fatalf("the plugin's tool table is stale; run: go test ./hooks -run TestOpenCodePluginToolTable -update")
		}
		if err := os.WriteFile(path, []byte(s[:start]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUnknownToolSameEverywhere: when mbguard cannot answer in block mode, the Go adapters and
// the OpenCode plugin refuse the same unknown tool and let the same read tool through.
func TestUnknownToolSameEverywhere(t *testing.T) {
	const unknown, reader = "mcp_frobnicate", "grep"
	if gating.ClassifyTool(unknown) != gating.ClassUnknown || gating.ClassifyTool(reader) != gating.ClassRead {
		t.Fatalf("taxonomy: %s is %s, %s is %s", unknown, gating.ClassifyTool(unknown), reader, gating.ClassifyTool(reader))
	}
	root := bankRepo(t)
	down := func(repo.Repo, *config.Config) (Doer, func(), error) { return nil, nil, errors.New("no answer") }
	env := map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}
	for _, tool := range []string{unknown, reader} {
		hk := &Hook{Host: "claude", Dir: root, Getenv: func(k string) string { return env[k] }, Connect: down}
		p, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": root,
			"tool_name": tool, "tool_input": map[string]any{"x": "y"}})
		r := hk.Handle(context.Background(), p)
		if refused := r.Exit == 2; refused != (tool == unknown) {
			t.Errorf("claude, %s: exit %d (%s), want refused=%v", tool, r.Exit, r.Stderr, tool == unknown)
		}
	}
	fake, _ := filepath.Abs("testdata/opencode/fakechild.mjs")
	res := runHarness(t, t.TempDir(), []string{"MBGUARD_BIN=" + fake, "MBGUARD_TIMEOUT_MS=1500", "FAKE_MODE=hang", "FAKE_ANSWER=1", "FAKE_GATE_MODE=block"}, []harnessStep{
		{Hook: "chat.message", Input: map[string]any{"sessionID": "s"}, Output: map[string]any{"message": map[string]any{"id": "m1"}, "parts": []any{}}},
		before("s", "c1", "write", map[string]any{"filePath": "src/a.ts", "content": "x"}),
		before("s", "c2", unknown, map[string]any{"x": "y"}),
		before("s", "c3", reader, map[string]any{"pattern": "x"}),
	})
	if !res[2].Threw {
		t.Errorf("opencode: unknown tool %s allowed while the gate is down in block mode", unknown)
	}
	if res[3].Threw {
		t.Errorf("opencode: read tool %s refused: %s", reader, res[3].Message)
	}
}
