package main

import (
	"context"
	"errors"
	"fmt"

	"os"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/lifecycle"
)

func newInitCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "init", Short: "scaffold a v7.1 memory bank (never overwrites)", Args: noArgs}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		r, err := e.repo()
		if err != nil {
			return e.fail(err)
		}
		res, err := lifecycle.Init(r.Root)
		if errors.Is(err, lifecycle.ErrLegacy) {
			// a refusal, not a usage mistake
			kind, _ := legacyBank(r)
			fmt.Fprintf(e.stderr, "mbguard: memory-bank/ holds an older memory bank (%s memory bank); init leaves it alone: run mbguard migrate\n", kind)
			return exitFindings
		}
		if err != nil {
			return e.fail(err)
		}
		for _, p := range res.Created {
			fmt.Fprintf(e.stdout, "%-10s %s\n", "created", p)
		}
		e.prime(r) // the first hook call must not build the known-good store
		if len(res.Created) == 0 {
			fmt.Fprintln(e.stderr, "mbguard: the memory bank already has every file init creates; nothing to do")
			return exitOK
		}
		fmt.Fprintln(e.stderr, "mbguard: review memory-bank/MEMORY.md and details/tech.md, then commit them")
		return exitOK
	})
	return c
}

// legacyBank reports whether memory-bank/ has the legacy layout, and which kind of bank it is
// (Cline, Roo Code, memory-bank-skill legacy …), as doctor names it.
func legacyBank(r repo.Repo) (bank.Kind, bool) {
	ents, err := os.ReadDir(r.BankDir())
	if err != nil {
		return bank.DetectKind(nil), false
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return bank.DetectKind(names), bank.DetectLayout(true, names) == bank.LayoutLegacy
}
