// Package hooks holds the agent-host adapters (Claude Code's hook protocol, the OpenCode plugin
// asset) and the git pre-commit hook installer. Every adapter turns its host's payload into
// gating events and the engine's decision into the host's reply; the engine and state live in
// watcher.Service.
package hooks
