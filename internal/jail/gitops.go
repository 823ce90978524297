package jail

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// branchOps are git's commands that legitimately rewrite the work tree, the bank included:
// switching, merging and resetting branches, and applying stashes and patches. Under the
// jail they would fail half way on the read-only bank, so a command line made only of them
// runs outside it; what they bring into the bank is judged after the call.
var branchOps = map[string]bool{"checkout": true, "switch": true, "merge": true, "pull": true, "rebase": true,
	"reset": true, "cherry-pick": true, "stash": true, "am": true, "restore": true, "revert": true}

// BranchOp reports whether the shell command line cmd is nothing but git branch operations:
// one or more `git [-C dir] [--no-pager] <op> args…` joined by `&&`, `||` or `;`, every word
// a plain literal, no variable assignment, redirection, substitution, subshell or background
// job. Anything else (`git checkout x && echo y > memory-bank/a`, `git -c core.hooksPath=…
// checkout`, `GIT_DIR=… git reset`) is not one, and runs jailed.
func BranchOp(cmd string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	for _, s := range f.Stmts {
		if !branchStmt(s) {
			return false
		}
	}
	return true
}

func branchStmt(s *syntax.Stmt) bool {
	if s == nil || s.Background || s.Coprocess || s.Negated || len(s.Redirs) > 0 {
		return false
	}
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		return (c.Op == syntax.AndStmt || c.Op == syntax.OrStmt) && branchStmt(c.X) && branchStmt(c.Y)
	case *syntax.CallExpr:
		return branchCall(c)
	}
	return false
}

func branchCall(c *syntax.CallExpr) bool {
	if len(c.Assigns) > 0 {
		return false
	}
	words := make([]string, 0, len(c.Args))
	for _, w := range c.Args {
		lit, ok := literal(w)
		if !ok {
			return false
		}
		words = append(words, lit)
	}
	if len(words) < 2 || words[0] != "git" {
		return false
	}
	i := 1
	for i < len(words) {
		switch {
		case words[i] == "-C" && i+1 < len(words):
			i += 2
			continue
		case words[i] == "--no-pager":
			i++
			continue
		}
		break
	}
	return i < len(words) && branchOps[words[i]]
}

// literal is the value of a word made only of literal text and quotes around literal text.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
