package hooks

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// EscapeEnv is mbguard's one escape hatch: MBGUARD=0 turns mbguard off for one command (git
// hook shim, `mbguard check`, `mbguard hook <host>`, the OpenCode plugin).
const EscapeEnv = "MBGUARD"

// Escaped reports whether getenv turns mbguard off.
func Escaped(getenv func(string) string) bool { return strings.TrimSpace(getenv(EscapeEnv)) == "0" }

// preCommitID is compiled on first use: package init runs on every hook start.
var preCommitID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:^|[\s{,-])id:\s*["']?(mbguard[-a-z0-9_]*)`)
})

// SkipHint is how to skip mbguard's commit check once, in the words of what runs it: the
// pre-commit framework (it sets PRE_COMMIT=1; its own SKIP=<hook id> works), lefthook (its
// LEFTHOOK_EXCLUDE=mbguard), or a git hook or husky line (MBGUARD=0). MBGUARD=0 works under
// all of them; the hint names the one the user's tool documents.
func SkipHint(root string, getenv func(string) string) string {
	if getenv("PRE_COMMIT") == "1" {
		// Every mbguard hook id the config lists: which of them runs this check is not
		// known here, and SKIP takes a comma-separated list.
		var ids []string
		if b, err := os.ReadFile(filepath.Join(root, ".pre-commit-config.yaml")); err == nil {
			for _, m := range preCommitID().FindAllSubmatch(b, -1) {
				if id := string(m[1]); !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		if len(ids) > 0 {
			return "SKIP=" + strings.Join(ids, ",") + " git commit …"
		}
		// no configuration names the hook (pre-commit try-repo): its id is not known here,
		// and a guessed one would skip nothing
	}
	if cfg := lefthookConfig(root); cfg != "" {
		if b, err := os.ReadFile(cfg); err == nil && strings.Contains(string(b), "mbguard") {
			return "LEFTHOOK_EXCLUDE=mbguard git commit …"
		}
	}
	return "MBGUARD=0 git commit …"
}
