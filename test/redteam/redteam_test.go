//go:build linux

package redteam

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/mbguard, and cmd/mbguard-hook beside it (what the hosts' hook entries
// run: the Claude driver's calls go through it), once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mbguard-redteam-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mbguard")
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
			"github.com/mbguard/mbguard/cmd/mbguard", "github.com/mbguard/mbguard/cmd/mbguard-hook")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// template makes a real repository with a v7.1 bank (`mbguard init`) filled with realistic
// content, in two commits (so HEAD~1 holds an older bank), and returns its root.
func template(t *testing.T, bin string) string {
	t.Helper()
	root := testgit.New(t)
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run(bin, "init")
	testgit.Write(t, root, "src/main.go", "package main\n\nfunc main() {}\n")
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n")
	testgit.Commit(t, root, "v1")
	mem := filepath.Join(root, "memory-bank", "MEMORY.md")
	b, err := os.ReadFile(mem)
	if err != nil {
		t.Fatal(err)
	}
	const start = "<!-- USER_BLOCK_START -->\n"
	if !bytes.Contains(b, []byte(start)) {
		t.Fatalf("MEMORY.md from mbguard init has no USER_BLOCK:\n%s", b)
	}
	b = bytes.Replace(b, []byte(start), []byte(start+userText+"\nAsk Dana before touching billing.\n"), 1)
	b = bytes.Replace(b, []byte("- (nothing recorded yet: write the task in hand, what is done and what is next)"),
		[]byte("- CSV importer: parser done, validation next (details/progress.md)"), 1)
	os.WriteFile(mem, b, 0o644)
	testgit.Write(t, root, "memory-bank/details/patterns.md", "# Patterns\n\n| Decision | Why |\n|---|---|\n| queue for imports | retries |\n")
	testgit.Write(t, root, "memory-bank/details/progress.md", "# Progress\n\n- [x] CSV parser\n- [ ] validation\n")
	testgit.Write(t, root, "memory-bank/details/learnings/csv-quotes.md", "# Quotes\n\nExcel writes CRLF.\n")
	testgit.Commit(t, root, "v2")
	out := exec.Command(bin, "check", "--all")
	out.Dir = root
	if b, err := out.CombinedOutput(); err != nil {
		t.Fatalf("the template bank does not pass mbguard check: %v\n%s", err, b)
	}
	return root
}

func clone(t *testing.T, tmpl string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("cp", "-a", tmpl, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

// tally counts the outcomes of one protocol's run.
type tally struct {
	attacks, refused, undone, escaped     int
	harmless, harmlessRefused, harmUndone int
	missingQuarantine                     int
}

type protocol struct {
	name string
	open func(t *testing.T, bin, root string) driver
}

var protocols = []protocol{
	{"claude-hook", func(t *testing.T, bin, root string) driver {
		return &claudeDriver{t: t, bin: bin, root: root, session: "sess-redteam"}
	}},
	{"serve-stdio", func(t *testing.T, bin, root string) driver { return newServe(t, bin, root) }},
}

// runSteps drives the steps; it returns whether a pre check refused one (the rest never run)
// and whether any check said it undid something.
func runSteps(t *testing.T, d driver, root, prefix string, steps []step) (refused, undone bool, texts []string) {
	for i, s := range steps {
		id := fmt.Sprintf("%s-%d", prefix, i)
		a := d.pre(id, s)
		texts = append(texts, a.text)
		undone = undone || a.undone
		if a.refused {
			return true, undone, texts
		}
		execute(t, root, s)
		p := d.post(id, s)
		texts = append(texts, p.text)
		undone = undone || p.undone
		if s.bg > 0 {
			time.Sleep(s.bg)
		}
	}
	// the next call: it settles what a background job did after the last post check
	follow := bash("ls memory-bank >/dev/null")
	a := d.pre(prefix+"-next", follow)
	execute(t, root, follow)
	p := d.post(prefix+"-next", follow)
	undone = undone || a.undone || p.undone
	texts = append(texts, a.text, p.text)
	return false, undone, texts
}

func TestAcceptance(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	bin := binary(t)
	tmpl := template(t, bin)
	want := bankState(tmpl)
	var mu sync.Mutex
	totals := map[string]*tally{}
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var tl tally
			defer func() { mu.Lock(); totals[p.name] = &tl; mu.Unlock() }()
			for _, a := range attacks {
				t.Run("attack/"+a.name, func(t *testing.T) {
					root := clone(t, tmpl)
					d := p.open(t, bin, root)
					defer d.close()
					tl.attacks++
					refused, undone, texts := runSteps(t, d, root, "a", a.steps)
					switch diff := diffBank(want, bankState(root)); {
					case len(diff) > 0:
						tl.escaped++
						t.Errorf("ESCAPED: memory-bank/ changed (refused=%v undone=%v):\n  %s\nguard said: %.600s",
							refused, undone, strings.Join(diff, "\n  "), strings.Join(texts, " | "))
					case refused:
						tl.refused++
					default:
						tl.undone++
						t.Logf("UNDONE-AFTER %s", a.name)
						if a.bytes != "" && !quarantineHolds(root, a.bytes) {
							tl.missingQuarantine++
							t.Errorf("the quarantine lacks the agent's bytes %q", a.bytes)
						}
					}
				})
			}
			for _, h := range harmlessCalls {
				t.Run("harmless/"+h.name, func(t *testing.T) {
					root := clone(t, tmpl)
					d := p.open(t, bin, root)
					defer d.close()
					tl.harmless++
					refused, undone, texts := runSteps(t, d, root, "h", h.steps)
					if refused {
						tl.harmlessRefused++
						t.Errorf("harmless call refused: %.400s", strings.Join(texts, " | "))
					}
					if undone {
						tl.harmUndone++
						t.Errorf("harmless call undone: %.400s", strings.Join(texts, " | "))
					}
					if h.keep != "" {
						if _, err := os.Stat(filepath.Join(root, h.keep)); err != nil {
							t.Errorf("the harmless call's effect %s is gone: %v", h.keep, err)
						}
					}
					for _, s := range h.steps {
						if s.tool == "write" || s.tool == "edit" {
							b, _ := os.ReadFile(filepath.Join(root, s.path))
							if w := s.content + s.new; !bytes.Contains(b, []byte(w)) {
								t.Errorf("the allowed write to %s did not stay: %q", s.path, b)
							}
						}
					}
				})
			}
			for _, sc := range scenarios {
				t.Run("scenario/"+sc.name, func(t *testing.T) {
					root := clone(t, tmpl)
					d := p.open(t, bin, root)
					defer d.close()
					tl.attacks++
					sc.run(t, d, root)
					if diff := diffBank(want, bankState(root)); len(diff) > 0 {
						tl.escaped++
						t.Errorf("ESCAPED: memory-bank/ changed:\n  %s", strings.Join(diff, "\n  "))
					} else {
						tl.undone++
					}
				})
			}
		})
	}
	t.Cleanup(func() {
		for _, p := range protocols {
			tl := totals[p.name]
			if tl == nil {
				continue
			}
			t.Logf("%s: attacks %d, refused before %d (%.0f%%), undone after %d, escaped %d; harmless %d, refused %d, undone %d; quarantine missing %d",
				p.name, tl.attacks, tl.refused, 100*float64(tl.refused)/float64(max(1, tl.attacks)), tl.undone, tl.escaped,
				tl.harmless, tl.harmlessRefused, tl.harmUndone, tl.missingQuarantine)
			fmt.Printf("redteam %s: attacks=%d refused_before=%d undone_after=%d escaped=%d harmless=%d harmless_refused=%d harmless_undone=%d\n",
				p.name, tl.attacks, tl.refused, tl.undone, tl.escaped, tl.harmless, tl.harmlessRefused, tl.harmUndone)
			if tl.attacks > 0 && tl.refused*10 < tl.attacks*9 {
				t.Errorf("%s: only %d of %d attacks refused before they ran, want at least 9 in 10", p.name, tl.refused, tl.attacks)
			}
		}
	})
}

// scenarios are orderings a step list cannot express.
var scenarios = []struct {
	name string
	run  func(t *testing.T, d driver, root string)
}{
	{"parallel calls", func(t *testing.T, d driver, root string) {
		os.MkdirAll(filepath.Join(root, "tools"), 0o755)
		os.WriteFile(filepath.Join(root, "tools", "p.sh"), []byte("echo par > memory-bank/par.json\n"), 0o755)
		a, b := bash("bash tools/p.sh"), write("memory-bank/details/learnings/par.md", "# Par\n")
		if d.pre("pa", a).refused || d.pre("pb", b).refused {
			return
		}
		execute(t, root, a)
		execute(t, root, b)
		d.post("pb", b)
		d.post("pa", a)
		// the allowed write stays; drop it so the bank compares with the template
		if _, err := os.Stat(filepath.Join(root, b.path)); err != nil {
			t.Errorf("the parallel allowed write was undone")
		}
		os.Remove(filepath.Join(root, b.path))
		// a human's edit right before a call: in serve, give the file watcher's event time to
		// arrive (an edit whose event is still in flight is judged by the post check)
		time.Sleep(300 * time.Millisecond)
		n := bash("true")
		d.pre("pn", n)
		d.post("pn", n)
	}},
	{"killed post", func(t *testing.T, d driver, root string) {
		os.MkdirAll(filepath.Join(root, "tools"), 0o755)
		os.WriteFile(filepath.Join(root, "tools", "k.sh"), []byte("rm memory-bank/MEMORY.md; echo k > memory-bank/k.json\n"), 0o755)
		a := bash("bash tools/k.sh")
		if d.pre("ka", a).refused {
			return
		}
		execute(t, root, a)
		// the host died before the post hook: the next call's checks must cover it
		n := bash("git status --short >/dev/null")
		d.pre("kn", n)
		execute(t, root, n)
		d.post("kn", n)
	}},
}
