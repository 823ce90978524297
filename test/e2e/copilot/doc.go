// Package copilot holds the end-to-end tests that drive the real GitHub Copilot CLI
// (@github/copilot, installed by .ci/run) headless and offline, with its BYOK provider pointed
// at a scripted Chat Completions API on 127.0.0.1, and mbguard's hooks written by
// `mbguard install --agent copilot`.
package copilot
