package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise read from the module.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newVersionCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "version", Short: "print the version", Args: noArgs}
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		fmt.Fprintln(e.stdout, "mbguard", versionString())
		return exitOK
	})
	return c
}
