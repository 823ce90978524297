package gating

import (
	"path"
	"strings"
)

// TargetPaths returns the absolute, lexically cleaned paths a tool call names — the files it
// reads or writes, as far as its arguments show them (shell commands through the classifier,
// patches through their headers, any argument of an unknown tool that carries a path) — each
// once. Relative paths are joined onto cwd, which must be absolute. It does no I/O: a host
// adapter uses it to find the repository (and memory bank) a call is about when the session's
// working directory does not say, then resolves symlinks itself.
func TargetPaths(tool string, args map[string]any, cwd string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	var walk func(a *action)
	walk = func(a *action) {
		for _, r := range a.reads {
			add(fromSlashRoot(r.lex))
		}
		for _, w := range a.writes {
			add(fromSlashRoot(w.lex))
		}
		if a.kind == kindShell && a.cwd != "" {
			// a command whose targets the classifier cannot name still runs somewhere
			add(a.cwd)
		}
		for i := range a.subs {
			walk(&a.subs[i])
		}
	}
	a := parseAction(tool, args, cwd, slashRoot{}, 0)
	walk(&a)
	if a.kind == kindOther {
		forPaths(args, func(p string) { add(absolute(p, cwd, "/")) })
	}
	return out
}

// fromSlashRoot turns a path canonicalised against the root "/" back into an absolute one.
func fromSlashRoot(lex string) string {
	if strings.HasPrefix(lex, "/") {
		return lex
	}
	return path.Clean("/" + lex)
}

// slashRoot is a Facts whose repository is the whole file system and which knows nothing
// about it: canonical paths then are absolute paths without the leading slash.
type slashRoot struct{}

func (slashRoot) Root() string                    { return "/" }
func (slashRoot) BankExists() bool                { return true }
func (slashRoot) Resolve(string) string           { return "" }
func (slashRoot) CaseInsensitive() bool           { return false }
func (slashRoot) Exists(string) bool              { return false }
func (slashRoot) Read(string) (string, bool)      { return "", false }
func (slashRoot) Secrets(string, string) []string { return nil }
