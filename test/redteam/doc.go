// Package redteam is mbguard's adversarial acceptance test: it builds the real binary, makes
// real git repositories with a v7.1 bank, and drives tool calls through both protocols — the
// Claude Code hook (`mbguard hook claude`, PreToolUse then PostToolUse) and `mbguard serve
// --stdio` (tool.before then tool.after) — EXECUTING every call the pre check lets through
// (bash -c for shell calls, the edit applied for Write/Edit) between the two. After each
// attack memory-bank/ must be byte-identical (modes too) with the agent's bytes in the
// quarantine; after each harmless call nothing may be refused and its effects outside the
// bank must stay. The counts (refused before, undone after, escaped) are printed.
//
//	go test ./test/redteam -v -run TestAcceptance
package redteam
