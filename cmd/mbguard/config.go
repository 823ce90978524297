package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
)

func newConfigCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "config [--json] [--keys] [--schema]", Short: "print the effective configuration and where each value came from", Args: noArgs}
	asJSON := c.Flags().Bool("json", false, "print JSON")
	keys := c.Flags().Bool("keys", false, "list the known keys with their environment variables")
	schema := c.Flags().Bool("schema", false, "print the JSON Schema of .mbguard.yaml (for editors)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if *schema {
			b, err := config.Schema()
			if err != nil {
				return e.fail(err)
			}
			e.stdout.Write(b)
			return exitOK
		}
		if *keys {
			for _, k := range config.Keys() {
				fmt.Fprintf(e.stdout, "%-30s %s\n", k, config.EnvName(k))
			}
			return exitOK
		}
		root := ""
		if r, err := e.repo(); err == nil {
			root = r.Root
		} else if !errors.Is(err, repo.ErrNotRepo) {
			return e.fail(err)
		}
		cfg, err := e.config(root)
		if err != nil {
			return e.fail(err)
		}
		if *asJSON {
			type entry struct {
				Key    string `json:"key"`
				Value  any    `json:"value"`
				Source string `json:"source"`
			}
			out := struct {
				Values   []entry  `json:"values"`
				Problems []string `json:"problems"`
			}{Problems: cfg.Problems}
			for _, k := range config.Keys() {
				out.Values = append(out.Values, entry{k, cfg.Value(k), cfg.Sources[k]})
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				return e.fail(err)
			}
		} else {
			for _, k := range config.Keys() {
				fmt.Fprintf(e.stdout, "%-30s %-40s # %s\n", k, render(cfg.Value(k)), cfg.Sources[k])
			}
		}
		if err := cfg.Err(); err != nil {
			fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
			return exitFindings
		}
		return exitOK
	})
	return c
}

func render(v any) string {
	switch x := v.(type) {
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// warnConfig tells a person on stderr what is wrong in the configuration, each problem with
// its file, line and key, for the commands that go on regardless (a hook's agent must not be
// stopped by a typo; status still shows what it can).
func warnConfig(e *env, cfg *config.Config) {
	if len(cfg.Problems) == 0 {
		return
	}
	for _, p := range cfg.Problems {
		fmt.Fprintf(e.stderr, "mbguard: %s\n", p)
	}
	fmt.Fprintf(e.stderr, "mbguard: the configuration above is invalid: %s; fix it, then run mbguard doctor\n", cfg.Meanwhile())
}
