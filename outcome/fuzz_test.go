package outcome

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/repo"
)

var fuzzPaths = []string{"memory-bank/MEMORY.md", "memory-bank/a.md", "memory-bank/b.txt", "memory-bank/d",
	"memory-bank/d/c.md", "memory-bank/d/e", "memory-bank/d/e/f.md", "memory-bank"}

// applyOps changes the bank as the bytes say: each pair picks an operation and a path.
// Written bytes and symlink targets start with tag, so they can be found afterwards.
func applyOps(root string, ops []byte, tag string) {
	for i := 0; i+1 < len(ops); i += 2 {
		p := filepath.Join(root, fuzzPaths[int(ops[i+1])%len(fuzzPaths)])
		q := filepath.Join(root, fuzzPaths[int(ops[i+1]/8)%len(fuzzPaths)])
		content := fmt.Sprintf("%s-%d\n", tag, i)
		switch ops[i] % 9 {
		case 0:
			os.WriteFile(p, []byte(content), 0o644)
		case 1:
			os.Remove(p)
		case 2:
			os.RemoveAll(p)
		case 3:
			os.Mkdir(p, 0o755)
		case 4:
			os.Symlink(content[:len(content)-1], p)
		case 5:
			os.Chmod(p, os.FileMode(0o600+int(ops[i+1]%2)*0o155))
		case 6:
			os.Rename(p, q)
		case 7:
			os.Link(p, q)
		case 8:
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(goodMemory+content), 0o644)
		}
	}
}

// FuzzOutcomeCompare: whatever a known-good bank and an agent's changes look like, after the
// post check the disk equals the known-good state, and every byte the agent left in the bank
// is in the quarantine.
func FuzzOutcomeCompare(f *testing.F) {
	f.Add([]byte{0, 1, 3, 3, 0, 4}, []byte{0, 1, 1, 0, 4, 2, 6, 1})
	f.Add([]byte{}, []byte{2, 7, 0, 7})
	f.Add([]byte{3, 3, 8, 4}, []byte{5, 3, 7, 4, 5, 4, 6, 12})
	f.Add([]byte{0, 2}, []byte{4, 0, 4, 3, 1, 2})
	f.Fuzz(func(t *testing.T, human, agent []byte) {
		if len(human) > 40 || len(agent) > 40 {
			return
		}
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(root, bank.Dir), 0o755)
		os.WriteFile(filepath.Join(root, bank.Entry), []byte(goodMemory), 0o644)
		applyOps(root, human, "human")
		r, err := repo.Find(root)
		if err != nil {
			t.Fatal(err)
		}
		g := New(r, Options{Rules: Rules{Minimum: bank.CurrentTemplate}})
		c := Call{ID: "c", Session: "s", Tool: "Bash"}
		if _, err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		want := snapshot(t, root)
		if _, ok := want[bank.Dir]; !ok {
			// The person removed the bank: with no memory-bank/ there is nothing to guard
			// (SPEC §3), and an agent may start one (mbguard init).
			return
		}
		applyOps(root, agent, "agent")
		var left []string
		for _, n := range snapshot(t, root) {
			if (n.kind == KindFile || n.kind == KindSymlink) && strings.Contains(n.bytes, "agent-") {
				left = append(left, n.bytes)
			}
		}
		if _, err := g.After(c); err != nil {
			t.Fatal(err)
		}
		got := snapshot(t, root)
		for p, w := range want {
			g := got[p]
			// A folder's link count follows its subfolders; a file a person hard-linked
			// before the call comes back as a file of its own (the undo restores bytes and
			// mode, never a hard link).
			if w.kind == KindDir || w.kind == KindFile && w.nlink > 1 {
				g.nlink, w.nlink = 0, 0
			}
			if g != w {
				t.Errorf("%s = %+v, want %+v", p, got[p], w)
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s left over", p)
			}
		}
		kept := quarantined(t, g)
		for _, b := range left {
			found := false
			for _, k := range kept {
				found = found || k == b
			}
			if !found {
				t.Errorf("the agent's %q is not in the quarantine", b)
			}
		}
	})
}
