package main

import "github.com/mbguard/mbguard/hooks"

// installClaude installs Claude Code's hooks, then the kernel line: the sandbox's deny rule
// for memory-bank/, turning the sandbox on only with --sandbox.
func installClaude(o hooks.InstallOptions, sandbox bool) ([]hooks.Change, error) {
	changes, err := hooks.InstallClaude(o)
	if err != nil {
		return nil, err
	}
	sc, err := hooks.InstallClaudeSandbox(o, sandbox)
	return append(changes, sc...), err
}
