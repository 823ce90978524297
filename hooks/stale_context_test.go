package hooks

import (
	"os"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// At session start the injected context lists the stale references of MEMORY.md and the
// anchor files, with git's evidence, and nothing that still exists.
func TestSessionStartListsStaleReferences(t *testing.T) {
	root := bankRepo(t)
	testgit.Write(t, root, "src/queue.go", "package app\n")
	testgit.Commit(t, root, "queue")
	testgit.Git(t, root, "mv", "src/queue.go", "src/retry_queue.go")
	testgit.Commit(t, root, "queue: name it for what it does")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nThe queue lives in `src/queue.go`; the app in `src/app.go`.\n")
	testgit.Commit(t, root, "bank")

	for name, tc := range map[string]struct {
		env  map[string]string
		want bool
	}{
		"listed":          {nil, true},
		"check.stale off": {map[string]string{"MBGUARD_CHECK_STALE": "off"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHookRun(t, root, tc.env)
			ctx := additional(t, h.call("SessionStart", map[string]any{"source": "startup"}))
			if !strings.Contains(ctx, "ship the payment retry queue") {
				t.Fatalf("MEMORY.md context missing: %q", ctx)
			}
			got := strings.Contains(ctx, "memory-bank/details/patterns.md:2 src/queue.go was renamed to src/retry_queue.go")
			if got != tc.want {
				t.Errorf("stale reference listed = %v, want %v; context:\n%s", got, tc.want, ctx)
			}
			if strings.Contains(ctx, "src/app.go") {
				t.Errorf("an existing path is listed as stale:\n%s", ctx)
			}
		})
	}
}

// A session that starts again on the same repository state gets the same stale lines without
// running git (the answer is kept under a key of what the check reads); a commit that fixes
// the note changes the key, and the check runs again.
func TestSessionStartStaleAnswerIsKept(t *testing.T) {
	root := bankRepo(t)
	testgit.Write(t, root, "src/queue.go", "package app\n")
	testgit.Commit(t, root, "queue")
	testgit.Git(t, root, "mv", "src/queue.go", "src/retry_queue.go")
	testgit.Commit(t, root, "queue: name it for what it does")
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nThe queue lives in `src/queue.go`.\n")
	testgit.Commit(t, root, "bank")
	const line = "memory-bank/details/patterns.md:2 src/queue.go was renamed to src/retry_queue.go"
	start := func() string {
		return additional(t, newHookRun(t, root, nil).call("SessionStart", map[string]any{"source": "startup"}))
	}
	if ctx := start(); !strings.Contains(ctx, line) {
		t.Fatalf("first session: stale line missing:\n%s", ctx)
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir()) // no git from here on
	if ctx := start(); !strings.Contains(ctx, line) {
		t.Fatalf("second session on the same state, without git: stale line missing (not kept?):\n%s", ctx)
	}
	t.Setenv("PATH", path)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\nThe queue lives in `src/retry_queue.go`.\n")
	testgit.Commit(t, root, "bank: follow the rename")
	if ctx := start(); strings.Contains(ctx, "src/queue.go") {
		t.Fatalf("after the note was fixed, the kept answer was used:\n%s", ctx)
	}
}
