package gating

import (
	"github.com/mbguard/mbguard/gating/shell"
)

// shellResult is what the engine needs from the shell classifier.
type shellResult struct {
	reads   []string
	writes  []shellWrite
	unknown bool
}

// shellWrite is one path a shell command writes.
type shellWrite struct {
	path string
	// exact is a literal path (rm -rf ., a glob such as *), not the literal prefix of a
	// run-time word; tree is a directory written at any depth (tar x, find -delete).
	exact, tree bool
	noMD        bool // a tree write that touches no Markdown file (find -name '*.pyc' -delete)
}

// classifyShell adapts shell.Classify. A write the classifier saw without a target, and a
// target that is only a hint (the literal prefix of a run-time word), both count as writes:
// a hint under memory-bank/ is still a write into it.
func classifyShell(cmd, cwd string) shellResult {
	r := shell.Classify(cmd, cwd)
	out := shellResult{unknown: r.Unknown || r.Write && len(r.Writes) == 0}
	for _, a := range r.Reads {
		if !a.Unknown && a.Path != "" {
			out.reads = append(out.reads, a.Path)
		}
	}
	for _, a := range r.Writes {
		if a.Path != "" {
			out.writes = append(out.writes, shellWrite{path: a.Path, exact: !a.Unknown, tree: a.Tree, noMD: a.NoMarkdown})
		}
	}
	return out
}
