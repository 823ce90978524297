// Package cline drives the real Cline CLI (cline on npm, its static binary from
// @cline/cli-linux-x64, pinned in test/hosts) headless with `cline --json` against the shared
// fake model as an OpenAI-compatible provider, with mbguard's hooks written by
// `mbguard install --agent cline`.
package cline
