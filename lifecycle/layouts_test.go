package lifecycle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/scanner"
)

// historyRepo builds a repository from testdata/<name> with a history, as a bank grows: first
// every file's opening lines, then the files as they are, then an edit to progress.md or
// MEMORY.md (a file edited over time, whose history git log --follow must keep).
func historyRepo(t *testing.T, name string) string {
	t.Helper()
	root := testgit.New(t)
	src := filepath.Join("testdata", name)
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		lines := strings.SplitAfter(files[n], "\n")
		testgit.Write(t, root, n, strings.Join(lines[:min(3, len(lines))], ""))
	}
	testgit.Commit(t, root, "bank: first notes")
	for _, n := range names {
		testgit.Write(t, root, n, files[n])
	}
	testgit.Commit(t, root, "bank: fill in")
	for _, n := range []string{"memory-bank/progress.md", "memory-bank/MEMORY.md", ".cursor/rules/memory-bank/progress.mdc", ".memory-bank/progress.md"} {
		if c, ok := files[n]; ok {
			testgit.Write(t, root, n, c+"\n- Edited later.\n")
		}
	}
	testgit.Commit(t, root, "bank: later edit")
	return root
}

// layoutCase is one convention's fixture and what its migration must do.
type layoutCase struct {
	name      string
	kind      bank.Kind
	moves     map[string]string // from → to, every move of the plan
	merged    []string          // entry files whose lines must all reach MEMORY.md or legacy.md (under memory-bank/ unless a path)
	followed  string            // a moved file edited over time
	links     map[string]string // file after migration → a link it must hold
	untouched map[string]string // file after migration → a link that must stay as written
	broken    []string          // targets listed as unresolvable
	kept      []string          // unknown files left in place
}

var layoutCases = []layoutCase{
	{
		// A Cursor memory bank kept as rules: .mdc files with front matter, moved straight to
		// their v7.1 places; the rules and AGENTS.md that name them follow.
		name: "cursor-rules", kind: bank.KindCursor,
		moves: map[string]string{
			".cursor/rules/memory-bank/productContext.mdc": "memory-bank/details/requirements/product-context.md",
			".cursor/rules/memory-bank/systemPatterns.mdc": "memory-bank/details/patterns.md",
			".cursor/rules/memory-bank/techContext.mdc":    "memory-bank/details/tech.md",
			".cursor/rules/memory-bank/progress.mdc":       "memory-bank/details/progress.md",
			".cursor/rules/memory-bank/tasks.mdc":          "memory-bank/details/tasks.md",
			".cursor/rules/memory-bank/style-guide.mdc":    "memory-bank/details/design/style-guide.md",
			".cursor/rules/memory-bank/shopping-rules.mdc": "memory-bank/shopping-rules.md",
		},
		merged:   []string{".cursor/rules/memory-bank/projectbrief.mdc", ".cursor/rules/memory-bank/activeContext.mdc"},
		followed: "memory-bank/details/progress.md",
		links: map[string]string{
			"memory-bank/MEMORY.md":                               "[mdc:memory-bank/details/progress.md](mdc:memory-bank/details/progress.md)",
			"memory-bank/details/requirements/product-context.md": "(../tech.md)",
			"memory-bank/details/tasks.md":                        "(../MEMORY.md)",
			"memory-bank/details/tech.md":                         "(design/style-guide.md)",
			"AGENTS.md":                                           "[the brief](memory-bank/MEMORY.md)",
			".cursor/rules/memory-bank.mdc":                       "@memory-bank/details/patterns.md",
		},
		untouched: map[string]string{
			".cursor/rules/memory-bank.mdc": "globs: .cursor/rules/memory-bank/*.mdc",
			"memory-bank/details/tech.md":   "description: Stack and tooling",
		},
	},
	{
		// The hidden .memory-bank/ of other memory-bank skills, Cline's files in snake case.
		name: "hidden", kind: bank.KindCline,
		moves: map[string]string{
			".memory-bank/system_patterns.md":              "memory-bank/details/patterns.md",
			".memory-bank/tech_context.md":                 "memory-bank/details/tech.md",
			".memory-bank/progress.md":                     "memory-bank/details/progress.md",
			".memory-bank/decisions/0001-offline-first.md": "memory-bank/decisions/0001-offline-first.md",
			".memory-bank/.gitignore":                      "memory-bank/.gitignore",
		},
		merged:   []string{".memory-bank/projectBrief.md", ".memory-bank/active_context.md"},
		followed: "memory-bank/details/progress.md",
		links: map[string]string{
			"memory-bank/MEMORY.md":                       "(details/patterns.md#alerts)",
			"memory-bank/decisions/0001-offline-first.md": "(../details/tech.md)",
			"docs/alerts.md":                              "(../memory-bank/details/tech.md)",
			"CLAUDE.md":                                   "`memory-bank/MEMORY.md` and `memory-bank/MEMORY.md`",
		},
	},
	{
		name: "cline", kind: bank.KindCline,
		moves: map[string]string{
			"memory-bank/techContext.md":    "memory-bank/details/tech.md",
			"memory-bank/systemPatterns.md": "memory-bank/details/patterns.md",
			"memory-bank/progress.md":       "memory-bank/details/progress.md",
			"memory-bank/productContext.md": "memory-bank/details/requirements/product-context.md",
		},
		merged:   []string{"projectbrief.md", "activeContext.md"},
		followed: "memory-bank/details/progress.md",
		links: map[string]string{
			"memory-bank/MEMORY.md":                               "(details/patterns.md#idempotency)",
			"memory-bank/details/tech.md":                         "(../../README.md)",
			"memory-bank/details/requirements/product-context.md": "(../patterns.md)",
			"memory-bank/integrations/stripe.md":                  "(../details/tech.md)",
		},
		untouched: map[string]string{
			"memory-bank/MEMORY.md":              "`[inline](techContext.md)`",
			"memory-bank/integrations/stripe.md": "[p]: ../details/patterns.md",
		},
		broken: []string{"old-plan.md"},
		kept:   []string{"memory-bank/integrations"},
	},
	{
		name: "roo", kind: bank.KindRoo,
		moves: map[string]string{
			"memory-bank/decisionLog.md":    "memory-bank/details/design/decision-log.md",
			"memory-bank/systemPatterns.md": "memory-bank/details/patterns.md",
			"memory-bank/progress.md":       "memory-bank/details/progress.md",
			"memory-bank/productContext.md": "memory-bank/details/requirements/product-context.md",
		},
		merged:   []string{"activeContext.md"},
		followed: "memory-bank/details/progress.md",
		links: map[string]string{
			"memory-bank/details/progress.md": "(design/decision-log.md)",
			"memory-bank/MEMORY.md":           "(details/design/decision-log.md)",
		},
	},
	{
		name: "cursor", kind: bank.KindCursor,
		moves: map[string]string{
			"memory-bank/tasks.md":                       "memory-bank/details/tasks.md",
			"memory-bank/techContext.md":                 "memory-bank/details/tech.md",
			"memory-bank/systemPatterns.md":              "memory-bank/details/patterns.md",
			"memory-bank/progress.md":                    "memory-bank/details/progress.md",
			"memory-bank/productContext.md":              "memory-bank/details/requirements/product-context.md",
			"memory-bank/style-guide.md":                 "memory-bank/details/design/style-guide.md",
			"memory-bank/creative/creative-auth.md":      "memory-bank/details/design/creative/creative-auth.md",
			"memory-bank/reflection/reflection-login.md": "memory-bank/details/learnings/reflection/reflection-login.md",
			"memory-bank/archive/archive-login.md":       "memory-bank/details/archive/archive-login.md",
		},
		merged:   []string{"projectbrief.md", "activeContext.md"},
		followed: "memory-bank/details/progress.md",
		links: map[string]string{
			"memory-bank/details/archive/archive-login.md":         "(../design/creative/creative-auth.md)",
			"memory-bank/details/tasks.md":                         "(design/creative/creative-auth.md)",
			"memory-bank/details/design/creative/creative-auth.md": "(../../tech.md)",
			"memory-bank/details/tech.md":                          "(design/style-guide.md)",
			"memory-bank/MEMORY.md":                                "(details/tasks.md)",
		},
	},
	{
		// Cline's files plus a Claude-style MEMORY.md without block markers, as found in real
		// repositories: migrated as Cline, the old MEMORY.md becoming the USER_BLOCK.
		name: "cline-memory", kind: bank.KindCline,
		moves: map[string]string{
			"memory-bank/techContext.md":    "memory-bank/details/tech.md",
			"memory-bank/systemPatterns.md": "memory-bank/details/patterns.md",
			"memory-bank/progress.md":       "memory-bank/details/progress.md",
			// the tasks/ folder many Cline banks add (an index and one file per task)
			"memory-bank/tasks/_index.md":                 "memory-bank/details/tasks/_index.md",
			"memory-bank/tasks/TASK001-split-pipeline.md": "memory-bank/details/tasks/TASK001-split-pipeline.md",
			"memory-bank/tasks/TASK002-map-view.md":       "memory-bank/details/tasks/TASK002-map-view.md",
		},
		merged:   []string{"projectbrief.md", "activeContext.md", "MEMORY.md"},
		followed: "memory-bank/details/progress.md",
		links: map[string]string{
			"memory-bank/plans.md":                                "(details/tech.md)",
			"memory-bank/MEMORY.md":                               "[techContext.md](details/tech.md)",
			"memory-bank/details/tasks/TASK001-split-pipeline.md": "(../patterns.md)",
		},
		untouched: map[string]string{
			"memory-bank/details/tasks/_index.md": "(TASK002-map-view.md)",
			"memory-bank/plans.md":                "[notes/](notes/)",
		},
		kept: []string{"memory-bank/plans.md", "memory-bank/notes"},
	},
	{
		name: "unmarked", kind: bank.KindUnmarked,
		merged: []string{"MEMORY.md"}, followed: "memory-bank/MEMORY.md",
	},
}

// labelRe is a migration commit's subject: named for its step, never counted.
var labelRe = regexp.MustCompile(`^memory-bank: .*\(mbguard migrate: (renames|MEMORY\.md|links)\)$`)

func TestMigrateLayouts(t *testing.T) {
	for _, lc := range layoutCases {
		for _, cli := range []bool{false, true} {
			name := lc.name
			if cli {
				name += "/git-cli"
			}
			t.Run(name, func(t *testing.T) {
				root := historyRepo(t, lc.name)
				start := testgit.Git(t, root, "rev-parse", "HEAD")
				old := map[string][]byte{}
				for _, m := range lc.merged {
					if !strings.Contains(m, "/") {
						m = "memory-bank/" + m
					}
					old[m] = read(t, root, m)
				}
				plan, err := PlanMigration(root)
				if err != nil {
					t.Fatal(err)
				}
				if plan.Kind != lc.kind {
					t.Errorf("recognised %q, want %q", plan.Kind, lc.kind)
				}
				got := map[string]string{}
				for _, m := range plan.Moves {
					got[m.From] = m.To
				}
				if len(got) != len(lc.moves) {
					t.Errorf("plan moves %v, want %v", got, lc.moves)
				}
				for f, to := range lc.moves {
					if got[f] != to {
						t.Errorf("plan moves %s to %q, want %q", f, got[f], to)
					}
				}
				for _, k := range lc.kept {
					if !strings.Contains(strings.Join(plan.Notes, "\n"), k+" is not part of the") {
						t.Errorf("unknown %s not listed in the notes: %v", k, plan.Notes)
					}
				}

				o := opts(root)
				o.GitCLI = cli
				res, err := Migrate(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				commits := strings.Fields(testgit.Git(t, root, "rev-list", start+"..HEAD"))
				if len(res.Commits) != len(commits) {
					t.Fatalf("reported %d commits, made %d: %+v", len(res.Commits), len(commits), res.Commits)
				}
				for _, c := range res.Commits {
					if c.Hash == start {
						t.Error("the user's own HEAD reported as a migration commit")
					}
					// named for what they do: "1/2", "2/2" and then a third once miscounted
					if !labelRe.MatchString(c.Subject) {
						t.Errorf("commit subject %q does not name its step", c.Subject)
					}
				}
				if res.NoMoves != (len(lc.moves) == 0) {
					t.Errorf("NoMoves = %v with %d moves", res.NoMoves, len(lc.moves))
				}

				// commit 1: pure renames, every byte kept
				c1, c2 := start, ""
				if len(lc.moves) > 0 {
					c1 = res.Commits[0].Hash
					ns := strings.Split(testgit.Git(t, root, "diff", "-M", "--name-status", start, c1), "\n")
					if len(ns) != len(lc.moves) {
						t.Errorf("commit 1 has %d changes, want %d:\n%s", len(ns), len(lc.moves), strings.Join(ns, "\n"))
					}
					for _, l := range ns {
						f := strings.Split(l, "\t")
						if len(f) != 3 || f[0] != "R100" || lc.moves[f[1]] != f[2] {
							t.Errorf("not one of the planned pure renames: %q", l)
						}
					}
					for f, to := range lc.moves {
						if testgit.Git(t, root, "rev-parse", start+":"+f) != testgit.Git(t, root, "rev-parse", c1+":"+to) {
							t.Errorf("%s changed on its way to %s", f, to)
						}
					}
					c2 = res.Commits[1].Hash
				} else {
					c2 = res.Commits[0].Hash
				}
				// commit 2: nothing lost from the entry files
				have := map[string]bool{}
				for _, f := range []string{"memory-bank/MEMORY.md", "memory-bank/legacy.md"} {
					out, _ := gitShow(root, c2+":"+f)
					for _, l := range strings.Split(out, "\n") {
						have[norm(l)] = true
					}
				}
				for name, b := range old {
					for _, l := range strings.Split(string(b), "\n") {
						if n := norm(l); n != "" && !have[n] {
							t.Errorf("line of %s lost: %q", name, l)
						}
					}
				}
				// history through the renames
				follow := testgit.Git(t, root, "log", "--follow", "--format=%s", "--", lc.followed)
				for _, s := range []string{"bank: first notes", "bank: later edit"} {
					if !strings.Contains(follow, s) {
						t.Errorf("git log --follow %s lost %q:\n%s", lc.followed, s, follow)
					}
				}
				testgit.Git(t, root, "fsck", "--strict", "--no-dangling")
				if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
					t.Errorf("work tree not clean:\n%s", st)
				}
				// links
				for f, want := range lc.links {
					if b := read(t, root, f); !strings.Contains(string(b), want) {
						t.Errorf("%s lacks the rewritten link %s:\n%s", f, want, b)
					}
				}
				for f, want := range lc.untouched {
					if b := read(t, root, f); !strings.Contains(string(b), want) {
						t.Errorf("%s lacks %s, which must stay as written:\n%s", f, want, b)
					}
				}
				var broken []string
				for _, l := range res.Unresolved {
					broken = append(broken, l.Target)
				}
				for _, b := range lc.broken {
					if !strings.Contains(strings.Join(broken, " "), b) {
						t.Errorf("unresolvable link %s not listed: %v", b, broken)
					}
				}
				if len(res.Rewritten) > 0 {
					// the links commit touches nothing but links: same files, same line count
					last := res.Commits[len(res.Commits)-1]
					if !strings.HasPrefix(last.Subject, "memory-bank: point links") {
						t.Fatalf("last commit %q is not the links commit", last.Subject)
					}
					for _, l := range strings.Split(testgit.Git(t, root, "diff", "--name-status", c2, last.Hash), "\n") {
						if !strings.HasPrefix(l, "M\t") {
							t.Errorf("links commit does more than edit files: %q", l)
						}
					}
				}
				checkClean(t, root)
				// a second run does nothing
				head := testgit.Git(t, root, "rev-parse", "HEAD")
				again, err := Migrate(context.Background(), o)
				if err != nil || !again.NoOp || testgit.Git(t, root, "rev-parse", "HEAD") != head {
					t.Errorf("second run: %+v, %v", again, err)
				}
				// and a rollback restores the start exactly
				o.Rollback = true
				if _, err := Migrate(context.Background(), o); err != nil {
					t.Fatal(err)
				}
				if testgit.Git(t, root, "rev-parse", "HEAD") != start {
					t.Error("rollback did not restore HEAD")
				}
				if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
					t.Errorf("not clean after rollback:\n%s", st)
				}
			})
		}
	}
}

// TestMigrateLayoutsResume stops each run at every step and requires the resumed run to end
// with the tree an uninterrupted run makes.
func TestMigrateLayoutsResume(t *testing.T) {
	for _, lc := range layoutCases {
		root := historyRepo(t, lc.name)
		if _, err := Migrate(context.Background(), opts(root)); err != nil {
			t.Fatal(err)
		}
		want := testgit.Git(t, root, "rev-parse", "HEAD^{tree}")
		for _, step := range []string{"moves", "commit1", "memory", "commit2", "links", "git-cli/moves", "git-cli/links"} {
			if strings.HasPrefix(step, "git-cli/") && lc.name != "cline" {
				continue // the git CLI path is the same for every layout; one is enough
			}
			t.Run(lc.name+"/"+step, func(t *testing.T) {
				root := historyRepo(t, lc.name)
				o := opts(root)
				o.FailAfter = step
				if s, ok := strings.CutPrefix(step, "git-cli/"); ok {
					o.GitCLI, o.FailAfter = true, s
				}
				_, err := Migrate(context.Background(), o)
				if err != nil && !errors.Is(err, ErrInjected) {
					t.Fatalf("injected stop: %v", err)
				}
				o.FailAfter = ""
				if _, err := Migrate(context.Background(), o); err != nil {
					t.Fatalf("resume: %v", err)
				}
				if got := testgit.Git(t, root, "rev-parse", "HEAD^{tree}"); got != want {
					t.Errorf("resumed run ends at tree %s, an uninterrupted one at %s", got, want)
				}
				if st := testgit.Git(t, root, "status", "--porcelain", "--untracked-files=all"); st != "" {
					t.Errorf("not clean after resume:\n%s", st)
				}
				testgit.Git(t, root, "fsck", "--strict", "--no-dangling")
			})
		}
	}
}

func TestMigrateNoRewriteLinks(t *testing.T) {
	root := historyRepo(t, "cline")
	o := opts(root)
	o.NoRewriteLinks = true
	res, err := Migrate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) != 2 || len(res.Rewritten) != 0 {
		t.Errorf("commits %+v, rewritten %v", res.Commits, res.Rewritten)
	}
	if b := read(t, root, "memory-bank/integrations/stripe.md"); !strings.Contains(string(b), "(../techContext.md)") {
		t.Errorf("a link was rewritten under --no-rewrite-links:\n%s", b)
	}
}

func TestMigrateMixedConventions(t *testing.T) {
	root := historyRepo(t, "cline")
	testgit.Write(t, root, "memory-bank/brief.md", "# Brief\n")
	testgit.Commit(t, root, "a second convention")
	_, err := Migrate(context.Background(), opts(root))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "mixes conventions") {
		t.Fatalf("got %v, want a refusal", err)
	}
}

// TestMigrateMixedUnmarked: the old MEMORY.md beside Cline's files is commit 2's USER_BLOCK
// byte for byte — or, when activeContext.md has a user block of its own, kept in legacy.md —
// and a MEMORY.md that has markers beside them is still refused.
func TestMigrateMixedUnmarked(t *testing.T) {
	t.Run("user block", func(t *testing.T) {
		root := historyRepo(t, "cline-memory")
		old := read(t, root, "memory-bank/MEMORY.md")
		o := opts(root)
		o.NoRewriteLinks = true
		res, err := Migrate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Plan.Rewrite) != 1 || len(res.Plan.Create) != 0 {
			t.Errorf("MEMORY.md is rewritten, not created: %+v", res.Plan)
		}
		u, ok := bank.UserBlock(read(t, root, "memory-bank/MEMORY.md"))
		if !ok || string(u) != "\n"+string(old) {
			t.Errorf("USER_BLOCK is not the old MEMORY.md byte for byte:\n%q\nwant\n%q", u, old)
		}
		if _, err := os.Stat(filepath.Join(root, "memory-bank", "legacy.md")); err == nil {
			t.Error("legacy.md made though nothing needed it")
		}
	})
	t.Run("active has a user block", func(t *testing.T) {
		root := historyRepo(t, "cline-memory")
		old := read(t, root, "memory-bank/MEMORY.md")
		mine := "\n- Mine: keep the CLI flags stable.\n"
		testgit.Write(t, root, "memory-bank/activeContext.md", string(read(t, root, "memory-bank/activeContext.md"))+"\n<!-- USER_BLOCK_START -->"+mine+"<!-- USER_BLOCK_END -->\n")
		testgit.Commit(t, root, "a user block in activeContext.md")
		plan, err := PlanMigration(root)
		if err != nil || !strings.Contains(fmtPlanMerges(plan), "legacy.md") {
			t.Fatalf("plan does not say the old MEMORY.md goes to legacy.md: %+v %v", plan.Merges, err)
		}
		if _, err := Migrate(context.Background(), opts(root)); err != nil {
			t.Fatal(err)
		}
		if u, _ := bank.UserBlock(read(t, root, "memory-bank/MEMORY.md")); string(u) != mine {
			t.Errorf("USER_BLOCK %q, want activeContext.md's %q", u, mine)
		}
		leg := string(read(t, root, "memory-bank/legacy.md"))
		for _, l := range strings.Split(string(old), "\n") {
			if l != "" && !strings.Contains(leg, l) && !strings.Contains(l, "techContext.md") {
				t.Errorf("line of the old MEMORY.md not in legacy.md: %q", l)
			}
		}
		checkClean(t, root)
	})
	t.Run("marked MEMORY.md", func(t *testing.T) {
		root := historyRepo(t, "cline-memory")
		testgit.Write(t, root, "memory-bank/MEMORY.md", "<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n")
		testgit.Commit(t, root, "markers")
		_, err := Migrate(context.Background(), opts(root))
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "MEMORY.md, activeContext.md") {
			t.Fatalf("got %v, want a refusal naming the files", err)
		}
	})
}

// A folder the layout does not know stays where it is; when it holds files check will flag,
// the plan says so, naming one, so a check that fails after the migration is no surprise.
func TestMigratePlanNamesNonMarkdownInKeptFolders(t *testing.T) {
	root := historyRepo(t, "cline-memory")
	testgit.Write(t, root, "memory-bank/commands/echo.yaml", "run: echo\n")
	testgit.Write(t, root, "memory-bank/commands/readme.md", "# Commands\n")
	testgit.Write(t, root, "memory-bank/notes/a.md", "# A\n")
	testgit.Commit(t, root, "folders of their own")
	plan, err := PlanMigration(root)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(plan.Notes, "\n")
	if !strings.Contains(notes, "memory-bank/commands is not part of the Cline layout: left where it is (it holds 1 file(s) that are not Markdown, such as commands/echo.yaml") {
		t.Errorf("notes do not name the non-Markdown file:\n%s", notes)
	}
	if strings.Contains(notes, "notes is not part of the Cline layout: left where it is (") {
		t.Errorf("a folder of Markdown files gets a warning:\n%s", notes)
	}
	res, err := Migrate(context.Background(), opts(root))
	if err != nil {
		t.Fatal(err)
	}
	if b := read(t, root, "memory-bank/MEMORY.md"); !strings.Contains(string(b), "(details/tasks/TASK002-map-view.md)") {
		t.Errorf("the link from activeContext.md into tasks/ was not carried into MEMORY.md: %v", res.Rewritten)
	}
	// a link to a folder that stays (notes/) is not broken: the folder held files before
	for _, l := range res.Unresolved {
		if strings.HasPrefix(l.Target, "notes") {
			t.Errorf("link to an existing folder listed as broken: %+v", l)
		}
	}
	if b := read(t, root, "memory-bank/plans.md"); !strings.Contains(string(b), "[notes/](notes/)") {
		t.Errorf("link to an unmoved folder changed:\n%s", b)
	}
}

func fmtPlanMerges(p Plan) string {
	var s []string
	for _, m := range p.Merges {
		s = append(s, m.From+" -> "+m.To)
	}
	return strings.Join(s, "\n")
}

// TestMigrateNoGitElsewhere: --no-git brings a bank kept elsewhere over to the same files a
// run with commits makes.
func TestMigrateNoGitElsewhere(t *testing.T) {
	for _, name := range []string{"cursor-rules", "hidden"} {
		t.Run(name, func(t *testing.T) {
			withGit, plain := historyRepo(t, name), historyRepo(t, name)
			if _, err := Migrate(context.Background(), opts(withGit)); err != nil {
				t.Fatal(err)
			}
			o := opts(plain)
			o.NoGit = true
			if _, err := Migrate(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			files := func(root string) map[string]string {
				out := map[string]string{}
				filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() && d.Name() == ".git" {
						return filepath.SkipDir
					}
					if !d.IsDir() {
						rel, _ := filepath.Rel(root, p)
						b, _ := os.ReadFile(p)
						out[filepath.ToSlash(rel)] = string(b)
					}
					return nil
				})
				return out
			}
			a, b := files(withGit), files(plain)
			for f, c := range a {
				if b[f] != c {
					t.Errorf("%s differs without git:\n%s\n---\n%s", f, c, b[f])
				}
			}
			for f := range b {
				if _, ok := a[f]; !ok {
					t.Errorf("%s only without git", f)
				}
			}
		})
	}
}

func TestMigrateNoGitLayouts(t *testing.T) {
	root := historyRepo(t, "cursor")
	o := opts(root)
	o.NoGit = true
	res, err := Migrate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rewritten) == 0 {
		t.Error("no link rewritten without git")
	}
	if b := read(t, root, "memory-bank/details/archive/archive-login.md"); !strings.Contains(string(b), "(../design/creative/creative-auth.md)") {
		t.Errorf("link not rewritten:\n%s", b)
	}
	checkClean(t, root)
}

func gitShow(root, spec string) (string, error) {
	return gitOut(root, "show", spec)
}

// checkClean runs mbguard check's rules on every file of the bank, as check --all does.
func checkClean(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(filepath.Join(root, "memory-bank"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, _ := os.ReadFile(p)
		fs, err := scanner.CheckFile(scanner.File{Path: filepath.ToSlash(rel), Size: int64(len(b)), Content: b}, scanner.Options{Minimum: bank.CurrentTemplate, Secrets: scanner.NewSecrets(root)})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Severity == scanner.SeverityError {
				t.Errorf("check: %s:%d %s %s", f.Path, f.Line, f.Rule, f.Message)
			}
		}
		return nil
	})
}
