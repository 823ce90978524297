package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/watcher"
)

// refuseUnderAgent refuses a command only the person may run (what) when this process runs
// under an agent's tool call in flight, or under a process one left running, in the
// repository around -C — whatever the binary is called or wherever it was copied: the process
// table says where it runs, not its name. A terminal is no proof (a pty is easy to make).
// It returns the exit code and true when the command must stop; a false `when` skips the
// check (the flag that makes the command the person's was not given).
func (e *env) refuseUnderAgent(what string, when ...bool) (int, bool) {
	if len(when) > 0 && !when[0] {
		return 0, false
	}
	r, err := repo.Find(e.dir)
	if err != nil {
		return 0, false // no repository: no call of it is in flight
	}
	o, ok := outcome.FromCall(r, os.Getpid(), true)
	if !ok {
		return 0, false
	}
	fmt.Fprintf(e.stderr, "mbguard: refused: `mbguard %s` is the person's command, and this one runs inside an agent's tool call (%s).\n"+
		"Next: the person runs it in a terminal outside the agent's session.\n", what, o)
	return exitFindings, true
}

// ownSettings names the settings this process was given on top of the repository's own
// configuration (--set, MBGUARD_* variables): a watcher or server started with them would
// answer every hook by other rules ("" when there are none).
func (e *env) ownSettings() string {
	var s []string
	for _, v := range e.sets {
		k, _, _ := strings.Cut(v, "=")
		s = append(s, "--set "+k)
	}
	for _, k := range config.Keys() {
		if n := config.EnvName(k); n != "" && e.getenv(n) != "" {
			s = append(s, n)
		}
	}
	return strings.Join(s, ", ")
}

// watcherTrust says why the hooks would not ask r's running watcher ("" when they would), by
// the check they run (watcher.Client.Trusted) with this command's configuration.
func (e *env) watcherTrust(r repo.Repo) string {
	cfg, err := e.config(r.Root)
	if err != nil {
		return "the configuration cannot be read: " + err.Error()
	}
	c, err := watcher.Dial(r)
	if err != nil {
		return "it does not answer: " + err.Error()
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Trusted(ctx, r, cfg)
}
