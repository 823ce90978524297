// Package gitexec runs the git CLI: the one git runner of mbguard's production code, so that
// every call names git's own complaint (stderr) in its error, exit codes stay reachable through
// errors.As, and a streamed command is always waited for.
//
// It adds nothing to the environment a caller did not ask for: inside a git hook GIT_DIR and
// GIT_INDEX_FILE are set on purpose and every caller relies on them.
package gitexec
