package watcher

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// BankChanges sees every kind of uncommitted bank work (changed, staged, untracked) and
// nothing outside the bank.
func TestBankChanges(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", realMemory)
	testgit.Write(t, dir, "memory-bank/details/progress.md", "# Progress\n")
	testgit.Write(t, dir, "src/a.go", "package a\n")
	testgit.Commit(t, dir, "init")
	fx := NewFacts(dir, nil)
	if got, ok := fx.BankChanges(); !ok || len(got) != 0 {
		t.Fatalf("clean bank: %q, %v", got, ok)
	}
	testgit.Write(t, dir, "src/a.go", "package a // changed\n") // outside the bank
	testgit.Write(t, dir, "memory-bank/details/progress.md", "# Progress\n- x\n")
	testgit.Write(t, dir, "memory-bank/details/new.md", "# New\n")
	testgit.Write(t, dir, "memory-bank/MEMORY.md", realMemory+"\n")
	testgit.Git(t, dir, "add", "memory-bank/MEMORY.md")
	testgit.Write(t, dir, ".gitignore", "*.bak\n")
	testgit.Write(t, dir, "memory-bank/old.bak", "x") // git clean -x would remove it
	got, ok := NewFacts(dir, nil).BankChanges()
	sort.Strings(got)
	want := []string{"memory-bank/MEMORY.md", "memory-bank/details/new.md", "memory-bank/details/progress.md", "memory-bank/old.bak"}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("changes = %q, %v; want %q", got, ok, want)
	}
	if _, ok := NewFacts(t.TempDir(), nil).BankChanges(); ok {
		t.Error("a directory that is no work tree gave an answer")
	}
}

// Through serve: git reset --hard goes on while the bank is committed and is refused, naming
// the file at risk, once the bank holds uncommitted work.
func TestWholeTreeGitThroughServe(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/MEMORY.md", realMemory)
	testgit.Write(t, dir, "memory-bank/details/progress.md", "# Progress\n")
	testgit.Commit(t, dir, "init")
	r, err := repo.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	ev := `"kind":"tool.before","host":"claude","session":"s","message":"m1","tool":"Bash","args":{"command":"git reset --hard"}`
	if d := serveOne(t, r, "warn", ev); d.Verdict == "block" {
		t.Fatalf("clean bank: %+v, want git reset --hard allowed", d)
	}
	if err := os.WriteFile(filepath.Join(dir, "memory-bank/details/progress.md"), []byte("# Progress\n- unsaved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := serveOne(t, r, "warn", ev)
	if d.Verdict != "block" || !strings.Contains(d.Message, "memory-bank/details/progress.md") {
		t.Fatalf("uncommitted bank work: %+v, want a block naming the file at risk", d)
	}
}
