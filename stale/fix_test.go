package stale

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

func TestApplyRewritesRenamesOnly(t *testing.T) {
	root, _ := staleRepo(t)
	ctx := context.Background()
	res, err := Check(ctx, root, readNotes(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	done, err := Apply(root, res.Fixes)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != len(res.Fixes) {
		t.Errorf("applied %d of %d fixes: %+v", len(done), len(res.Fixes), done)
	}
	b, err := os.ReadFile(filepath.Join(root, "memory-bank", "MEMORY.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"`src/auth/sessions.ts`", "[the handler](../services/api/handler.py)", "`docs/New Notes.md`", "`services/api/`", "`src/auth/sessions.ts`;", "`scripts/old.sh` and the API", "`src/auth/sessions.ts`; deploy"} {
		if !strings.Contains(got, want) {
			t.Errorf("after --fix the note lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "https://example.com/src/auth/session.ts") {
		t.Errorf("--fix rewrote a URL:\n%s", got)
	}
	// the case-differing path is rewritten to the tracked one
	if !strings.Contains(got, "`src/auth/sessions.ts` is a typo") {
		t.Errorf("case fix not applied:\n%s", got)
	}
	// a second run finds no rename left to fix
	res, err = Check(ctx, root, readNotes(t, root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fixes) != 0 {
		t.Errorf("fixes left after --fix: %+v", res.Fixes)
	}
}

func TestApplySkipsChangedLine(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/a.md", "x `src/a.go`\n")
	done, err := Apply(root, []Fix{{Path: "memory-bank/a.md", Line: 1, Old: "src/b.go", New: "src/c.go"}, {Path: "memory-bank/a.md", Line: 9, Old: "src/a.go", New: "src/c.go"}})
	if err != nil || len(done) != 0 {
		t.Fatalf("Apply = %+v, %v; want nothing applied", done, err)
	}
}

func TestReplacePathWholePathsOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"`src/a.go` and src/a.go.", "`src/b.go` and src/b.go."},
		{"src/a.gox lib/src/a.go", "src/a.gox lib/src/a.go"},
	} {
		got, _ := replacePath([]byte(tc.in), "src/a.go", "src/b.go")
		if string(got) != tc.want {
			t.Errorf("replacePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSinceNarrowsTheCheck(t *testing.T) {
	root, ev := staleRepo(t)
	ctx := context.Background()
	// the bank was committed last: since the commit before it, every note is touched
	res, err := Check(ctx, root, readNotes(t, root), Options{Since: ev["symbol"]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 10 {
		t.Errorf("--since before the bank: %d findings, want 10", len(res.Findings))
	}
	// since HEAD nothing changed: nothing to check
	res, err = Check(ctx, root, readNotes(t, root), Options{Since: "HEAD"})
	if err != nil || len(res.Findings) != 0 {
		t.Errorf("--since HEAD = %+v, %v; want no findings", res.Findings, err)
	}
	// a path deleted after HEAD is checked even though the note did not change
	testgit.Git(t, root, "rm", "-q", "scripts/deploy.sh")
	res, err = Check(ctx, root, readNotes(t, root), Options{Since: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if !strings.Contains(f.Message, "scripts/deploy.sh") {
			t.Errorf("--since HEAD after deleting deploy.sh: unexpected %s", f.Message)
		}
	}
	if len(res.Findings) == 0 {
		t.Error("--since HEAD after deleting deploy.sh: no finding")
	}
	if _, err := Check(ctx, root, nil, Options{Since: "no-such-rev"}); err == nil || !strings.Contains(err.Error(), "not a commit") {
		t.Errorf("--since no-such-rev: err = %v", err)
	}
}
