package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/mbguard/mbguard/host"
	"github.com/mbguard/mbguard/internal/fsutil"
)

// InstallOptions says where and how `mbguard install` writes its files.
type InstallOptions struct {
	Root      string // repository root (absolute)
	GitDir    string // the repository's git directory
	CommonDir string // the git directory shared by worktrees
	Home      string // the user's home, for --global
	// ConfigHome is the user's configuration folder for --global ($XDG_CONFIG_HOME, else
	// ~/.config); the CLI fills it from the environment so the installers read none.
	ConfigHome string
	// CodexHome is Codex CLI's home for --global ($CODEX_HOME, else ~/.codex).
	CodexHome string
	// CopilotHome is Copilot CLI's home for --global ($COPILOT_HOME, else ~/.copilot).
	CopilotHome string
	Global      bool // install into the user's global host configuration instead of the project
	Uninstall   bool // remove only mbguard's entries, restoring what was there before
	Husky       bool // add the check to .husky/pre-commit instead of .git/hooks
	// Binary is how hooks call mbguard: "mbguard" when it is on PATH, else an absolute path.
	Binary string
	// HookBinary, when set, is how hosts' hooks start mbguard-hook, the hook program installed
	// beside mbguard that starts in a fraction of its time: "mbguard-hook" when it is on PATH,
	// else an absolute path. Empty: the hooks run Binary.
	HookBinary string
	// ProjectBin, when mbguard was installed into the project by npm, is the launcher npm
	// linked for it, relative to Root and slash-separated ("node_modules/.bin/mbguard").
	// Project files then call it through the project's own folder, found at run time, so the
	// committed files work in every clone, not only in the one at this machine's path.
	ProjectBin string
	// ProjectDirEnv is the variable in which the host names the project folder to its hook
	// commands (HostSpec.ProjectDirEnv); "" when it has none.
	ProjectDirEnv string
	// ClaudeVersion is what `claude --version` printed when install ran ("" when no claude was
	// found): onFailure is written only for a Claude Code that reads it.
	ClaudeVersion string
	// HTTPPort, when set (watch.http_port), makes Claude Code's hooks type "http" requests to
	// `mbguard watch` on 127.0.0.1 at this port, the Bash tool's events excepted.
	HTTPPort int
}

// projectBin reports whether files in the project call mbguard relative to the project.
func (o InstallOptions) projectBin() bool { return o.ProjectBin != "" && !o.Global }

// hookCommand is the shell command line a host runs for `mbguard hook <args>`.
func (o InstallOptions) hookCommand(args ...string) string {
	return o.shellBinary() + " hook " + strings.Join(args, " ")
}

// shellBinary is the shell word that starts mbguard (or mbguard-hook, HookBinary) from a
// host's hook command. A project's
// npm install is reached through the folder the host names (the work tree's top, asked of git
// when the host names none, or does not this time): a hook's working directory may be any
// folder of the project.
func (o InstallOptions) shellBinary() string {
	if o.projectBin() {
		top := "$(git rev-parse --show-toplevel)"
		if o.ProjectDirEnv != "" {
			top = "${" + o.ProjectDirEnv + ":-" + top + "}"
		}
		return `"` + top + `"/` + ghQuote(o.ProjectBin)
	}
	if o.HookBinary != "" {
		return shellQuote(o.HookBinary)
	}
	return shellQuote(o.Binary)
}

// gitHookBinary is what a git pre-commit hook (plain, husky, lefthook) runs: git starts them
// at the top of the work tree, so a project's npm install is called by its relative path.
func (o InstallOptions) gitHookBinary() string {
	switch {
	case o.projectBin():
		return o.ProjectBin
	case o.Binary == "":
		return "mbguard"
	}
	return o.Binary
}

// baseDir is the folder b names for these options: its variable's value the CLI filled in, else
// its place below home.
func (o InstallOptions) baseDir(b host.Base) string {
	dir := map[host.Base]string{host.ConfigHome: o.ConfigHome, host.CodexHome: o.CodexHome, host.CopilotHome: o.CopilotHome}[b]
	if dir == "" {
		dir = filepath.Join(o.Home, b.InHome())
	}
	return dir
}

// UserPath is where the user-level file f is for these options.
func (o InstallOptions) UserPath(f host.File) string {
	return filepath.Join(o.baseDir(f.Base), filepath.FromSlash(f.Path))
}

// HookFilePath is the file install writes for the host named name: its first project file, or
// with Global its first user-level file ("" for a name that is no host).
func HookFilePath(name string, o InstallOptions) string {
	s := host.Get(name)
	if o.Global && len(s.UserFiles) > 0 {
		return o.UserPath(s.UserFiles[0])
	}
	if !o.Global && len(s.ProjectFiles) > 0 {
		return filepath.Join(o.Root, filepath.FromSlash(s.ProjectFiles[0]))
	}
	return ""
}

// lacks reports whether --global cannot find b: neither its variable nor home is known.
func (o InstallOptions) lacks(b host.Base) bool {
	set := map[host.Base]string{host.Home: o.Home, host.ConfigHome: o.ConfigHome, host.CodexHome: o.CodexHome, host.CopilotHome: o.CopilotHome}
	if set[b] != "" {
		return false
	}
	// Crush's folder under ~/.config is looked for in XDG_CONFIG_HOME alone: the CLI fills it
	// from HOME
	return b == host.Home || b == host.ConfigHome || o.Home == ""
}

// globalNeeds says what --global needs to find the file f.
func globalNeeds(f host.File) string {
	switch f.Base {
	case host.Home:
		return "HOME to find ~/" + strings.SplitN(f.Path, "/", 2)[0]
	case host.ConfigHome:
		return "XDG_CONFIG_HOME or HOME to find " + f.Path
	}
	return f.Base.Var() + " or HOME to find ~/" + f.Base.InHome()
}

// Change is one line of what an install did, for the user.
type Change struct {
	Path   string // the file, relative to Root when inside it
	Action string // created, updated, unchanged, removed, kept (edited by you), skipped
	Note   string // optional: why, or the next step
}

// readTarget reads the file an installer is about to change. It checks that the options can
// name that file (a project, or HOME for --global) and returns its content, whether it exists,
// and the path to show the user (relative to the project when inside it).
func readTarget(o InstallOptions, path func(InstallOptions) string, globalNeeds string) (old []byte, exists bool, show, full string, err error) {
	if o.Global && o.Home == "" && o.ConfigHome == "" {
		return nil, false, "", "", errors.New("--global needs " + globalNeeds)
	}
	if !o.Global && o.Root == "" {
		return nil, false, "", "", errors.New("not inside a git work tree: run it in your project, or use --global")
	}
	full = path(o)
	show = displayPath(o.Root, full)
	old, err = os.ReadFile(full)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, false, show, full, fmt.Errorf("reading %s: %w", show, err)
	}
	return old, err == nil, show, full, nil
}

// originalPath is where install keeps the bytes a person's file had before mbguard first
// changed it (under the repository's state folder; "" for --global or outside a repository).
func (o InstallOptions) originalPath(path string) string {
	if o.Global || o.GitDir == "" || o.Root == "" {
		return ""
	}
	rel, err := filepath.Rel(o.Root, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.ToSlash(rel)))
	return filepath.Join(o.GitDir, "mbguard", "originals", hex.EncodeToString(sum[:8]))
}

// keepOriginal remembers old as the file's bytes before mbguard's first change; a later
// install keeps the first. Best effort: without it uninstall writes the file re-encoded.
func (o InstallOptions) keepOriginal(path string, old []byte) {
	p := o.originalPath(path)
	if p == "" {
		return
	}
	if _, err := os.Stat(p); err == nil {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		_ = fsutil.WriteFileAtomic(p, old, 0o600)
	}
}

// original returns the bytes keepOriginal kept for path.
func (o InstallOptions) original(path string) ([]byte, bool) {
	p := o.originalPath(path)
	if p == "" {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

// forgetOriginal removes what keepOriginal kept for path, and the folder once empty.
func (o InstallOptions) forgetOriginal(path string) {
	if p := o.originalPath(path); p != "" {
		_ = os.Remove(p)
		_ = os.Remove(filepath.Dir(p))
	}
}

// sameJSON reports whether a and b hold the same JSON value, whatever their layout.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// putFile writes data to path atomically, creating its folder; show is how messages name it.
// perm is the mode of a new file; a file that exists keeps its own mode when keepMode is set
// (a person's chmod of their settings stands).
func putFile(path, show string, data []byte, perm os.FileMode, keepMode bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(show), err)
	}
	if fi, err := os.Stat(path); err == nil && keepMode {
		perm = fi.Mode().Perm()
	}
	return fsutil.WriteFileAtomic(path, data, perm)
}
