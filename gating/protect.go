package gating

import (
	"slices"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// GateConfig guards mbguard's own configuration and installed hook files.
const GateConfig Gate = "config"

const prefixConfig = "[mbguard config] "

// ProtectedPaths are mbguard's own configuration and the hook files it installs, relative to
// the repository root; a trailing slash names a directory and everything below it. An agent
// that could write them could switch the guard off, so agent writes to them are refused (reads
// stay allowed). The git directory's entries are spelled under .git/, where a plain checkout
// keeps it. This is the one list: the gate before a call and the outcome check after it both
// use it, through Policy.ProtectedPaths.
var ProtectedPaths = protectedPaths(hostSpecs)

// UserOnlyPaths are hook files at user level, relative to home, that ProtectedPaths does not
// already name as the same path below home: the user-level files of hosts whose user file
// lives elsewhere than the project's (OpenCode's, Kilo Code's and Crush's under ~/.config — $XDG_CONFIG_HOME's
// default, Crush's state file under ~/.local/share, which it merges into its configuration —
// and Copilot CLI's under ~/.copilot), and mbguard's own user configuration. The gate before a
// call refuses a write to them in every spelling of home (~, $HOME, the absolute path, a
// symlinked path: see homeView); the outcome check reports a change.
var UserOnlyPaths = userOnlyPaths(hostSpecs)

// hostSpecs is the host registry, copied once for both lists (host.All copies it per call,
// and the lists are built in every process's start).
var hostSpecs = host.All()

// projectConfig is mbguard's configuration at the repository root: its own, and gitleaks'
// files, which tune its secret scan (an agent that broke or loosened them would let a secret
// into the bank, or a bank secret out to the model).
var projectConfig = []string{".mbguard.yaml", ".gitleaks.toml", ".gitleaksignore"}

// protectedPaths is mbguard's configuration, then every host's project folders protected whole
// and project files (host.Spec), then the git directory's entries.
func protectedPaths(specs []host.Spec) []string {
	out := slices.Clone(projectConfig)
	for _, h := range specs {
		out = append(out, h.ProjectDirs...)
	}
	for _, h := range specs {
		out = append(out, h.ProjectFiles...)
	}
	return append(out,
		".git/mbguard/",
		".git/hooks/",
		// judged by key after a call: core.hooksPath, core.fsmonitor, `!` aliases, filter.*,
		// diff.*.textconv, include.path (outcome.RiskyConfigKey)
		".git/config",
		// the worktree's config (extensions.worktreeConfig), judged like .git/config
		".git/config.worktree",
	)
}

// userOnlyPaths is mbguard's user configuration and every host's user-level file (in its
// place below home) that ProtectedPaths does not name.
func userOnlyPaths(specs []host.Spec) []string {
	out := []string{".config/mbguard/config.yaml"}
	for _, h := range specs {
		for _, f := range h.UserFiles {
			if p := f.InHome(); !slices.Contains(ProtectedPaths, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// UserProtectedFiles are the protected files that also exist at user level, under home
// (~/.claude/settings.json holds hooks as much as the project's): the outcome check reports a
// change to them during a call; it does not undo files outside the repository.
func UserProtectedFiles(home string, list []string) []string {
	if home == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p = strings.TrimSuffix(home, "/") + "/" + p; !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range UserOnlyPaths {
		add(p)
	}
	for _, p := range list {
		// a project-root file (crush.json) is no user-level file: hosts keep those in dot folders
		if strings.HasSuffix(p, "/") || strings.HasPrefix(p, ".git/") || slices.Contains(projectConfig, p) || !strings.HasPrefix(p, ".") {
			continue
		}
		add(p)
	}
	return out
}

// Protects reports whether the canonical repository-relative path rel is one of the policy's
// protected paths or lies below a protected directory. fold matches case-insensitively, as on
// a folding file system.
func (p Policy) Protects(rel string, fold bool) bool {
	return protectedMatch(p.ProtectedPaths, rel, fold) != ""
}

func protectedMatch(list []string, rel string, fold bool) string {
	if fold {
		rel = strings.ToLower(rel)
	}
	for _, pp := range list {
		k := key(pp, fold)
		if dir, ok := strings.CutSuffix(k, "/"); ok {
			if rel == dir || strings.HasPrefix(rel, k) {
				return pp
			}
			continue
		}
		if rel == k {
			return pp
		}
	}
	return ""
}

// containsProtected reports a protected path lying at or below the shell write target p (rm -rf
// .claude, a tree write of the root, a glob such as .claude/*): the write reaches it.
func containsProtected(list []string, p string, fold bool) string {
	for _, pp := range list {
		want := strings.TrimSuffix(key(pp, fold), "/")
		pat := strings.TrimSuffix(p, "/")
		if pat == "." || pat == "" {
			continue // the whole tree: the bank guard already refuses it
		}
		ok := true
		for pat != "" {
			if want == "" {
				ok = false
				break
			}
			ps, prest, _ := strings.Cut(pat, "/")
			ws, wrest, _ := strings.Cut(want, "/")
			if !segMatch(ps, ws, fold) || strings.HasPrefix(ws, ".") && !strings.HasPrefix(ps, ".") {
				// bash's globs skip dot files unless the pattern spells the dot
				ok = false
				break
			}
			pat, want = prest, wrest
		}
		if ok {
			return pp
		}
	}
	return ""
}

// OwnFiler is implemented by Facts that know mbguard's own files outside the repository: the
// user configuration file it reads (wherever $XDG_CONFIG_HOME puts it) and the executable
// the installed hooks run, with the name it would have in every PATH directory searched
// before it (a stub there would run in its place) — absolute, slash-separated, each also with
// its symlinks resolved. Optional: without it only the spellings below home are known.
type OwnFiler interface {
	OwnFiles() []string
}

// homeView spells p, an absolute path outside the repository, from home ("/~/…", as Canon
// spells a ~ path) when it lies below the user's home directory (Facts' EnvReader HOME, as
// given or with its symlinks resolved): /root/.claude/settings.json, $HOME/.claude/… and a
// path through a symlink into home (resolved by Canon) are then the one file ~/.claude/….
func homeView(p string, fx Facts) string {
	er, ok := fx.(EnvReader)
	if !ok || isHome(p) {
		return p
	}
	home := er.Env()["HOME"]
	if home == "" || home == "/" {
		return p
	}
	for _, h := range []string{home, slashClean(fx.Resolve(home))} {
		h = strings.TrimSuffix(h, "/")
		if h == "" {
			continue
		}
		if p == h {
			return "/~"
		}
		if rest, ok := underDir(p, h); ok {
			return "/~/" + rest
		}
	}
	return p
}

// homeAbs spells a "/~/…" path from the user's home directory, when Facts know it.
func homeAbs(p string, fx Facts) string {
	if !isHome(p) {
		return p
	}
	er, ok := fx.(EnvReader)
	if !ok {
		return p
	}
	home := strings.TrimSuffix(er.Env()["HOME"], "/")
	if home == "" {
		return p
	}
	return home + strings.TrimPrefix(p, "/~")
}

// ownFile returns the file of OwnFiles that the write to p (absolute) reaches: p itself, or
// a file below p for a shell write of a tree or a directory.
func ownFile(p string, fx Facts, tree bool, fold bool) string {
	of, ok := fx.(OwnFiler)
	if !ok {
		return ""
	}
	for _, f := range of.OwnFiles() {
		a, b := f, p
		if fold {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		if a == b || tree && strings.HasPrefix(a, strings.TrimSuffix(b, "/")+"/") {
			return f
		}
	}
	return ""
}

// configGuard refuses agent writes to protected paths; shell writes into the git directory are
// refused as a whole (hooks, config, refs: every one of them can switch the guard off or lose
// work).
func (e *Engine) configGuard(a *action, fold bool, fx Facts) string {
	if a.kind == kindShell && a.person != "" {
		return prefixConfig + "blocked: `" + a.person + "` is the user's command: it removes mbguard or undoes its work, " +
			"so agents may not run it. Next: ask the user to run it themselves."
	}
	list := e.Policy.ProtectedPaths
	for i := range a.writes {
		w := &a.writes[i]
		for _, v := range []struct {
			p  string
			in bool
		}{{w.rel, w.inRepo}, {w.lex, w.lexIn}} {
			if msg := protectedView(a, w, v.p, v.in, list, fx, fold); msg != "" {
				return msg
			}
		}
	}
	if a.kind == kindShell && a.shellUnknown {
		for _, pp := range append(list, ".git/") {
			if namesPath(a.named, pp) {
				return prefixConfig + "blocked: this shell command names " + pp + ", part of mbguard's own configuration or hooks, " +
					"and writes somewhere mbguard cannot determine. Next: ask the user to make this change themselves."
			}
		}
	}
	return ""
}

// protectedView judges one view (resolved or lexical) of a write's path against mbguard's own
// files: a path outside the repository is read as the user's home's, when it is there.
func protectedView(a *action, w *writeTarget, p string, in bool, list []string, fx Facts, fold bool) string {
	if !in {
		if own := ownFile(homeAbs(p, fx), fx, a.kind == kindShell, fold); own != "" {
			return prefixConfig + "blocked: " + own + " is mbguard's own (its user configuration, or the program its hooks run), " +
				"and agents may not change it. Next: ask the user to make this change themselves."
		}
		// ~/.claude/settings.json is the same file one level up: the user's hooks,
		// however the path spells home
		p = homeView(p, fx)
		if !isHome(p) {
			return ""
		}
		p = strings.TrimPrefix(strings.TrimPrefix(p, "/~"), "/")
	}
	hit := protectedMatch(list, p, fold)
	if hit == "" && !in {
		hit = protectedMatch(UserOnlyPaths, p, fold)
	}
	if hit == "" && a.kind == kindShell {
		hit = shellProtected(w, p, in, list, fold)
	}
	if hit == "" {
		return ""
	}
	return prefixConfig + "blocked: " + p + " is part of mbguard's own configuration or installed hooks (" + hit +
		"), and agents may not change it. Next: ask the user to make this change themselves."
}

// shellProtected is the protected path a shell write takes in: .git/ itself, or a protected
// file below a folder it writes.
func shellProtected(w *writeTarget, p string, in bool, list []string, fold bool) string {
	if _, ok := underDir(p, ".git"); ok {
		return ".git/"
	}
	if !w.shellExact && !w.shellTree {
		return ""
	}
	hit := containsProtected(list, p, fold)
	if hit == "" && !in {
		hit = containsProtected(UserOnlyPaths, p, fold)
	}
	return hit
}
