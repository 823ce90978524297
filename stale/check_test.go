package stale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
)

// staleRepo builds a repository whose history renames and deletes files and a directory,
// removes a Makefile target and an npm script and renames a function, then writes a bank
// that names all of them, and things that still exist. It returns the root and the hashes
// of the commits that made each change.
func staleRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := testgit.New(t)
	testgit.Write(t, dir, "src/auth/session.ts", "export function login() {}\n")
	testgit.Write(t, dir, "src/cart/service.ts", "export class CartService { flushAll() {} }\n")
	testgit.Write(t, dir, "src/store/user.go", "package store\n\ntype UserStore struct{}\n\nfunc (s *UserStore) flush() {}\n\nfunc ParseConfig() {}\n")
	testgit.Write(t, dir, "scripts/deploy.sh", "#!/bin/sh\necho deploy\n")
	testgit.Write(t, dir, "scripts/old.sh", "#!/bin/sh\necho old\n")
	testgit.Write(t, dir, "legacy/api/handler.py", "def handle():\n    pass\n")
	testgit.Write(t, dir, "docs/My Notes.md", "# notes\n")
	testgit.Write(t, dir, "docs/Old Notes.md", "# old\n")
	testgit.Write(t, dir, "Makefile", ".PHONY: build migrate\nbuild:\n\tgo build ./...\nmigrate:\n\t./scripts/migrate.sh\n")
	testgit.Write(t, dir, "package.json", `{"name":"x","scripts":{"dev":"vite","seed":"node seed.js"}}`+"\n")
	testgit.Write(t, dir, ".gitignore", "dist/\n")
	testgit.Commit(t, dir, "initial")
	ev := map[string]string{}
	head := func() string { return testgit.Git(t, dir, "rev-parse", "HEAD") }

	testgit.Git(t, dir, "mv", "src/auth/session.ts", "src/auth/sessions.ts")
	testgit.Commit(t, dir, "auth: one file per session kind")
	ev["rename"] = head()

	testgit.Git(t, dir, "rm", "-q", "scripts/old.sh")
	testgit.Commit(t, dir, "scripts: drop old.sh")
	ev["delete"] = head()

	testgit.Write(t, dir, "services/.keep", "")
	testgit.Git(t, dir, "add", "services/.keep")
	testgit.Git(t, dir, "mv", "legacy/api", "services/api")
	testgit.Commit(t, dir, "move the api out of legacy")
	ev["dir"] = head()

	testgit.Git(t, dir, "mv", "docs/Old Notes.md", "docs/New Notes.md")
	testgit.Commit(t, dir, "docs: rename notes")
	ev["spaces"] = head()

	testgit.Write(t, dir, "Makefile", ".PHONY: build\nbuild:\n\tgo build ./...\n")
	testgit.Commit(t, dir, "make: migrations run at start-up now")
	ev["make"] = head()

	testgit.Write(t, dir, "package.json", `{"name":"x","scripts":{"dev":"vite"}}`+"\n")
	testgit.Commit(t, dir, "npm: seed moved to the fixtures")
	ev["npm"] = head()

	testgit.Write(t, dir, "src/store/user.go", "package store\n\ntype UserStore struct{}\n\nfunc (s *UserStore) flushBatch() {}\n\nfunc ParseConfig() {}\n")
	testgit.Commit(t, dir, "store: flush is flushBatch")
	ev["symbol"] = head()

	testgit.Write(t, dir, "memory-bank/MEMORY.md", `# Memory

Auth lives in `+"`src/auth/session.ts`"+`; deploy with `+"`./scripts/deploy.sh`"+`.
The old runner was `+"`scripts/old.sh`"+` and the API is in [the handler](../legacy/api/handler.py).
Notes are in `+"`docs/Old Notes.md`"+` and `+"`docs/My Notes.md`"+`.
Run `+"`make migrate`"+` after `+"`make build`"+`; seed with `+"`npm run seed`"+`, serve with `+"`pnpm dev`"+`.
`+"`UserStore.flush()`"+` batches writes; `+"`func ParseConfig`"+` reads it; `+"`class CartService`"+` too.
Not ours: https://example.com/src/auth/session.ts, `+"`github.com/foo/bar`"+`, `+"`/etc/hosts`"+`, `+"`~/.config/x`"+`,
`+"`JSON.parse()`"+`, and/or client/server, `+"`dist/bundle.js`"+`, `+"`Src/Auth/Sessions.ts`"+` is a typo.
Directories: `+"`src/cart/`"+`, `+"`legacy/api/`"+`.

`+"```sh"+`
make build && npm run dev
./scripts/deploy.sh --prod
`+"```"+`

`+"```go"+`
import "legacy/api/handler"
`+"```"+`

## History
<!-- mbguard:historical -->
We once had `+"`scripts/old.sh`"+` and `+"`make migrate`"+`.

## Later
Still `+"`scripts/old.sh`"+` here.
`)
	testgit.Commit(t, dir, "bank")
	return dir, ev
}

func readNotes(t *testing.T, root string) []Note {
	t.Helper()
	var notes []Note
	err := filepath.WalkDir(filepath.Join(root, "memory-bank"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		notes = append(notes, Note{Path: filepath.ToSlash(rel), Content: b})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

func TestCheckFindsEveryStaleReferenceWithEvidence(t *testing.T) {
	root, ev := staleRepo(t)
	res, err := Check(context.Background(), root, readNotes(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		rule   string
		commit string // evidence key, "" when git has none
		text   string
	}{
		{3, RulePath, "rename", "src/auth/session.ts was renamed to src/auth/sessions.ts"},
		{4, RulePath, "dir", "../legacy/api/handler.py was renamed to services/api/handler.py"},
		{4, RulePath, "delete", "scripts/old.sh was deleted"},
		{5, RulePath, "spaces", "docs/Old Notes.md was renamed to docs/New Notes.md"},
		{6, RuleCommand, "make", "make migrate: the repository no longer defines make target migrate"},
		{6, RuleCommand, "npm", "npm run seed: the repository no longer defines package.json script seed"},
		{7, RuleSymbol, "symbol", "flush no longer occurs in the tracked source"},
		{9, RulePath, "", "Src/Auth/Sessions.ts is not in the repository; the case differs from src/auth/sessions.ts"},
		{10, RulePath, "dir", "legacy/api/ was renamed to services/api"},
		{26, RulePath, "delete", "scripts/old.sh was deleted"},
	}
	got := res.Findings
	for _, f := range got {
		t.Logf("%s:%d %s %s | %s", f.Path, f.Line, f.Rule, f.Message, f.Fix)
		if f.Severity != scanner.SeverityWarning || f.Path != "memory-bank/MEMORY.md" {
			t.Errorf("finding %+v: want a warning in memory-bank/MEMORY.md", f)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d", len(got), len(want))
	}
	for i, w := range want {
		f := got[i]
		if f.Line != w.line || f.Rule != w.rule || !strings.Contains(f.Message, w.text) {
			t.Errorf("finding %d = line %d %s %q; want line %d %s containing %q", i, f.Line, f.Rule, f.Message, w.line, w.rule, w.text)
		}
		if w.commit != "" && !strings.Contains(f.Message, ev[w.commit][:12]) {
			t.Errorf("finding %d %q does not name commit %s (%s)", i, f.Message, ev[w.commit][:12], w.commit)
		}
	}
}

// TestStagedDeletionIsStillInHEAD: a path the staged changes delete (a file, or every file of
// a directory) is reported as deleted by them, and a path git never had is not mistaken for one.
func TestStagedDeletionIsStillInHEAD(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "src/keep.go", "package src\n")
	testgit.Write(t, dir, "src/gone.go", "package src\n")
	testgit.Write(t, dir, "tools/gen/main.go", "package main\n")
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# Memory\n\nSee `src/gone.go`, `tools/gen/` and `src/never.go`; `src/keep.go` stays.\n")
	testgit.Commit(t, dir, "initial")
	testgit.Git(t, dir, "rm", "-q", "src/gone.go")
	testgit.Git(t, dir, "rm", "-q", "-r", "tools/gen")
	res, err := Check(context.Background(), dir, readNotes(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var staged []string
	for _, f := range res.Findings {
		t.Logf("%s:%d %s", f.Path, f.Line, f.Message)
		if strings.Contains(f.Message, "deleted by the staged changes") {
			staged = append(staged, strings.Fields(f.Message)[0])
		}
	}
	if strings.Join(staged, " ") != "src/gone.go tools/gen/" {
		t.Errorf("reported as deleted by the staged changes: %q; want src/gone.go and tools/gen/", staged)
	}
}

// TestRoutingPlacesAreNotStale: a Roo Code bank has no techContext.md, so after migrate the bank
// has details/ but no details/tech.md, which MEMORY.md's routing table (the template's own text)
// names. That is where tech notes go, not a stale reference; the same name in another note, or
// a detail file the table does not name, still is.
func TestRoutingPlacesAreNotStale(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "src/app.go", "package src\n")
	testgit.Write(t, dir, "memory-bank/details/design/decision-log.md", "# Decisions\n")
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# Memory\n\n| when | read |\n|---|---|\n| build | details/tech.md |\n| patterns | details/patterns.md |\n\nSee details/plans.md.\n")
	testgit.Write(t, dir, "memory-bank/details/patterns.md", "# Patterns\n\nStack in [tech](tech.md).\n\nUnmapped text goes to `memory-bank/legacy.md`; notes to `memory-bank/details/tech.md`.\n")
	testgit.Commit(t, dir, "initial")
	res, err := Check(context.Background(), dir, readNotes(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s:%d %s", f.Path, f.Line, strings.Fields(f.Message)[0]))
	}
	want := "memory-bank/MEMORY.md:8 details/plans.md memory-bank/details/patterns.md:3 tech.md"
	if strings.Join(got, " ") != want {
		t.Errorf("stale: %q; want %q (the routing table's details/tech.md is a place, not stale)", got, want)
	}
}

// TestUnquotedSpacedPathIsNotStale: BIG-BRAIN-Memory-Bank's README says, in a bash fence,
// "cd memory-bank/Bedtime Protocol/memory-tools": the words are not quoted, so the path read is
// memory-bank/Bedtime, a tracked folder's name cut at its space. Not stale; a path cut at a
// space that no tracked path continues still is.
func TestUnquotedSpacedPathIsNotStale(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "memory-bank/Night Shift/tools/run.py", "print(1)\n")
	testgit.Write(t, dir, "memory-bank/notes.md", "# Notes\n\n```bash\ncd memory-bank/Night Shift/tools\ncd memory-bank/Day Shift/tools\n```\n")
	testgit.Commit(t, dir, "initial")
	res, err := Check(context.Background(), dir, readNotes(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%d %s", f.Line, strings.Fields(f.Message)[0]))
	}
	if strings.Join(got, ", ") != "5 memory-bank/Day" {
		t.Errorf("stale: %q; want only line 5's memory-bank/Day (Night is a tracked folder's name cut at its space)", got)
	}
}

// TestModulePathsAndToDoScripts: a note names a source file the way an import does, without its
// extension (src/game/actions for src/game/actions.ts), and a to-do asks for a script the
// package.json does not define yet (CivWeb-Lite). Neither is stale; a script the note says exists
// and a module path no file continues still are.
func TestModulePathsAndToDoScripts(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "package.json", `{"scripts": {"test": "vitest"}}`+"\n")
	testgit.Write(t, dir, "src/game/actions.ts", "export {}\n")
	testgit.Write(t, dir, "memory-bank/notes.md", "# Notes\n\nTypes are in `src/game/actions` and `src/game/reducer`.\n\n- [ ] Create `npm run test:e2e:ci` for CI.\n- Run `npm run lint` before review.\n")
	testgit.Commit(t, dir, "initial")
	res, err := Check(context.Background(), dir, readNotes(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%d %s", f.Line, strings.Fields(f.Message)[0]))
	}
	if strings.Join(got, ", ") != "3 src/game/reducer, 6 npm" {
		t.Errorf("stale: %q; want line 3's src/game/reducer and line 6's npm run lint", got)
	}
}

// TestBankFoldersToComeAreNotStale: MEMORY.md's routing table names folders of the bank that
// are made when the first note goes there (details/archive/); git never knew them, and that is
// not stale. A file of the bank git never knew, or a folder outside it, still is.
func TestBankFoldersToComeAreNotStale(t *testing.T) {
	dir := testgit.New(t)
	testgit.Write(t, dir, "src/app.go", "package src\n")
	testgit.Write(t, dir, "memory-bank/details/tech.md", "# Tech\n")
	testgit.Write(t, dir, "memory-bank/MEMORY.md", "# Memory\n\n| when | read |\n|---|---|\n| finished work | details/archive/ |\n| designs | details/design/ |\n\nSee [the plan](details/plan.md) and `src/gone/`.\n")
	testgit.Commit(t, dir, "initial")
	res, err := Check(context.Background(), dir, readNotes(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, strings.Fields(f.Message)[0])
	}
	if strings.Join(got, " ") != "details/plan.md src/gone/" {
		t.Errorf("stale: %q; want only the missing note details/plan.md and src/gone/ (bank folders to come are not stale)", got)
	}
}
