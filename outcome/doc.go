// Package outcome is mbguard's second line of defence: after a tool call that may write, it
// compares memory-bank/ with its known-good state and undoes what the rules forbid, moving the
// agent's bytes into a quarantine under the git directory.
//
// The known-good state ("baseline") is a manifest of every entry under memory-bank/ (kind,
// mode, size, mtime, inode, link count, blob id) kept in the git directory, with the bytes as
// blobs in git's own object store, held by a tree under a private ref so `git gc` keeps them.
// See docs/known-good.md.
//
// The rules are scanner.CheckFile's (the ones `mbguard check` applies) plus the ones only a
// before/after comparison can judge: USER_BLOCK byte-identical, template marker not removed or
// lowered, no new secret, no hard links, MEMORY.md present.
package outcome
