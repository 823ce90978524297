// Package codex holds the end-to-end tests that drive the real Codex CLI (@openai/codex,
// installed by .ci/run) headless against a scripted Responses API on 127.0.0.1, with mbguard's
// hooks written by `mbguard install --agent codex`.
package codex
