package gating

import (
	"github.com/mbguard/mbguard/gating/shell"
)

// shellResult is what the engine needs from the shell classifier.
type shellResult struct {
	reads   []string
	writes  []shellWrite
	unknown bool
	// named is the command with the words that are only read blanked out: a name in it is
	// one the command may write (git log -- memory-bank > "$F" does not name the bank).
	named string
}

// shellWrite is one path a shell command writes.
type shellWrite struct {
	path string
	// exact is a literal path (rm -rf ., a glob such as *), not the literal prefix of a
	// run-time word; tree is a directory written at any depth (tar x, find -delete).
	exact, tree bool
	noMD        bool   // a tree write that touches no Markdown file (find -name '*.pyc' -delete)
	op          string // what writes it: "redirect", "git reset" …
}

// classifyShell adapts shell.Classify. A write the classifier saw without a target, and a
// target that is only a hint (the literal prefix of a run-time word), both count as writes:
// a hint under memory-bank/ is still a write into it.
func classifyShell(cmd, cwd string) shellResult {
	r := shell.Classify(cmd, cwd)
	out := shellResult{unknown: r.Unknown || r.Write && len(r.Writes) == 0, named: blank(cmd, r.ReadSpans)}
	for _, a := range r.Reads {
		if !a.Unknown && a.Path != "" {
			out.reads = append(out.reads, a.Path)
		}
	}
	for _, a := range r.Writes {
		if a.Path != "" {
			out.writes = append(out.writes, shellWrite{path: a.Path, exact: !a.Unknown, tree: a.Tree, noMD: a.NoMarkdown, op: a.Op})
		}
	}
	return out
}

// blank replaces the byte ranges spans of cmd with spaces.
func blank(cmd string, spans [][2]int) string {
	if len(spans) == 0 {
		return cmd
	}
	b := []byte(cmd)
	for _, sp := range spans {
		if sp[0] < 0 || sp[1] > len(b) || sp[0] >= sp[1] {
			continue
		}
		for i := sp[0]; i < sp[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}
