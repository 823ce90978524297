package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// legacyRepo copies testdata/legacy into a fresh repository with one commit.
func legacyRepo(t *testing.T) string {
	t.Helper()
	root := testgit.New(t)
	src := filepath.Join("testdata", "legacy")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		testgit.Write(t, root, filepath.ToSlash(rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, root, "main.go", "package main\n")
	testgit.Commit(t, root, "start")
	return root
}

func opts(root string) MigrateOptions {
	gd := filepath.Join(root, ".git")
	return MigrateOptions{Root: root, GitDir: gd, StateDir: filepath.Join(gd, "mbguard"), Apply: true}
}

func read(t *testing.T, root, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

// norm compares lines as text: headings nest one level deeper in MEMORY.md, so their '#'
// run is not part of the comparison.
func norm(l string) string {
	l = strings.TrimSpace(strings.TrimPrefix(l, "\ufeff"))
	if strings.HasPrefix(l, "#") {
		l = "# " + strings.TrimSpace(strings.TrimLeft(l, "#"))
	}
	return l
}

// assertLossless checks that every non-blank, non-marker line of the old entry files is in
// MEMORY.md or legacy.md.
func assertLossless(t *testing.T, old map[string][]byte, root string) {
	t.Helper()
	have := map[string]bool{}
	for _, f := range []string{"memory-bank/MEMORY.md", "memory-bank/legacy.md"} {
		for _, l := range strings.Split(strings.ReplaceAll(string(read(t, root, f)), "\r\n", "\n"), "\n") {
			have[norm(l)] = true
		}
	}
	for name, b := range old {
		for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
			n := norm(l)
			if n == "" || n == bank.MachineStart.String() || n == bank.MachineEnd.String() || n == bank.UserStart.String() || n == bank.UserEnd.String() {
				continue
			}
			if !have[n] {
				t.Errorf("line of %s lost: %q", name, l)
			}
		}
	}
}

func entries(t *testing.T, root string) map[string][]byte {
	m := map[string][]byte{}
	for _, e := range []string{"brief.md", "active.md", "_index.md"} {
		if b := read(t, root, "memory-bank/"+e); b != nil {
			m[e] = b
		}
	}
	return m
}

func TestMigrateApply(t *testing.T) {
	for _, mode := range []struct {
		name string
		cli  bool
	}{{"go-git", false}, {"git-cli", true}} {
		t.Run(mode.name, func(t *testing.T) {
			root := legacyRepo(t)
			old := entries(t, root)
			userBefore, _ := bank.UserBlock(old["active.md"])
			start := testgit.Git(t, root, "rev-parse", "HEAD")
			o := opts(root)
			o.GitCLI = mode.cli
			res, err := Migrate(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Applied || len(res.Commits) != 2 {
				t.Fatalf("result: %+v", res)
			}
			// R100 for every move, and history through the rename
			ns := testgit.Git(t, root, "diff", "-M", "--name-status", "HEAD~2", "HEAD~1")
			lines := strings.Split(ns, "\n")
			if len(lines) != len(res.Plan.Moves) {
				t.Errorf("commit 1 has %d changes, want %d moves:\n%s", len(lines), len(res.Plan.Moves), ns)
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "R100\t") {
					t.Errorf("not a pure rename: %q", l)
				}
			}
			if testgit.Git(t, root, "rev-parse", "HEAD~2") != start {
				t.Error("the two commits do not sit on the starting commit")
			}
			follow := testgit.Git(t, root, "log", "--follow", "--format=%s", "--", "memory-bank/details/learnings/integrations/bank-timeouts.md")
			if !strings.Contains(follow, "start") {
				t.Errorf("git log --follow lost the history:\n%s", follow)
			}
			if st := testgit.Git(t, root, "status", "--porcelain"); st != "" {
				t.Errorf("work tree not clean after migrate:\n%s", st)
			}
			// the trees and commits mbguard wrote itself must satisfy git's strictest reading
			testgit.Git(t, root, "fsck", "--strict", "--no-dangling")
			mem := read(t, root, "memory-bank/MEMORY.md")
			userAfter, ok := bank.UserBlock(mem)
			if !ok || !bytes.Equal(userAfter, userBefore) {
				t.Errorf("USER_BLOCK changed:\n%q\n%q", userBefore, userAfter)
			}
			sc := bank.ScanMarkers(mem)
			if len(sc.Templates) != 1 || sc.Templates[0].Version != bank.CurrentTemplate || sc.Templates[0].Line != sc.Markers[0].Line+1 {
				t.Errorf("template marker: %+v", sc.Templates)
			}
			assertLossless(t, old, root)
			for e := range old {
				if read(t, root, "memory-bank/"+e) != nil {
					t.Errorf("%s still exists", e)
				}
			}
			for _, d := range []string{"docs", "requirements", "learnings", "archive"} {
				if _, err := os.Stat(filepath.Join(root, "memory-bank", d)); err == nil {
					t.Errorf("memory-bank/%s left behind", d)
				}
			}
			// second run: a no-op
			head := testgit.Git(t, root, "rev-parse", "HEAD")
			res, err = Migrate(context.Background(), o)
			if err != nil || !res.NoOp || testgit.Git(t, root, "rev-parse", "HEAD") != head {
				t.Errorf("second run: %+v, %v", res, err)
			}
		})
	}
}

func TestMigrateRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string, o *MigrateOptions)
		want  string
	}{
		{"dirty bank", func(t *testing.T, root string, o *MigrateOptions) {
			testgit.Write(t, root, "memory-bank/brief.md", "changed\n")
		}, "uncommitted changes under memory-bank/"},
		{"untracked file", func(t *testing.T, root string, o *MigrateOptions) {
			testgit.Write(t, root, "memory-bank/docs/new.md", "new\n")
		}, "uncommitted changes under memory-bank/"},
		{"mixed layout", func(t *testing.T, root string, o *MigrateOptions) {
			// an unmarked MEMORY.md migrates (TestMigrateMixedUnmarked); one with markers cannot
			testgit.Write(t, root, "memory-bank/MEMORY.md", "<!-- USER_BLOCK_START -->\nx\n<!-- USER_BLOCK_END -->\n")
			testgit.Commit(t, root, "mixed")
		}, "mixes conventions"},
		{"collision", func(t *testing.T, root string, o *MigrateOptions) {
			testgit.Write(t, root, "memory-bank/details/tech.md", "other\n")
			testgit.Commit(t, root, "collide")
		}, "already exists"},
		{"merge in progress", func(t *testing.T, root string, o *MigrateOptions) {
			os.WriteFile(filepath.Join(root, ".git", "MERGE_HEAD"), []byte(testgit.Git(t, root, "rev-parse", "HEAD")+"\n"), 0o644)
		}, "in progress"},
		{"no git repository", func(t *testing.T, root string, o *MigrateOptions) {
			o.GitDir, o.StateDir = "", ""
		}, "not inside a git repository"},
		{"staged change elsewhere", func(t *testing.T, root string, o *MigrateOptions) {
			testgit.Write(t, root, "main.go", "package main // changed\n")
			testgit.Git(t, root, "add", "main.go")
		}, "staged changes outside memory-bank/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := legacyRepo(t)
			o := opts(root)
			tc.setup(t, root, &o)
			head := testgit.Git(t, root, "rev-parse", "HEAD")
			before := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all")
			_, err := Migrate(context.Background(), o)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
			if testgit.Git(t, root, "rev-parse", "HEAD") != head || testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all") != before {
				t.Error("a refusal changed something")
			}
			if _, err := os.Stat(JournalPath(filepath.Join(root, ".git", "mbguard"))); err == nil {
				t.Error("a refusal left a journal")
			}
		})
	}
}

func TestMigrateResume(t *testing.T) {
	for _, step := range []string{"moves", "commit1", "memory"} {
		for _, cli := range []bool{false, true} {
			name := step
			if cli {
				name += "/git-cli"
			}
			t.Run(name, func(t *testing.T) {
				root := legacyRepo(t)
				old := entries(t, root)
				o := opts(root)
				o.GitCLI = cli
				o.FailAfter = step
				if _, err := Migrate(context.Background(), o); !errors.Is(err, ErrInjected) {
					t.Fatalf("injected stop: got %v", err)
				}
				o.FailAfter = ""
				res, err := Migrate(context.Background(), o)
				if err != nil {
					t.Fatalf("resume: %v", err)
				}
				if !res.Resumed || !res.Applied {
					t.Errorf("resume result: %+v", res)
				}
				if n := testgit.Git(t, root, "rev-list", "--count", "HEAD"); n != "3" {
					t.Errorf("%s commits, want start + 2", n)
				}
				for _, l := range strings.Split(testgit.Git(t, root, "diff", "-M", "--name-status", "HEAD~2", "HEAD~1"), "\n") {
					if !strings.HasPrefix(l, "R100\t") {
						t.Errorf("not a pure rename after resume: %q", l)
					}
				}
				if st := testgit.Git(t, root, "status", "--porcelain"); st != "" {
					t.Errorf("work tree not clean after resume:\n%s", st)
				}
				testgit.Git(t, root, "fsck", "--strict", "--no-dangling")
				assertLossless(t, old, root)
			})
		}
	}
}

func TestMigrateRollback(t *testing.T) {
	for _, step := range []string{"moves", "commit1", "memory", ""} {
		t.Run("after "+step, func(t *testing.T) {
			root := legacyRepo(t)
			start := testgit.Git(t, root, "rev-parse", "HEAD")
			o := opts(root)
			o.FailAfter = step
			Migrate(context.Background(), o)
			o.Rollback, o.FailAfter = true, ""
			res, err := Migrate(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.RolledBack != start || testgit.Git(t, root, "rev-parse", "HEAD") != start {
				t.Errorf("HEAD not back at the start")
			}
			if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("not clean after rollback:\n%s", st)
			}
			if _, err := Migrate(context.Background(), o); !errors.Is(err, ErrRefused) {
				t.Errorf("second rollback: got %v, want nothing to roll back", err)
			}
		})
	}
}

func TestMigrateBadInput(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		check func(t *testing.T, root string, res MigrateResult)
	}{
		{"crlf and bom", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/active.md", "\ufeff# Active\r\n\r\n<!-- MACHINE_BLOCK_START -->\r\n- focus\r\n<!-- MACHINE_BLOCK_END -->\r\n\r\n<!-- USER_BLOCK_START -->\r\nmine\r\n<!-- USER_BLOCK_END -->\r\n")
			testgit.Write(t, root, "memory-bank/brief.md", "\ufeff# Brief\r\n\r\nA thing.\r\n")
		}, func(t *testing.T, root string, res MigrateResult) {
			mem := read(t, root, "memory-bank/MEMORY.md")
			if u, ok := bank.UserBlock(mem); !ok || string(u) != "\r\nmine\r\n" {
				t.Errorf("user block %q", u)
			}
			if bytes.Contains(mem, []byte("\ufeff")) {
				t.Error("BOM carried into MEMORY.md")
			}
		}},
		{"empty legacy files", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/brief.md", "")
			testgit.Write(t, root, "memory-bank/_index.md", "")
			testgit.Write(t, root, "memory-bank/active.md", "\n\n")
		}, func(t *testing.T, root string, res MigrateResult) {
			if res.Legacy {
				t.Error("legacy.md written for empty files")
			}
		}},
		{"active without blocks", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/active.md", "# Active\n\n- plain focus\n")
		}, func(t *testing.T, root string, res MigrateResult) {
			if !bytes.Contains(read(t, root, "memory-bank/MEMORY.md"), []byte("- plain focus")) {
				t.Error("focus lost")
			}
		}},
		{"broken markers", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/brief.md", "# Brief\n<!-- USER_BLOCK_END -->\n<!-- USER_BLOCK_START -->\nupside down\n")
		}, func(t *testing.T, root string, res MigrateResult) {
			if !res.Legacy || !bytes.Contains(read(t, root, "memory-bank/legacy.md"), []byte("upside down")) {
				t.Error("broken file not kept verbatim in legacy.md")
			}
			if _, ok := bank.ParseBlocks(read(t, root, "memory-bank/legacy.md")); !ok {
				t.Error("legacy.md has live markers")
			}
		}},
		{"non-utf8 name and non-md file", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/docs/caf\xe9.md", "latin-1 name\n")
			testgit.Write(t, root, "memory-bank/docs/diagram.png", "\x89PNG")
		}, func(t *testing.T, root string, res MigrateResult) {
			if _, err := os.Stat(filepath.Join(root, "memory-bank/details/design/caf\xe9.md")); err != nil {
				t.Error(err)
			}
			if !strings.Contains(strings.Join(res.Plan.Notes, "\n"), "diagram.png is not Markdown") {
				t.Errorf("non-md not called out: %v", res.Plan.Notes)
			}
		}},
		{"symlink carried", func(t *testing.T, root string) {
			if err := os.Symlink("design-payments.md", filepath.Join(root, "memory-bank/docs/link.md")); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, root string, res MigrateResult) {
			if tg, err := os.Readlink(filepath.Join(root, "memory-bank/details/design/link.md")); err != nil || tg != "design-payments.md" {
				t.Errorf("symlink: %q %v", tg, err)
			}
			if !strings.Contains(strings.Join(res.Plan.Notes, "\n"), "symlink") {
				t.Error("symlink not called out")
			}
		}},
		{"read-only file", func(t *testing.T, root string) {
			testgit.Write(t, root, "memory-bank/tech.md", "# Tech\n\nfrozen\n")
			os.Chmod(filepath.Join(root, "memory-bank/tech.md"), 0o444)
		}, func(t *testing.T, root string, res MigrateResult) {
			fi, err := os.Stat(filepath.Join(root, "memory-bank/details/tech.md"))
			if err != nil || fi.Mode().Perm() != 0o444 {
				t.Errorf("read-only file: %v %v", fi, err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := legacyRepo(t)
			tc.setup(t, root)
			testgit.Commit(t, root, "bad input")
			old := entries(t, root)
			res, err := Migrate(context.Background(), opts(root))
			if err != nil {
				t.Fatal(err)
			}
			if st := testgit.Git(t, root, "status", "--porcelain"); st != "" {
				t.Errorf("not clean:\n%s", st)
			}
			assertLossless(t, old, root)
			tc.check(t, root, res)
		})
	}
}

func TestMigrateDiskFull(t *testing.T) {
	root := legacyRepo(t)
	o := opts(root)
	full := errors.New("no space left on device")
	o.Write = func(string, []byte, os.FileMode) error { return full }
	if _, err := Migrate(context.Background(), o); !errors.Is(err, full) {
		t.Fatalf("got %v", err)
	}
	for _, e := range []string{"brief.md", "active.md", "_index.md"} {
		if read(t, root, "memory-bank/"+e) == nil {
			t.Errorf("%s lost after a failed write", e)
		}
	}
	o.Write = nil
	if res, err := Migrate(context.Background(), o); err != nil || !res.Resumed {
		t.Fatalf("resume after the disk was freed: %+v %v", res, err)
	}
}

func TestMigrateNoGit(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"brief.md", "active.md", "tech.md", "docs/a.md"} {
		testgit.Write(t, dir, "memory-bank/"+f, "# "+f+"\n\nbody of "+f+"\n")
	}
	res, err := Migrate(context.Background(), MigrateOptions{Root: dir, Apply: true, NoGit: true})
	if err != nil || len(res.Warnings) == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	for _, f := range []string{"MEMORY.md", "details/tech.md", "details/design/a.md"} {
		if read(t, dir, "memory-bank/"+f) == nil {
			t.Errorf("%s missing", f)
		}
	}
}

func TestMigratePlanChangesNothing(t *testing.T) {
	root := legacyRepo(t)
	o := opts(root)
	o.Apply = false
	res, err := Migrate(context.Background(), o)
	if err != nil || res.Applied || len(res.Plan.Moves) != 7 || len(res.Plan.Delete) != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("plan changed the tree:\n%s", st)
	}
}

func TestMigrateLinkedWorktree(t *testing.T) {
	root := legacyRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Git(t, root, "worktree", "add", "-q", "-b", "side", wt)
	gd := testgit.Git(t, wt, "rev-parse", "--absolute-git-dir")
	o := MigrateOptions{Root: wt, GitDir: gd, StateDir: filepath.Join(gd, "mbguard"), Apply: true}
	if _, err := Migrate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Git(t, wt, "rev-list", "--count", "HEAD"); n != "3" {
		t.Errorf("%s commits on the worktree branch", n)
	}
	if _, err := exec.LookPath("git"); err == nil && testgit.Git(t, wt, "status", "--porcelain") != "" {
		t.Error("worktree not clean")
	}
}
