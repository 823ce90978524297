package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/scanner/engine"
	"github.com/mbguard/mbguard/scanner/remote"
)

// newScanEngineCmd is the secret scan of mbguard-hook, which does not link gitleaks: it
// starts `mbguard scan-engine` on its first scan and sends it the content (scanner/remote).
// Hidden: nobody types it.
func newScanEngineCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "scan-engine", Hidden: true,
		Short: "scan content for secrets for mbguard-hook: requests on stdin, replies on stdout"}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if len(args) != 0 {
			return e.usage(c, "scan-engine takes no arguments")
		}
		go engine.Warm() // the first request comes after the hook's own work
		if err := remote.Serve(e.stdin, e.stdout); err != nil {
			return e.fail(err)
		}
		return exitOK
	})
	return c
}
