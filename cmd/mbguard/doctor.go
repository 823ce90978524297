package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/lifecycle"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/watcher"
)

// Check outcomes.
const (
	checkOK   = "OK"
	checkWarn = "WARN"
	checkFail = "FAIL"
)

// doctorCheck is one line of `mbguard doctor`.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Next   string `json:"next,omitempty"`
}

// newDoctorCmd checks that mbguard is installed and working for this repository.
func newDoctorCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "doctor [--json] [--prune]", Short: "check installation, configuration, hooks, watcher and bank health", Args: noArgs}
	asJSON := c.Flags().Bool("json", false, "print JSON")
	reset := c.Flags().Bool("reset-known-good", false, "forget the known-good state of memory-bank/ when every copy of it was lost (check the bank first)")
	prune := c.Flags().Bool("prune", false, "remove the state mbguard keeps for repositories that no longer exist")
	confirm := c.Flags().Bool("confirm-user-files", false, "say that the user-level hook files mbguard reported as changed are as you want them (run it yourself, in a terminal)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if code, stop := e.refuseUnderAgent("doctor --reset-known-good/--confirm-user-files", *reset || *confirm); stop {
			return code
		}
		r, err := e.repo()
		if errors.Is(err, repo.ErrNotRepo) && !*reset {
			if *prune {
				pruneReport(e)
			}
			return e.printDoctor(e.doctorOutside(err), *asJSON)
		}
		if err != nil {
			return e.fail(err)
		}
		if *reset {
			if err := resetKnownGood(r); err != nil {
				return e.fail(err)
			}
		}
		if *prune {
			pruneReport(e)
		}
		if *confirm {
			if code, done := confirmUserFiles(e, r); done {
				return code
			}
		}
		checks := []doctorCheck{checkBinary(r.Root)}
		cfg, cerr := e.config(r.Root)
		checks = append(checks, checkConfig(cfg, cerr))
		home := e.getenv("HOME")
		checks = append(checks, checkHosts(r, e.getenv)...)
		checks = append(checks,
			checkGitHook(r, home),
			checkWatcher(ctx, r),
			checkQuarantine(r),
			checkKnownGood(r),
			checkWritable(r, home),
		)
		checks = append(checks, checkOrphans()...)
		checks = append(checks, checkJobReports(r, time.Now())...)
		checks = append(checks, checkLines(r, home, cfg, checks)...)
		checks = append(checks, checkBank(r, cfg)...)
		return e.printDoctor(checks, *asJSON)
	})
	return c
}

// printDoctor prints the checks (text or JSON) and returns the exit code: 1 when one failed.
func (e *env) printDoctor(checks []doctorCheck, asJSON bool) int {
	failed := false
	for _, ch := range checks {
		failed = failed || ch.Status == checkFail
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			OK     bool          `json:"ok"`
			Checks []doctorCheck `json:"checks"`
		}{!failed, checks}); err != nil {
			return e.fail(err)
		}
	} else {
		printDoctorText(e, checks)
	}
	if failed {
		return exitFindings
	}
	return exitOK
}

// printDoctorText prints one line per check, each next step once: the step of the first
// failure (else warning) closes the output, so it is not printed under its line too.
func printDoctorText(e *env, checks []doctorCheck) {
	next := ""
	for _, pass := range []string{checkFail, checkWarn} {
		for _, ch := range checks {
			if ch.Status == pass && next == "" {
				next = ch.Next
			}
		}
	}
	shown := map[string]bool{next: true}
	for _, ch := range checks {
		fmt.Fprintf(e.stdout, "%-4s  %-10s %s\n", ch.Status, ch.Name, ch.Detail)
		if ch.Status != checkOK && ch.Next != "" && !shown[ch.Next] {
			shown[ch.Next] = true
			fmt.Fprintf(e.stdout, "      %-10s next: %s\n", "", ch.Next)
		}
	}
	if next == "" {
		next = "nothing to do"
	}
	fmt.Fprintln(e.stdout, "next: "+next)
}

func checkBinary(root string) doctorCheck {
	ch := doctorCheck{Name: "binary"}
	self, _ := os.Executable()
	if s, err := filepath.EvalSymlinks(self); err == nil {
		self = s
	}
	if bin := projectBin(root); bin != "" {
		// the project's npm install: hooks call it through the project, not by name
		ch.Status, ch.Detail = checkOK, bin+" (this project's npm install, "+versionString()+"; hooks call it through the project)"
		return ch
	}
	found, err := exec.LookPath("mbguard")
	if err != nil {
		ch.Status, ch.Detail = checkWarn, "mbguard is not on PATH; hooks installed by name will not find it"
		ch.Next = "go install github.com/mbguard/mbguard/cmd/mbguard@latest (or add " + filepath.Dir(self) + " to PATH)"
		return ch
	}
	abs, _ := filepath.Abs(found)
	if s, err := filepath.EvalSymlinks(abs); err == nil {
		abs = s
	}
	if abs != self && abs != npmLauncher(self) { // npm's mbguard.js runs exactly this binary
		ch.Status, ch.Detail = checkWarn, fmt.Sprintf("PATH runs %s, not this binary (%s)", abs, self)
		ch.Next = "reinstall mbguard so hooks run the version you are checking"
		return ch
	}
	ch.Status, ch.Detail = checkOK, abs+" ("+versionString()+")"
	return ch
}

func checkConfig(cfg *config.Config, err error) doctorCheck {
	ch := doctorCheck{Name: "config"}
	switch {
	case err != nil:
		ch.Status, ch.Detail, ch.Next = checkFail, err.Error(), "fix the file named above; mbguard config shows the effective values"
	case cfg.Err() != nil:
		ch.Status, ch.Detail = checkFail, cfg.Err().Error()
		ch.Next = "fix the value (mbguard config shows where it came from); " + cfg.Meanwhile()
	default:
		ch.Status, ch.Detail = checkOK, "valid (mode "+cfg.Gating.Mode+")"
	}
	return ch
}

func checkClaude(r repo.Repo, home string) doctorCheck {
	ch := doctorCheck{Name: "claude"}
	files, user := claudeSettingsFiles(r, home)
	where, ourFiles, stop := readClaudeSettings(files)
	if stop.Status != "" {
		return stop
	}
	if len(where) == 0 {
		ch.Status, ch.Detail, ch.Next = checkWarn, "Claude Code hooks not installed", "mbguard install --agent claude"
		return ch
	}
	ch.Status, ch.Detail = checkOK, "hooks in "+strings.Join(where, ", ")
	if missing := hooks.ClaudeEventsWithout(ourFiles...); len(missing) > 0 {
		ch.Status, ch.Next = checkWarn, "mbguard install --agent claude"
		ch.Detail += ", but none for " + strings.Join(missing, ", ") + " (installed by an older mbguard)"
	}
	if len(where) > 1 && user != "" && user != files[0] && slices.Contains(where, user) {
		ch.Status, ch.Detail, ch.Next = twice("claude", where)
	}
	if port := hooks.ClaudeHTTPPort(ourFiles...); port > 0 && ch.Status == checkOK {
		ch.Detail += "; http hooks ask mbguard watch at " + hooks.HTTPURL(port)
		why, taken := watcher.HTTPListener(r, port)
		_, _, running := watcher.Running(r)
		switch {
		case taken:
			ch.Status, ch.Next = checkFail, "stop what listens there, then mbguard watch --stop and mbguard watch --detach"
			ch.Detail += ", but " + why + ": its answers are not mbguard's"
		case why != "" && !running:
			ch.Status, ch.Next = checkFail, "mbguard watch --detach"
			ch.Detail += ", and no watcher runs: every tool call they guard is refused"
		case why != "":
			ch.Status, ch.Next = checkFail, "read .git/mbguard/watch.log, then mbguard watch --stop and mbguard watch --detach"
			ch.Detail += ", and the watcher does not answer there: every tool call they guard is refused"
		}
	}
	return ch
}

// claudeSettingsFiles are the Claude Code settings files that may hold mbguard's hooks: the
// project's two, then the user's (user, "" without a home).
func claudeSettingsFiles(r repo.Repo, home string) (files []string, user string) {
	spec := host.Get("claude")
	for _, f := range spec.DoctorProject {
		files = append(files, filepath.Join(r.Root, filepath.FromSlash(f)))
	}
	if home != "" && filepath.IsAbs(home) {
		// without a home there is no user-level file: "" would name the project's own
		if user = (hooks.InstallOptions{Home: home}).UserPath(spec.DoctorUser[0]); user != files[0] {
			files = append(files, user)
		}
	}
	return files, user
}

// readClaudeSettings reads the settings files that exist: where are those holding mbguard's
// hooks, ourFiles their contents. stop, when its Status is set, is the check's result: a file
// that is not JSON, or the first whose hooks Claude Code rejects.
func readClaudeSettings(files []string) (where []string, ourFiles [][]byte, stop doctorCheck) {
	broken := doctorCheck{Name: "claude"}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			return nil, nil, doctorCheck{Name: "claude", Status: checkFail, Detail: p + " is not valid JSON (Claude Code ignores it)",
				Next: "fix the JSON, then run mbguard install --agent claude"}
		}
		ours := strings.Contains(string(b), "hook claude")
		if broken.Status == "" {
			broken = claudeBroken(p, b, ours)
		}
		if ours {
			where = append(where, p)
			ourFiles = append(ourFiles, b)
		}
	}
	return where, ourFiles, broken
}

// claudeBroken is the check's result for settings file p (content b) whose hooks do not
// validate (Status "" when they do): Claude Code drops the whole file, ours included.
func claudeBroken(p string, b []byte, ours bool) doctorCheck {
	broken := doctorCheck{Name: "claude"}
	probs := hooks.ClaudeHookProblems(b)
	if len(probs) == 0 {
		return broken
	}
	broken.Status, broken.Detail = checkWarn, p+": "+probs[0]+" — Claude Code ignores this whole file"
	if ours {
		broken.Status, broken.Detail = checkFail, broken.Detail+", mbguard's hooks in it included"
	}
	broken.Next = "fix or remove that hook entry in " + p + ", then run mbguard doctor"
	return broken
}

// checkPlugin is the doctor line of a host that runs mbguard's OpenCode plugin (OpenCode,
// Kilo Code): the project's plugin, else the user's.
func checkPlugin(r repo.Repo, opts hooks.InstallOptions, spec hooks.HostSpec) doctorCheck {
	home, cfgHome := opts.Home, opts.ConfigHome
	ch := doctorCheck{Name: spec.Name}
	step := "mbguard install --agent " + spec.Name
	best := ""
	var bestState hooks.PluginState = hooks.PluginMissing
	for _, global := range []bool{false, true} {
		o := hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: home, ConfigHome: cfgHome, Global: global}
		path, st, err := hooks.PluginStateOf(spec.Name, o)
		if err != nil {
			ch.Status, ch.Detail, ch.Next = checkFail, err.Error(), step
			return ch
		}
		if st == hooks.PluginCurrent || bestState == hooks.PluginMissing {
			best, bestState = path, st
		}
	}
	switch bestState {
	case hooks.PluginCurrent:
		ch.Status, ch.Detail = checkOK, "plugin current at "+best
	case hooks.PluginMissing:
		ch.Status, ch.Detail, ch.Next = checkWarn, spec.Title+" plugin not installed", step
	case hooks.PluginStale:
		ch.Status, ch.Detail, ch.Next = checkWarn, best+" is from another mbguard version", step
	case hooks.PluginEdited:
		ch.Status, ch.Detail, ch.Next = checkWarn, best+" was edited by hand", step+" (your edits are replaced)"
	default:
		ch.Status, ch.Detail, ch.Next = checkWarn, best+" was not written by mbguard", "move it aside, then "+step
	}
	return ch
}

// checkGitHook reports what really runs mbguard before a commit (pre-commit framework,
// lefthook, husky, or a hook where core.hooksPath points) and the install step that works.
func checkGitHook(r repo.Repo, home string) doctorCheck {
	ch := doctorCheck{Name: "git-hook"}
	st := hooks.GitHookState(hooks.InstallOptions{Root: r.Root, GitDir: r.GitDir, CommonDir: r.CommonDir, Home: home})
	if st.Installed {
		ch.Status, ch.Detail = checkOK, st.Detail
		return ch
	}
	ch.Status, ch.Detail, ch.Next = checkWarn, st.Detail, st.Next
	return ch
}

func checkWatcher(ctx context.Context, r repo.Repo) doctorCheck {
	ch := doctorCheck{Name: "watcher"}
	pid, sock, running := watcher.Running(r)
	if !running {
		ch.Status, ch.Detail, ch.Next = checkWarn, "not running (hooks work without it; out-of-band edits go unnoticed)", "mbguard watch --detach"
		return ch
	}
	c, err := watcher.Dial(r)
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var resp watcher.Response
		resp, err = c.Do(cctx, watcher.Request{Op: "ping"})
		cancel()
		c.Close()
		if err == nil && resp.Error != "" {
			err = errors.New(resp.Error)
		}
	}
	if err != nil {
		ch.Status, ch.Detail = checkFail, fmt.Sprintf("pid %d holds the lock but %s does not answer: %v", pid, sock, err)
		ch.Next = "mbguard watch --stop, then mbguard watch --detach"
		return ch
	}
	ch.Status, ch.Detail = checkOK, fmt.Sprintf("running (pid %d, socket %s)", pid, sock)
	if b, err := os.ReadFile(filepath.Join(r.StateDir(), hooks.StrayFile)); err == nil {
		// the hooks do not trust this watcher (another executable, other settings, started
		// under an agent's call): they decide in process
		line := strings.TrimSpace(string(b))
		why, next, _ := strings.Cut(line, " Next: ")
		if _, reason, ok := strings.Cut(why, "repository: "); ok {
			why = reason
		}
		why = strings.TrimSuffix(why, "; hooks decide in process.")
		ch.Status, ch.Detail, ch.Next = checkWarn, fmt.Sprintf("running (pid %d), but the hooks do not ask it and decide in process: %s", pid, why), strings.TrimSuffix(next, ".")
	}
	return ch
}

// checkBank checks the bank's layout, then MEMORY.md: one line per finding, or one saying it is
// well formed.
func checkBank(r repo.Repo, cfg *config.Config) []doctorCheck {
	ents, err := os.ReadDir(r.BankDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return []doctorCheck{{Name: "bank", Status: checkFail, Detail: err.Error(), Next: "make memory-bank/ readable"}}
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if ch, stop := checkBankLayout(r, bank.DetectLayout(err == nil, names), names); stop {
		return []doctorCheck{ch}
	}
	return checkEntry(r, cfg)
}

// checkBankLayout is the bank line for a layout mbguard does not gate as it is (stop false for
// the current one).
func checkBankLayout(r repo.Repo, layout bank.Layout, names []string) (ch doctorCheck, stop bool) {
	ch = doctorCheck{Name: "bank", Status: checkFail}
	if layout == bank.LayoutNone || layout == bank.LayoutEmpty {
		// init would start a second, empty bank beside one kept as Cursor rules or in .memory-bank/
		if l := lifecycle.ElsewhereLayout(r.Root); l != "" {
			ch.Detail, ch.Next = l+", not in memory-bank/ (nothing is gated)", "run mbguard migrate --apply (mbguard migrate shows the plan first)"
			return ch, true
		}
	}
	switch layout {
	case bank.LayoutNone:
		ch.Detail, ch.Next = "no memory-bank/ in "+r.Root+" (nothing is gated)", "run mbguard init"
	case bank.LayoutEmpty:
		ch.Status, ch.Detail, ch.Next = checkWarn, "memory-bank/ has no MEMORY.md", "run mbguard init"
	case bank.LayoutLegacy:
		ch.Detail, ch.Next = fmt.Sprintf("legacy layout (%s memory bank)", bank.DetectKind(names)), "run mbguard migrate"
	case bank.LayoutMixed:
		ch.Detail, ch.Next = "mixed layout: MEMORY.md beside older entry files, or two conventions' entry files together", "move the older entry files' content into MEMORY.md by hand, then remove them"
		if p, err := lifecycle.PlanMigration(r.Root); err == nil && len(p.Refusals) == 0 && len(p.Rewrite) > 0 {
			ch.Detail = fmt.Sprintf("%s memory bank beside a MEMORY.md without block markers", p.Kind)
			ch.Next = "run mbguard migrate (its plan keeps that MEMORY.md byte for byte)"
		}
	default:
		return ch, false
	}
	return ch, true
}

// checkEntry checks MEMORY.md's markers, template version and length.
func checkEntry(r repo.Repo, cfg *config.Config) []doctorCheck {
	b, err := os.ReadFile(filepath.Join(r.Root, filepath.FromSlash(bank.Entry)))
	if err != nil {
		return []doctorCheck{{Name: "bank", Status: checkFail, Detail: err.Error(), Next: "make memory-bank/MEMORY.md readable"}}
	}
	minimum := bank.CurrentTemplate
	if cfg != nil {
		minimum = cfg.MinimumTemplate()
	}
	fs := scanner.CheckMarkdown(bank.Entry, b, true, minimum)
	if cfg != nil {
		fs = append(fs, scanner.CheckEntryLength(bank.Entry, b, cfg.Context.MaxChars)...)
	}
	if len(fs) == 0 {
		return []doctorCheck{{Name: "bank", Status: checkOK, Detail: bank.CurrentTemplate.String() + " layout, MEMORY.md well formed"}}
	}
	var out []doctorCheck
	for _, f := range fs {
		c := doctorCheck{Name: "bank", Status: checkFail, Detail: fmt.Sprintf("%s:%d: %s (%s)", f.Path, f.Line, f.Message, f.Rule), Next: f.Fix}
		if f.Severity == scanner.SeverityWarning {
			c.Status = checkWarn
		}
		if strings.HasPrefix(f.Rule, "template-") {
			c.Next = "run mbguard upgrade"
		}
		if c.Next == "" {
			c.Next = "run mbguard check --all"
		}
		out = append(out, c)
	}
	return out
}

// checkOrphans says when the user's state directory holds the state of repositories that no
// longer exist (a line only then): doctor --prune removes it; install and uninstall do too.
func checkOrphans() []doctorCheck {
	gone, err := outcome.OrphanState()
	if err != nil {
		return []doctorCheck{{Name: "state", Status: checkWarn, Detail: err.Error(), Next: "make the folder readable, then run mbguard doctor"}}
	}
	if len(gone) == 0 {
		return nil
	}
	what := "1 repository that no longer exists"
	if len(gone) > 1 {
		what = fmt.Sprintf("%d repositories that no longer exist", len(gone))
	}
	return []doctorCheck{{Name: "state", Status: checkInfo, Detail: "mbguard keeps the state of " + what + " (" + gone[0].GitDir + ")", Next: "mbguard doctor --prune"}}
}

// confirmUserFiles ends the unguarded state a change to user-level hook files during an
// agent's call started (outcome.ConfirmUserFiles). It is the person's word, so it runs only
// with a terminal on stdin: an agent's shell tool has none (and the outcome check refuses the
// command line before it runs).
func confirmUserFiles(e *env, r repo.Repo) (int, bool) {
	if f, ok := e.stdin.(*os.File); !ok || !isTerminal(f) {
		return e.fail(fmt.Errorf("%w: --confirm-user-files is the user's word that their user-level hook files are as they want them; run it yourself, in a terminal", outcome.ErrRefused)), true
	}
	cfg, err := e.config(r.Root)
	if err != nil {
		return e.fail(err), true
	}
	files := gating.UserProtectedFiles(e.getenv("HOME"), cfg.Policy().ProtectedPaths)
	was, err := outcome.ConfirmUserFiles(r, files)
	if err != nil {
		return e.fail(err), true
	}
	if len(was) == 0 {
		fmt.Fprintln(e.stdout, "confirm-user-files: nothing was waiting for your word")
	} else {
		fmt.Fprintf(e.stdout, "confirm-user-files: %s taken as you want them; the session is guarded again\n", strings.Join(was, ", "))
	}
	return exitOK, false
}

// checkWritable fails when a place mbguard writes cannot be written: the repository's state
// folder, the user's state folder, the known-good ref and its objects. Every hook and warning
// that cannot record the bank's state sends the person here, so this is where it is named.
func checkWritable(r repo.Repo, home string) doctorCheck {
	show := func(p string) string {
		if home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) && !strings.HasPrefix(p, r.Root+string(filepath.Separator)) {
			return "~" + filepath.ToSlash(p[len(home):])
		}
		if rel, err := filepath.Rel(r.Root, p); err == nil && !strings.HasPrefix(rel, "..") && p != outcome.UserStateDir() {
			return filepath.ToSlash(rel)
		}
		if home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
			return "~" + filepath.ToSlash(p[len(home):])
		}
		return p
	}
	places := []struct{ dir, what string }{
		{r.StateDir(), "the repository's state"},
		{outcome.UserStateDir(), "your state folder"},
		{filepath.Join(r.CommonDir, "refs", "mbguard"), "the known-good ref"},
		{filepath.Join(r.CommonDir, "objects"), "the known-good copies"},
	}
	var shown []string
	for _, p := range places {
		if p.dir == "" {
			continue
		}
		if err := probeWritable(p.dir); err != nil {
			return doctorCheck{Name: "writable", Status: checkFail,
				Detail: fmt.Sprintf("%s (%s) cannot be written: %v; hooks cannot record the bank's known-good state", show(p.dir), p.what, err),
				Next:   "make " + show(p.dir) + " writable for you (its permissions, or a read-only mount), then run mbguard doctor"}
		}
		shown = append(shown, show(p.dir))
	}
	return doctorCheck{Name: "writable", Status: checkOK, Detail: strings.Join(shown, ", ")}
}

// probeWritable creates and removes a file in dir, or in the nearest folder above it that
// exists (mbguard creates the rest on first use). A path where a file stands in for a folder
// fails too.
func probeWritable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is a file, not a folder", d)
			}
			f, err := os.CreateTemp(d, ".mbguard-probe-*")
			if err != nil {
				if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
					return pe.Err // the path is shown already
				}
				return err
			}
			name := f.Name()
			f.Close()
			return os.Remove(name)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if filepath.Dir(d) == d {
			return err
		}
	}
}
