// Package shell classifies a shell command line, as an AI coding agent hands it
// to its bash tool, into the files it reads and the files it writes.
//
// It parses the command with mvdan.cc/sh/v3/syntax (never with regular
// expressions), walks every statement — pipelines, lists, subshells, command
// and process substitutions, function bodies, if/for/while/case bodies — and
// recognises the commands that agents use to read or change files: redirects,
// coreutils, sed -i, tee, git, find, curl, wget, archivers and inline
// interpreter code (python -c, node -e …). Wrappers such as sudo, env, xargs,
// bash -c and eval are unwrapped, and cd is followed so relative paths are
// reported against the directory the command really runs in.
//
// The package is pure: no file system, no environment, no clock. Every answer
// errs towards "write": when a target cannot be known (a variable, a command
// substitution, git apply, an unknown working directory) Result.Unknown is
// set, and input that does not parse is reported as an unknown write.
//
// Running a script file (python x.py, bash x.sh, make, npm …) is deliberately
// not a write by itself: its effects are not visible in the command line, and
// treating every script run as an unknown write would make the gate useless.
// A script or a command the classifier has no rule for that is handed a path
// naming memory-bank/ (or a glob that can match it) is taken to write that
// path: an unknown tool cannot be trusted to only read what it is given.
// Wrappers (flock, strace, su -c, uv run …) are unwrapped through a table, and
// words are read as bash reads them: variables assigned earlier in the line,
// ANSI-C quoting, brace expansion, nocaseglob, CDPATH, descriptors opened on
// files and links made earlier in the line.
//
// What the classifier knows about a command by its name is one registry entry
// (registry.go): its names, its family, what it reads and writes, the options
// that take a value, and its handler (or, for sudo, env, xargs …, the prefix
// that returns the command it runs). The entries come from one file per family
// (reg_*.go; the package-manager, formatter, reader and interpreter tables
// register themselves), and a test keeps every name a handler tells apart
// registered.
//
// Known gaps, left on purpose: commands run elsewhere (ssh, docker exec) are
// judged only by the paths they name; build tools and package managers (make,
// npm, go, pip) are not writes unless they name the bank; inline interpreter
// code is scanned for string literals and a list of write calls, not parsed,
// so it errs towards writes; git show REV:path is not a read of the
// working-tree file.
package shell
