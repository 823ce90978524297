package gating

import (
	"fmt"
	"strings"

	"github.com/mbguard/mbguard/host"
)

// Messages are for the agent: English, short, prefixed with the gate, and ending in the one
// next step as a call the agent can copy.

const (
	prefixRead     = "[mbguard read gate] "
	prefixRecovery = "[mbguard recovery gate] "
	prefixBank     = "[mbguard bank] "
	prefixDocFirst = "[mbguard doc-first] "
)

// bankGuideline is the advice after an allowed memory-bank write (seed 004's write rules).
const bankGuideline = "[mbguard bank] memory-bank writing guideline: keep the MACHINE_BLOCK/USER_BLOCK markers " +
	"intact and never change USER_BLOCK; no secrets, tokens or credentials; when the folder has an index.md, " +
	"update its entry; keep MEMORY.md concise (Current Focus short, 10-20 Decision Highlights)."

// readCall renders a read of rel the way the host's read tool is called (host.Spec.ReadCall);
// Claude's Read takes an absolute path.
func readCall(name, rel string, fx Facts) string {
	h, _ := host.Find(name)
	switch {
	case h.ReadCall == "":
		return "read " + rel
	case h.ReadAbs:
		rel = joinRoot(fx, rel)
	}
	return fmt.Sprintf(h.ReadCall, rel)
}

// readerCall renders a memory-reader subagent call for the host (host.Spec.SubagentCall).
func readerCall(name, agent string) string {
	if h, _ := host.Find(name); h.SubagentCall != "" {
		return fmt.Sprintf(h.SubagentCall, agent)
	}
	return `task({ subagent_type: "` + agent + `" })`
}

func joinRoot(fx Facts, rel string) string {
	root := slashClean(fx.Root())
	if root == "/" {
		return "/" + rel
	}
	return root + "/" + rel
}

func verdictWord(v Verdict) string {
	if v == Block {
		return "blocked"
	}
	return "warning"
}

func listPaths(ps []string, max int) string {
	if len(ps) <= max {
		return strings.Join(ps, ", ")
	}
	return strings.Join(ps[:max], ", ") + ", …"
}

func (e *Engine) readGateMessage(v Verdict, risk Risk, paths []string, host string, fx Facts) string {
	var b strings.Builder
	b.WriteString(prefixRead)
	b.WriteString(verdictWord(v))
	b.WriteString(": ")
	b.WriteString(string(risk))
	b.WriteString("-risk write to ")
	b.WriteString(describe(paths))
	b.WriteString(" without reading the memory bank in this message. Next: ")
	if len(e.Policy.SatisfyReads) > 0 {
		b.WriteString(readCall(host, e.Policy.SatisfyReads[0], fx))
		if len(e.Policy.ReaderAgents) > 0 {
			b.WriteString(" (or ")
			b.WriteString(readerCall(host, e.Policy.ReaderAgents[0]))
			b.WriteString(")")
		}
	} else if len(e.Policy.ReaderAgents) > 0 {
		b.WriteString(readerCall(host, e.Policy.ReaderAgents[0]))
	}
	if v == Block {
		b.WriteString(", then retry.")
	} else {
		b.WriteString(" before further risky writes.")
	}
	return b.String()
}

func describe(paths []string) string {
	if len(paths) == 0 {
		return "an undetermined place (shell)"
	}
	return listPaths(paths, 3)
}

func (e *Engine) recoveryMessage(v Verdict, risk Risk, cause string, paths, unread []string, host string, fx Facts) string {
	var b strings.Builder
	b.WriteString(prefixRecovery)
	b.WriteString(verdictWord(v))
	if cause != "" {
		b.WriteString(": ")
		b.WriteString(cause)
		b.WriteString("; recovery is armed as a precaution, since the lost state may have held an armed gate, and the anchors are not re-read yet (")
	} else {
		b.WriteString(": the context was compacted and the anchors are not re-read yet (")
	}
	b.WriteString(string(risk))
	b.WriteString("-risk write to ")
	b.WriteString(describe(paths))
	b.WriteString("). Next: read each of these:")
	for _, a := range unread {
		b.WriteString("\n  ")
		b.WriteString(readCall(host, a, fx))
	}
	if len(e.Policy.ReaderAgents) > 0 {
		b.WriteString("\nor call ")
		b.WriteString(readerCall(host, e.Policy.ReaderAgents[0]))
		b.WriteString(".")
	}
	return b.String()
}

func docFirstMessage(v Verdict, paths []string) string {
	return prefixDocFirst + verdictWord(v) + ": code change to " + listPaths(paths, 3) +
		" before the memory bank records it in this message. Next: record the change with the write/edit tool in " +
		"memory-bank/details/progress.md (or the relevant memory-bank/details/design/ doc) first."
}
