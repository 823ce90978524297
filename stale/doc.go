// Package stale finds memory-bank notes the repository has moved past: paths, the project's own
// commands (make targets, npm/pnpm/yarn scripts, just recipes, tasks) and code symbols that a
// note names but the repository no longer has, each with git's evidence — the commit that
// deleted or renamed the path (and the new path), or the commit that removed the target,
// script or symbol. Extract reads references out of one note's Markdown (pure); Check indexes
// the repository once from git and judges them; Fix rewrites renamed paths in the bank.
package stale
