package lifecycle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// A bank kept as Cursor rules or in .memory-bank/ is recognised: init does not start a second,
// empty bank beside it, migrate refuses naming the git mv that brings it to memory-bank/, and
// after that move (done as the message says) migrate takes it over with nothing lost.
func TestBankElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name, dir, ext, want string
		mv                   func(t *testing.T, root string, files []string)
	}{
		{"cursor rules", ".cursor/rules/memory-bank", ".mdc", "git mv .cursor/rules/memory-bank/activeContext.mdc memory-bank/activeContext.md", func(t *testing.T, root string, files []string) {
			os.MkdirAll(filepath.Join(root, "memory-bank"), 0o755)
			for _, f := range files {
				testgit.Git(t, root, "mv", ".cursor/rules/memory-bank/"+f, "memory-bank/"+strings.TrimSuffix(f, ".mdc")+".md")
			}
		}},
		{"hidden folder", ".memory-bank", ".md", "git mv .memory-bank memory-bank", func(t *testing.T, root string, _ []string) {
			testgit.Git(t, root, "mv", ".memory-bank", "memory-bank")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testgit.New(t)
			front := ""
			if tc.ext == ".mdc" {
				front = "---\ndescription: memory bank\nglobs:\nalwaysApply: true\n---\n"
			}
			files := map[string]string{
				"projectbrief":  "# Project Brief\n\nA note-taking app for field researchers.\n",
				"activeContext": "# Active Context\n\n- Offline sync.\n",
				"techContext":   "# Tech\n\n- Flutter 3.22\n",
				"progress":      "# Progress\n\n- Capture works.\n",
			}
			var names []string
			for n, c := range files {
				testgit.Write(t, root, tc.dir+"/"+n+tc.ext, front+c)
				names = append(names, n+tc.ext)
			}
			testgit.Commit(t, root, "bank")
			if _, err := Init(root); err == nil || !strings.Contains(err.Error(), tc.dir) {
				t.Fatalf("init: got %v, want a refusal naming %s", err, tc.dir)
			}
			if _, err := os.Stat(filepath.Join(root, "memory-bank", "MEMORY.md")); err == nil {
				t.Fatal("init started a second bank")
			}
			_, err := Migrate(context.Background(), opts(root))
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("migrate: got %v, want a refusal naming %q", err, tc.want)
			}
			tc.mv(t, root, names)
			testgit.Commit(t, root, "move the bank as mbguard said")
			if _, err := Migrate(context.Background(), opts(root)); err != nil {
				t.Fatal(err)
			}
			all := string(read(t, root, "memory-bank/MEMORY.md")) + string(read(t, root, "memory-bank/details/tech.md")) + string(read(t, root, "memory-bank/details/progress.md"))
			for _, c := range files {
				for _, l := range strings.Split(c, "\n") {
					if l != "" && !strings.Contains(all, norm(l)) {
						t.Errorf("line lost: %q", l)
					}
				}
			}
			checkClean(t, root)
		})
	}
}
