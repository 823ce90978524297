// Package hooks holds the agent-host adapters and the installers that wire them into each host,
// plus the git pre-commit hook installer.
//
// One host-neutral core (Hook, host.go) answers every per-call hook: it finds the repositories a
// call is about (around the session's cwd and around each target path), loads their
// configuration, asks their watcher.Service, and applies the fail-open/fail-closed rule. Each
// host — Claude Code, Codex CLI, Gemini CLI, GitHub Copilot CLI, Qwen Code, Crush, Factory
// Droid, Cursor, Cline — is a thin protocol: parse its
// payload into a normalised call (tools mapped onto the engine's vocabulary) and render the
// answer in the form that reaches that host's model. OpenCode talks to `mbguard serve` through
// its plugin asset instead.
package hooks
