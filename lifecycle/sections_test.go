package lifecycle

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/templates"
)

func TestSectionOf(t *testing.T) {
	tests := []struct {
		heading, want string
	}{
		{"## Decision Highlights (Still Binding)", templates.DecisionsHeading},
		{"## Routing Rules（意图驱动）", templates.RoutingHeading},
		{"## Routing Rules (intent-driven)", templates.RoutingHeading},
		{"## Routing Rules", templates.LegacyRoutingHeading},
		{"## Routing Rules (Topic)", templates.LegacyRoutingHeading},
		{"## 项目快照", templates.SnapshotHeading},
		{"## 当前焦点【必读】", templates.FocusHeading},
		{"## ⚠️ Write Safety Rules", templates.SafetyHeading},
		{"## 1. Drill-Down Protocol", templates.DrillHeading},
		{"## Top Quick Answers", templates.AnswersHeading},
		{"## 路由规则（意图驱动）", templates.RoutingHeading},
		{"## Notes", ""},
		{"## Snapshots of the API", ""},
	}
	for _, tc := range tests {
		if got, _ := sectionOf(tc.heading); got != tc.want {
			t.Errorf("sectionOf(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// skillBank is MEMORY.md as memory-bank-skill keeps its own bank: v7.1, headings in its own words.
const skillBank = `# Memory Bank

<!-- MACHINE_BLOCK_START -->
<!-- MEMORY_BANK_TEMPLATE:%s -->

## Project Snapshot

- memory-bank-skill: a memory bank for coding agents.

## Current Focus

- v7.1 gating.

## Decision Highlights (Still Binding)

- Index-first, direct-first reads.

## Routing Rules（意图驱动）

| 意图 | 读 |
|------|----|
| 改 gating | details/design/gating.md |

## 下钻协议

1. 先读这里。

## Write Safety Rules

- No secrets.

## 快速问答

- (none)

<!-- MACHINE_BLOCK_END -->

<!-- USER_BLOCK_START -->
## 用户笔记
<!-- USER_BLOCK_END -->
`

// A bank at the current version is left byte-identical; an older one whose sections carry other
// names gets its marker set and no second copy of a section it has.
func TestUpgradeSectionsByMeaning(t *testing.T) {
	for _, tc := range []struct {
		version     string
		wantChanged bool
	}{{"v7.1", false}, {"v7.0", true}} {
		t.Run(tc.version, func(t *testing.T) {
			root := testgit.New(t)
			memory := strings.Replace(skillBank, "%s", tc.version, 1)
			testgit.Write(t, root, "memory-bank/MEMORY.md", memory)
			testgit.Commit(t, root, "bank")
			res, err := Upgrade(UpgradeOptions{Root: root, StateDir: filepath.Join(root, ".git", "mbguard")})
			if err != nil {
				t.Fatal(err)
			}
			got := string(read(t, root, "memory-bank/MEMORY.md"))
			if res.Changed != tc.wantChanged || res.From != tc.version {
				t.Errorf("changed %v from %q, want %v from %s; actions %v", res.Changed, res.From, tc.wantChanged, tc.version, res.Actions)
			}
			if !tc.wantChanged && got != memory {
				t.Errorf("a bank at the current version changed:\n%s", got)
			}
			for _, h := range []string{"## Decision Highlights", "## Routing Rules", "## Project Snapshot", "## Drill-Down", "## Top Quick"} {
				if n := strings.Count(got, "\n"+h); n > 1 {
					t.Errorf("%s appears %d times", h, n)
				}
			}
			if len(res.Actions) > 1 {
				t.Errorf("only the marker should change: %v", res.Actions)
			}
			checkClean(t, root)
		})
	}
}
