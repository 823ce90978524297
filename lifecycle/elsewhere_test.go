package lifecycle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// A bank kept as Cursor rules or in .memory-bank/ is taken over by migrate: init and upgrade
// do not start a second, empty bank beside it and name mbguard migrate --apply, migrate moves
// its files to their v7.1 places with nothing lost, and the old folder is gone.
func TestBankElsewhere(t *testing.T) {
	for _, tc := range []struct{ name, dir, ext string }{
		{"cursor rules", ".cursor/rules/memory-bank", ".mdc"},
		{"cursor rules as markdown", ".cursor/rules/memory-bank", ".md"},
		{"hidden folder", ".memory-bank", ".md"},
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
			for n, c := range files {
				testgit.Write(t, root, tc.dir+"/"+n+tc.ext, front+c)
			}
			testgit.Commit(t, root, "bank")
			if _, err := Init(root); err == nil || !strings.Contains(err.Error(), tc.dir) || !strings.Contains(err.Error(), "mbguard migrate --apply") {
				t.Fatalf("init: got %v, want a refusal naming %s and mbguard migrate --apply", err, tc.dir)
			}
			if _, err := Upgrade(UpgradeOptions{Root: root, StateDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "mbguard migrate --apply") {
				t.Fatalf("upgrade: got %v, want a refusal naming mbguard migrate --apply", err)
			}
			if _, err := os.Stat(filepath.Join(root, "memory-bank", "MEMORY.md")); err == nil {
				t.Fatal("init started a second bank")
			}
			res, err := Migrate(context.Background(), opts(root))
			if err != nil {
				t.Fatal(err)
			}
			if res.Plan.From != tc.dir {
				t.Errorf("plan from %q, want %q", res.Plan.From, tc.dir)
			}
			all := string(read(t, root, "memory-bank/MEMORY.md")) + string(read(t, root, "memory-bank/details/tech.md")) + string(read(t, root, "memory-bank/details/progress.md"))
			for _, c := range files {
				for _, l := range strings.Split(front+c, "\n") {
					if l != "" && !strings.Contains(all, norm(l)) {
						t.Errorf("line lost: %q", l)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(tc.dir))); err == nil {
				t.Errorf("%s is still there", tc.dir)
			}
			checkClean(t, root)
		})
	}
}

// A Kilo Code bank in .kilocode/rules/memory-bank/ (budget-tracker and a thousand public
// repositories more) was not seen: every command said "run mbguard init", which would have started
// a second, empty bank. Now init and upgrade point at migrate, and migrate maps brief.md to the
// Project Snapshot, context.md to Current Focus, architecture.md to details/patterns.md (its
// headings the Decision Highlights), product.md and tech.md to their details files, with history.
func TestBankElsewhereKilo(t *testing.T) {
	root := testgit.New(t)
	dir := ".kilocode/rules/memory-bank"
	files := map[string]string{
		"brief.md":        "# Brief\n\nA budget tracker for two people.\n",
		"context.md":      "# Context\n\n- Fixing console warnings.\n",
		"product.md":      "# Product\n\nShared expenses, monthly limits.\n",
		"architecture.md": "# Architecture\n\n## State in one store\n\nZustand, no server state cache.\n",
		"tech.md":         "# Tech\n\n- React Native 0.74\n",
	}
	for n, c := range files {
		testgit.Write(t, root, dir+"/"+n, c)
	}
	instructions := ".kilocode/rules/memory-bank-instructions.md"
	testgit.Write(t, root, instructions, "The memory bank files are located in `.kilocode/rules/memory-bank` folder.\nSee .kilocode/rules/memory-bank-instructions.md.\n")
	testgit.Commit(t, root, "kilo bank")
	if _, err := Init(root); err == nil || !strings.Contains(err.Error(), "Kilo Code bank kept in "+dir) {
		t.Fatalf("init: got %v, want a refusal naming the Kilo Code bank in %s", err, dir)
	}
	res, err := Migrate(context.Background(), opts(root))
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Kind != bank.KindKilo || res.Plan.From != dir {
		t.Errorf("plan %q from %q, want Kilo Code from %s", res.Plan.Kind, res.Plan.From, dir)
	}
	mem := string(read(t, root, "memory-bank/MEMORY.md"))
	snap := mem[strings.Index(mem, "## Project Snapshot"):strings.Index(mem, "## Current Focus")]
	focus := mem[strings.Index(mem, "## Current Focus"):strings.Index(mem, "## Decision Highlights")]
	if !strings.Contains(snap, "A budget tracker for two people.") || !strings.Contains(focus, "Fixing console warnings.") || !strings.Contains(mem, "- State in one store") {
		t.Errorf("MEMORY.md does not carry brief.md, context.md and architecture.md's decision:\n%s", mem)
	}
	for old, nw := range map[string]string{"architecture.md": "memory-bank/details/patterns.md", "product.md": "memory-bank/details/requirements/product-context.md", "tech.md": "memory-bank/details/tech.md"} {
		if got := string(read(t, root, nw)); got != files[old] {
			t.Errorf("%s: %q, want %s byte for byte", nw, got, old)
		}
		if log := testgit.Git(t, root, "log", "--follow", "--format=%s", "--", nw); !strings.Contains(log, "kilo bank") {
			t.Errorf("git log --follow %s does not reach the old folder:\n%s", nw, log)
		}
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir))); err == nil {
		t.Errorf("%s is still there", dir)
	}
	// Kilo Code reads where its instructions say: they must name the new folder, or it keeps
	// writing the old one; the instruction file's own name stays
	want := "The memory bank files are located in `memory-bank` folder.\nSee .kilocode/rules/memory-bank-instructions.md.\n"
	if got := string(read(t, root, instructions)); got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", instructions, got, want)
	}
	checkClean(t, root)
}

// A bank kept elsewhere with nothing but its entry files has no rename commit: MEMORY.md is
// made in a memory-bank/ that did not exist.
func TestBankElsewhereOnlyEntries(t *testing.T) {
	for _, cli := range []bool{false, true} {
		root := testgit.New(t)
		testgit.Write(t, root, ".memory-bank/projectbrief.md", "# Brief\n\nTide tables.\n")
		testgit.Write(t, root, ".memory-bank/activeContext.md", "# Active\n\nGusts.\n")
		testgit.Commit(t, root, "bank")
		o := opts(root)
		o.GitCLI = cli
		res, err := Migrate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.NoMoves || len(res.Commits) != 1 {
			t.Errorf("commits %+v, want the MEMORY.md commit alone", res.Commits)
		}
		if b := string(read(t, root, "memory-bank/MEMORY.md")); !strings.Contains(b, "Tide tables.") || !strings.Contains(b, "Gusts.") {
			t.Errorf("MEMORY.md:\n%s", b)
		}
		if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
			t.Errorf("work tree not clean:\n%s", st)
		}
		checkClean(t, root)
	}
}

// A hidden folder of its own convention (one Cline name among files of its own) is not taken
// for a Cline bank: migrate refuses, naming the git mv that brings it over by hand; --force
// migrates it.
func TestBankElsewhereOwnConvention(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, ".memory-bank/prd.md", "# PRD\n")
	testgit.Write(t, root, ".memory-bank/features/FT-001.md", "# FT-001\n")
	testgit.Write(t, root, ".memory-bank/states/lifecycle-map.md", "# States\n")
	testgit.Write(t, root, ".memory-bank/projectbrief.md", "# Brief\n")
	testgit.Commit(t, root, "own bank")
	_, err := Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ".memory-bank/ does not look enough like") || !strings.Contains(err.Error(), "git mv .memory-bank memory-bank") {
		t.Fatalf("got %v, want a refusal naming .memory-bank/ and git mv .memory-bank memory-bank", err)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank")); err == nil {
		t.Fatal("memory-bank/ created by a refused run")
	}
	// with two entry files it is Cline's, but still mostly its own: the confidence rule holds
	testgit.Write(t, root, ".memory-bank/activeContext.md", "# Active\n")
	testgit.Write(t, root, ".memory-bank/roadmap.md", "# Roadmap\n")
	testgit.Commit(t, root, "more")
	_, err = Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "does not look enough like") {
		t.Fatalf("got %v, want the confidence refusal", err)
	}
	o := opts(root)
	o.Force = true
	if _, err := Migrate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"memory-bank/prd.md", "memory-bank/features/FT-001.md", "memory-bank/states/lifecycle-map.md", "memory-bank/roadmap.md"} {
		if read(t, root, f) == nil {
			t.Errorf("%s not brought over", f)
		}
	}
}

// Two Cursor rule files that read as one Markdown name are refused before anything changes.
func TestBankElsewhereNameClash(t *testing.T) {
	root := testgit.New(t)
	for _, f := range []string{"projectbrief.mdc", "activeContext.mdc", "progress.mdc", "progress.md"} {
		testgit.Write(t, root, ".cursor/rules/memory-bank/"+f, "# "+f+"\n")
	}
	testgit.Commit(t, root, "bank")
	_, err := Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "progress.md and progress.mdc would both become one file") {
		t.Fatalf("got %v, want a refusal naming progress.md and progress.mdc", err)
	}
	if _, err := os.Stat(filepath.Join(root, "memory-bank")); err == nil {
		t.Fatal("memory-bank/ created by a refused run")
	}
}

// A bank kept as Cursor rules beside a memory-bank/ that already holds a copy of Cline's files as
// .mdc (etanheyman.com), and images: two banks. Migrate refuses, naming the files of the second
// one, and changes nothing; the plan lists what else is already in memory-bank/ (the images
// that check would flag after the migration) rather than saying nothing of it.
func TestBankElsewhereBesideSecondBank(t *testing.T) {
	root := testgit.New(t)
	for _, f := range []string{"projectbrief.mdc", "activeContext.mdc", "techContext.mdc"} {
		testgit.Write(t, root, ".cursor/rules/memory-bank/"+f, "---\ndescription: x\nalwaysApply: true\n---\n# "+f+"\n")
	}
	for _, f := range []string{"techContext.mdc", "systemPatterns.mdc", "styleGuide.md", "home-design.png"} {
		testgit.Write(t, root, "memory-bank/"+f, "# "+f+"\n")
	}
	testgit.Commit(t, root, "two banks")
	head := testgit.Git(t, root, "rev-parse", "HEAD")
	plan, err := PlanMigration(root)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(plan.Notes, "\n")
	if !strings.Contains(notes, "memory-bank/home-design.png is already there") || !strings.Contains(notes, "not Markdown") || !strings.Contains(notes, "memory-bank/styleGuide.md is already there") {
		t.Errorf("notes do not list what memory-bank/ already holds:\n%s", notes)
	}
	_, err = Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "another bank (systemPatterns.mdc, techContext.mdc)") {
		t.Fatalf("got %v, want a refusal naming memory-bank/'s .mdc files", err)
	}
	if testgit.Git(t, root, "rev-parse", "HEAD") != head {
		t.Error("a refusal made a commit")
	}
}

// An ignored .memory-bank/ (some tools keep it out of git) is not migrated with commits: its
// entry files are not in the commit MEMORY.md is built from, so they would be deleted with
// their text missing. Migrate refuses, changing nothing; --no-git migrates it.
func TestBankElsewhereIgnored(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, ".gitignore", ".memory-bank/\n")
	testgit.Commit(t, root, "ignore the bank")
	for f, c := range map[string]string{"projectbrief.md": "# Brief\n\nTide tables.\n", "activeContext.md": "# Active\n\nGusts.\n", "techContext.md": "# Tech\n\nKotlin.\n"} {
		if err := os.MkdirAll(filepath.Join(root, ".memory-bank"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".memory-bank", f), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ".memory-bank/projectbrief.md") || !strings.Contains(err.Error(), "--no-git") {
		t.Fatalf("got %v, want a refusal naming the untracked entry file and --no-git", err)
	}
	if read(t, root, ".memory-bank/projectbrief.md") == nil || read(t, root, "memory-bank/details/tech.md") != nil {
		t.Fatal("a refusal changed something")
	}
	o := opts(root)
	o.NoGit = true
	if _, err := Migrate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if b := string(read(t, root, "memory-bank/MEMORY.md")); !strings.Contains(b, "Tide tables.") || !strings.Contains(b, "Gusts.") {
		t.Errorf("MEMORY.md:\n%s", b)
	}
}

func TestFrontMatter(t *testing.T) {
	for _, tc := range []struct{ name, in, fm, rest string }{
		{"cursor rule", "---\ndescription: brief\nglobs:\nalwaysApply: true\n---\n# Brief\n", "---\ndescription: brief\nglobs:\nalwaysApply: true\n---", "# Brief\n"},
		{"list and crlf", "\ufeff---\r\nglobs:\r\n  - src/**\r\n...\r\ntext\r\n", "---\r\nglobs:\r\n  - src/**\r\n...", "text\r\n"},
		{"a rule, not front matter", "---\nThis opens with a rule.\n---\n", "", "---\nThis opens with a rule.\n---\n"},
		{"never closed", "---\ndescription: x\n", "", "---\ndescription: x\n"},
		{"none", "# Brief\n", "", "# Brief\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm, rest := frontMatter([]byte(tc.in))
			if fm != tc.fm || string(rest) != tc.rest {
				t.Errorf("frontMatter(%q) = %q, %q; want %q, %q", tc.in, fm, rest, tc.fm, tc.rest)
			}
		})
	}
}

// FuzzFrontMatter: front matter and rest are the input's head and tail, nothing made up.
func FuzzFrontMatter(f *testing.F) {
	f.Add("---\ndescription: brief\nglobs:\nalwaysApply: true\n---\n# Brief\n")
	f.Add("---\n---\n")
	f.Add("\ufeff---\r\na: b\r\n...\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		fm, rest := frontMatter([]byte(in))
		body := strings.TrimPrefix(in, "\ufeff")
		if !strings.HasSuffix(body, string(rest)) || !strings.HasPrefix(body, fm) || len(fm)+len(rest) > len(body) {
			t.Errorf("frontMatter(%q) = %q, %q", in, fm, rest)
		}
		if fm == "" && string(rest) != body {
			t.Errorf("no front matter, yet the text changed: %q -> %q", in, rest)
		}
	})
}
