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
// Running a script file (python x.py, bash x.sh, source x.sh, make, npm …) is
// deliberately not a write: its effects are not visible in the command line,
// and treating every script run as an unknown write would make the gate
// useless. Only code written inline in the command is inspected.
//
// Known gaps, left on purpose: commands run elsewhere (ssh, docker run,
// kubectl exec) are not classified; build tools and package managers (make,
// npm, go, pip) are not writes; sed scripts' own w/W/e commands are not
// read; inline interpreter code is scanned for string literals and a list of
// write calls, not parsed, so it errs towards writes; git show REV:path is
// not a read of the working-tree file.
package shell
