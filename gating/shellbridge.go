package gating

import (
	"github.com/mbguard/mbguard/gating/shell"
)

// shellResult is what the engine needs from the shell classifier.
type shellResult struct {
	reads, writes []string
	unknown       bool
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
			out.writes = append(out.writes, a.Path)
		}
	}
	return out
}
