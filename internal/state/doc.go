// Package state keeps gating sessions in files so that per-call hook processes (Claude Code
// starts one per tool call) share them: one JSON file per session under the repository's git
// directory, written atomically, guarded by an flock so concurrent hook processes of the same
// session take turns, removed at session end and expired after a TTL.
package state
