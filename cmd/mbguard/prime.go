package main

import (
	"fmt"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// prime builds r's known-good store now, so that the first hook call does not (see
// outcome.Prime). A failure is a warning: the command's own work is done, and the first
// check builds the store within its budget.
func (e *env) prime(r repo.Repo) {
	if r.Root == "" {
		return
	}
	if err := outcome.Prime(r); err != nil {
		fmt.Fprintf(e.stderr, "mbguard: warning: building the known-good store: %v; run mbguard doctor\n", err)
	}
}
