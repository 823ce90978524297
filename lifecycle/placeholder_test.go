package lifecycle

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// Every path that writes MEMORY.md renders the template's placeholders: upgrade and migrate of
// an unmarked MEMORY.md once left a literal {{snapshot}} line that check passed and agents read.
func TestNoPlaceholderLeft(t *testing.T) {
	claude := "# Project memory\n\n- Build with `make`.\n- Never commit to main.\n"
	v70 := "# M\n\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n\n## Current Focus\n\n- y\n<!-- MACHINE_BLOCK_END -->\n\n" + userBlock
	for _, tc := range []struct {
		name, memory string
		migrate      bool
	}{
		{"upgrade unmarked", claude, false},
		{"migrate unmarked", claude, true},
		{"upgrade v7.0 without a snapshot", v70, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testgit.New(t)
			testgit.Write(t, root, "memory-bank/MEMORY.md", tc.memory)
			testgit.Write(t, root, "README.md", "# Demo\n\nA demo.\n")
			testgit.Commit(t, root, "start")
			run := func() {
				t.Helper()
				if tc.migrate {
					if _, err := Migrate(context.Background(), opts(root)); err != nil {
						t.Fatal(err)
					}
					return
				}
				if _, err := Upgrade(UpgradeOptions{Root: root, StateDir: filepath.Join(root, ".git", "mbguard")}); err != nil {
					t.Fatal(err)
				}
			}
			run()
			got := string(read(t, root, "memory-bank/MEMORY.md"))
			if strings.Contains(got, "{{") {
				t.Errorf("placeholder left in MEMORY.md:\n%s", got)
			}
			checkClean(t, root)
			if !tc.migrate {
				testgit.Commit(t, root, "upgraded")
			}
			head := testgit.Git(t, root, "rev-parse", "HEAD")
			if tc.migrate {
				if _, err := Migrate(context.Background(), opts(root)); err == nil {
					if h := testgit.Git(t, root, "rev-parse", "HEAD"); h != head {
						t.Error("a second migrate made a commit")
					}
				}
			} else {
				run()
				if string(read(t, root, "memory-bank/MEMORY.md")) != got {
					t.Error("a second upgrade changed MEMORY.md")
				}
			}
		})
	}
}
