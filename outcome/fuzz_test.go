package outcome

import (
	"errors"
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

// forgeState is what an agent that knows mbguard's layout forges in the same call: a
// manifest, an outside copy, a ref whose tree names its own bytes, or in-flight records
// (each op byte picks one; none carries mbguard's MAC, which needs the per-user key).
func forgeState(t *testing.T, g *Guard, root string, ops []byte) {
	agentState := func() *manifest {
		disk, err := walk(root, bank.Dir)
		if err != nil {
			return &manifest{Entries: map[string]Entry{}}
		}
		m := &manifest{Entries: disk}
		for p, e := range disk {
			if e.Kind == KindFile {
				if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
					e.Blob, _ = g.obj.write("blob", b)
					disk[p] = e
				}
			}
		}
		if tree, err := g.obj.writeTree(disk); err == nil {
			m.Tree = tree
		}
		return m
	}
	appendLog := func(line string) {
		f, err := os.OpenFile(g.inflightPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			f.WriteString(line + "\n")
			f.Close()
		}
	}
	for i, op := range ops {
		path := fuzzPaths[int(op/6)%len(fuzzPaths)]
		switch op % 6 {
		case 0: // the private ref moved to a tree of the agent's bytes
			if m := agentState(); m.Tree != "" {
				g.obj.setRef(g.Ref(), m.Tree)
			}
		case 1: // the manifest replaced by one of the agent's state
			os.WriteFile(g.manifestPath(), encodeManifest(agentState()), 0o644)
		case 2: // and its copy outside the repository too
			if p := g.mirrorPath(); p != "" {
				os.WriteFile(p, encodeManifest(agentState()), 0o644)
			}
		case 3: // a call in flight that may write path, with a start far in the future
			appendLog(fmt.Sprintf(`{"op":"add","call":{"id":"forged-%d","session":"x","tool":"Write","allowed":[%q],"start":99999999999999}}`, i, path))
		case 4: // the call's own record closed
			appendLog(`{"op":"end","id":"c"}`)
		case 5: // the call's own record replaced: every path allowed, its post stamped
			appendLog(fmt.Sprintf(`{"op":"add","call":{"id":"c","session":"s","tool":"Write","allowed":[%q,"memory-bank/a.md","memory-bank/MEMORY.md"],"start":1,"post":1}}`, path))
		}
	}
}

// execBits are the execute bits of a known-good file (none for anything else).
func execBits(n node) os.FileMode {
	if n.kind != KindFile {
		return 0
	}
	return n.mode & 0o111
}

// toolText is what the fuzzed Write tool writes to memory-bank/a.md.
const toolText = "# A\ntool-write\n"

// FuzzOutcomeCompare: whatever a known-good bank and an agent's changes look like, after the
// post check the disk equals the known-good state, and every byte the agent left in the bank
// is in the quarantine. The agent may forge mbguard's state in the same call (forge), and an
// allowed Write of memory-bank/a.md may run in parallel with the shell (tool: odd runs it,
// after tool/2 of the agent's operations): a.md then ends as its known-good state or exactly
// as the tool wrote it (its bytes, and no execute bit the file did not have: a write tool never
// adds one), never as the shell left it; a forged state is never adopted.
func FuzzOutcomeCompare(f *testing.F) {
	f.Add([]byte{0, 1, 3, 3, 0, 4}, []byte{0, 1, 1, 0, 4, 2, 6, 1}, []byte{}, byte(0))
	f.Add([]byte{}, []byte{2, 7, 0, 7}, []byte{}, byte(0))
	f.Add([]byte{3, 3, 8, 4}, []byte{5, 3, 7, 4, 5, 4, 6, 12}, []byte{}, byte(0))
	f.Add([]byte{0, 2}, []byte{4, 0, 4, 3, 1, 2}, []byte{}, byte(0))
	// forged ref, manifest, outside copy, in-flight records
	f.Add([]byte{}, []byte{0, 0, 0, 1}, []byte{0}, byte(0))
	f.Add([]byte{}, []byte{0, 0, 0, 1}, []byte{1}, byte(0))
	f.Add([]byte{}, []byte{0, 0, 0, 1}, []byte{1, 2, 0}, byte(0))
	f.Add([]byte{}, []byte{0, 1, 1, 4}, []byte{3 + 6*1, 3 + 6*4}, byte(0))
	f.Add([]byte{}, []byte{0, 1}, []byte{4}, byte(0))
	f.Add([]byte{}, []byte{0, 1, 8, 0}, []byte{5}, byte(1))
	// a parallel allowed Write: the shell overwrites, deletes or keeps what it wrote
	f.Add([]byte{}, []byte{0, 1}, []byte{}, byte(1))
	f.Add([]byte{}, []byte{1, 1}, []byte{}, byte(1))
	f.Add([]byte{}, []byte{}, []byte{}, byte(1))
	f.Add([]byte{}, []byte{5, 1, 0, 2}, []byte{3 + 6*1}, byte(3))
	// the shell makes the path the Write is about to write executable (0755), or renames a
	// file onto it (that mode is kept: a write tool never adds an execute bit)
	f.Add([]byte{}, []byte{0, 1, 5, 1}, []byte{}, byte(5))
	f.Add([]byte{8 + 9*9, 36}, []byte{5 + 9*5, 36, 6 + 9*3, 12}, []byte{}, byte(21))
	f.Fuzz(func(t *testing.T, human, agent, forge []byte, tool byte) {
		if len(human) > 40 || len(agent) > 40 || len(forge) > 8 {
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
		const aMD = "memory-bank/a.md"
		c := Call{ID: "c", Session: "s", Tool: "Bash"}
		if tool%2 == 1 {
			c.Tool, c.Allowed = "Write", []string{aMD}
			c.Expect = map[string]string{aMD: TextSum([]byte(toolText))}
		}
		if _, err := g.Before(c); err != nil {
			t.Fatal(err)
		}
		want := snapshot(t, root)
		if _, ok := want[bank.Dir]; !ok {
			// The person removed the bank: with no memory-bank/ there is nothing to guard
			// (SPEC §3), and an agent may start one (mbguard init).
			return
		}
		at := len(agent)
		if tool%2 == 1 {
			at = min(int(tool/2)*2, len(agent))
		}
		applyOps(root, agent[:at], "agent")
		if tool%2 == 1 {
			os.WriteFile(filepath.Join(root, aMD), []byte(toolText), 0o644) // fails on a folder, as the tool would
		}
		applyOps(root, agent[at:], "agent")
		var left []string
		for _, n := range snapshot(t, root) {
			if (n.kind == KindFile || n.kind == KindSymlink) && strings.Contains(n.bytes, "agent-") {
				left = append(left, n.bytes)
			}
		}
		forgeState(t, g, root, forge)
		_, err = g.After(c)
		if errors.Is(err, ErrStoreLost) {
			// every copy forged: nothing is adopted, and the next call is refused too
			if _, err := g.Before(Call{ID: "n", Session: "s", Tool: "Bash"}); !errors.Is(err, ErrStoreLost) {
				t.Fatalf("after every copy was forged, the next check said %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got := snapshot(t, root)
		for p, w := range want {
			g := got[p]
			if p == aMD && tool%2 == 1 && g.kind == KindFile && g.bytes == toolText && g.nlink == 1 && g.mode&0o111&^execBits(w) == 0 {
				continue // exactly what the allowed Write wrote, not made executable
			}
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
		for p, n := range got {
			if _, ok := want[p]; !ok && !(p == aMD && tool%2 == 1 && n.kind == KindFile && n.bytes == toolText && n.nlink == 1 && n.mode&0o111 == 0) {
				t.Errorf("%s left over: %+v", p, n)
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
