package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// A bank of its own convention — thirty ADR and TASK files and one projectbrief.md that forty
// files outside point at — is not a Cline bank: migrate refuses, names what it saw, changes
// nothing, and never deletes projectbrief.md.
func TestMigrateOwnConventionRefused(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/projectbrief.md", "# Brief\n\nNever remove this file (ADR-007).\n")
	for i := 1; i <= 15; i++ {
		testgit.Write(t, root, fmt.Sprintf("memory-bank/ADR-%03d.md", i), fmt.Sprintf("# ADR %d\n\nSee [the brief](projectbrief.md).\n", i))
		testgit.Write(t, root, fmt.Sprintf("memory-bank/TASK-%03d.md", i), fmt.Sprintf("# Task %d\n", i))
	}
	for i := 1; i <= 40; i++ {
		testgit.Write(t, root, fmt.Sprintf("docs/d%02d.md", i), "Read [[projectbrief]] and memory-bank/projectbrief.md first.\n")
	}
	testgit.Commit(t, root, "our own bank")
	head := testgit.Git(t, root, "rev-parse", "HEAD")
	plan, err := PlanMigration(root)
	if err != nil || plan.Unsure == "" {
		t.Fatalf("plan not unsure: %+v %v", plan, err)
	}
	// --diff refuses the same (arc42-memory-bank, Twilight-Hub: a diff of a migration that
	// --apply then refused)
	if _, pv, err := PreviewMigration(opts(root)); !errors.Is(err, ErrRefused) || len(pv.Files) > 0 {
		t.Errorf("preview: %d file(s), %v; want a refusal and nothing to show", len(pv.Files), err)
	}
	_, err = Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("got %v, want a refusal", err)
	}
	for _, s := range []string{"Cline", "projectbrief.md (two are needed)", "30 file(s)", "ADR-001.md", "--force"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("refusal lacks %q: %v", s, err)
		}
	}
	if testgit.Git(t, root, "rev-parse", "HEAD") != head || read(t, root, "memory-bank/projectbrief.md") == nil {
		t.Error("a refusal changed something")
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "mbguard", "migrate.journal.json")); err == nil {
		t.Error("a refusal left a journal")
	}
}

// Two entry files and little else is enough; the tool-owned dotfiles of a bank are neither
// counted, nor noted, nor flagged by check.
func TestMigrateConfidentWithDotfiles(t *testing.T) {
	root := historyRepo(t, "cline")
	testgit.Write(t, root, "memory-bank/.gitignore", "*.tmp\n")
	testgit.Write(t, root, "memory-bank/.gitattributes", "*.md text eol=lf\n")
	testgit.Commit(t, root, "tool dotfiles")
	plan, err := PlanMigration(root)
	if err != nil || plan.Unsure != "" {
		t.Fatalf("%q %v", plan.Unsure, err)
	}
	for _, n := range plan.Notes {
		if strings.Contains(n, ".git") {
			t.Errorf("dotfile noted: %s", n)
		}
	}
	if _, err := Migrate(context.Background(), opts(root)); err != nil {
		t.Fatal(err)
	}
	if read(t, root, "memory-bank/.gitignore") == nil {
		t.Error(".gitignore moved or lost")
	}
	checkClean(t, root)
}

func TestConfidence(t *testing.T) {
	known := map[string]bool{"progress.md": true, "techContext.md": true, "projectbrief.md": true, "activeContext.md": true}
	for _, tc := range []struct {
		kind  bank.Kind
		names []string
		ok    bool
	}{
		{bank.KindCline, []string{"projectbrief.md", "activeContext.md"}, true},
		{bank.KindCline, []string{"projectbrief.md", "progress.md"}, false},
		{bank.KindCline, []string{"projectbrief.md", "activeContext.md", "a.md", "b.md", "c.md"}, false},
		{bank.KindCline, []string{"projectbrief.md", "activeContext.md", "a.md", ".gitignore"}, true},
		{bank.KindSkill, []string{"_index.md", "notes.md"}, false},
		{bank.KindSkill, []string{"brief.md", "active.md"}, true},
	} {
		if got := confidence(tc.kind, tc.names, known, "") == ""; got != tc.ok {
			t.Errorf("confidence(%s, %v) = %v, want %v", tc.kind, tc.names, got, tc.ok)
		}
	}
}
