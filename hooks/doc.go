// Package hooks holds the agent-host adapters and the installers that wire them into each host,
// plus the git pre-commit hook installer.
//
// One host-neutral core (Hook, host.go) answers every per-call hook: it finds the repositories a
// call is about (around the session's cwd and around each target path), loads their
// configuration, asks their watcher.Service, and applies the fail-open/fail-closed rule. What a
// host is — its names, events, files, trust step, tools — is one entry in package host's table;
// here each host is a thin protocol: parse its payload into a normalised call (tools mapped onto
// the engine's vocabulary) and render the answer in the form that reaches that host's model,
// plus its installer. The hosts, in the table's order: Claude Code (claude.go), OpenCode
// (opencode.go: its plugin talks to `mbguard serve --stdio` instead of hook commands), Kilo Code
// (kilo.go: the same plugin, which Kilo loads through the plugin API it keeps), Codex CLI
// (codex.go), Gemini CLI (gemini.go), Copilot CLI (copilot.go), Qwen Code (qwen.go), Crush
// (crush.go), Factory Droid (droid.go), Cursor (cursor.go), Augment Auggie (auggie.go) and Cline
// (cline.go); TestDocNamesEveryHost keeps this list whole.
package hooks
