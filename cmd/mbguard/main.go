// Command mbguard enforces discipline on the memory-bank/ folder that AI coding agents use as
// project memory: it gates agent tool calls, checks commits, and migrates legacy banks.
package main

import (
	"context"
	"os"

	"github.com/mbguard/mbguard/internal/jail"
	"github.com/mbguard/mbguard/outcome"
	_ "github.com/mbguard/mbguard/scanner/engine" // gitleaks finds the secrets in this process
)

func main() {
	jail.Inner() // the jail's re-executed half never returns
	// a check that runs out of time finishes in a detached `mbguard settle`
	outcome.Finisher = settleInBackground
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
