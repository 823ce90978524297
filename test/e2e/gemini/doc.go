// Package gemini holds the end-to-end tests that drive the real Gemini CLI (@google/gemini-cli,
// installed by .ci/run) headless against a scripted Gemini API on 127.0.0.1, with mbguard's
// hooks written by `mbguard install --agent gemini`.
package gemini
