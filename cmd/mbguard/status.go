package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/internal/config"
	"github.com/mbguard/mbguard/internal/declog"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
	"github.com/mbguard/mbguard/scanner"
	"github.com/mbguard/mbguard/watcher"
)

// statusReport is `mbguard status --json`.
type statusReport struct {
	Root      string                  `json:"root"`
	Watcher   watcherStatus           `json:"watcher"`
	Sessions  []watcher.SessionStatus `json:"sessions"`
	Decisions []declog.Entry          `json:"decisions"`
	Findings  []watcher.Finding       `json:"findings"`
	// JobReports are bank changes made while an agent's background job ran, kept for lack of
	// evidence (outcome.JobReports).
	JobReports []outcome.JobReport `json:"job_reports"`
	// Quarantine is how many entries of undone agent bytes wait in the quarantine.
	Quarantine int    `json:"quarantine"`
	Next       string `json:"next"`
}

type watcherStatus struct {
	Running bool   `json:"running"`
	PID     int    `json:"pid,omitempty"`
	Socket  string `json:"socket,omitempty"`
}

// newStatusCmd shows what the guard is doing: sessions (from the running watcher, else the
// state files), recent decisions, and the watcher's findings.
func newStatusCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "status [--json] [--decisions N]", Short: "show sessions, armed recovery, recent decisions and findings", Args: noArgs}
	asJSON := c.Flags().Bool("json", false, "print JSON")
	nDecisions := c.Flags().Int("decisions", 10, "show the last `n` decisions (0 for none)")
	c.RunE = e.runs(func(ctx context.Context, args []string) int {
		if *nDecisions < 0 {
			return e.usage(c, "--decisions %d: want 0 or more", *nDecisions)
		}
		return e.status(ctx, *asJSON, *nDecisions)
	})
	return c
}

// status is the status command after its flags: the watcher and the sessions, the last
// nDecisions decisions, the current findings, the background jobs' reports and the quarantine,
// then the next step; as JSON with asJSON.
func (e *env) status(ctx context.Context, asJSON bool, nDecisions int) int {
	r, err := e.repo()
	if err != nil {
		return e.fail(err)
	}
	cfg, err := e.config(r.Root)
	if err != nil {
		return e.fail(err)
	}
	warnConfig(e, cfg)
	rep := statusReport{Root: r.Root, Sessions: []watcher.SessionStatus{}, Decisions: []declog.Entry{}, Findings: []watcher.Finding{}}
	st := e.sessionStatus(ctx, r, cfg, &rep)
	if st != nil && st.Sessions != nil {
		rep.Sessions = st.Sessions
	}
	e.addDecisions(&rep, r, nDecisions)
	if fs, _, err := watcher.CurrentFindings(r, 20); err != nil {
		fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
	} else if fs != nil {
		rep.Findings = fs
	}
	rep.JobReports = []outcome.JobReport{}
	if js, err := outcome.JobReports(r, time.Now()); err != nil {
		fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
	} else if js != nil {
		rep.JobReports = js
	}
	rep.Quarantine = outcome.CountQuarantine(r)
	rep.Next = statusNext(rep)
	if !asJSON {
		printStatus(e, rep)
		return exitOK
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// sessionStatus asks a running watcher for the sessions (noting it in rep), or, without one or
// an answer, reads the session files, which tell the same story.
func (e *env) sessionStatus(ctx context.Context, r repo.Repo, cfg *config.Config, rep *statusReport) *watcher.Status {
	if pid, sock, ok := watcher.Running(r); ok {
		rep.Watcher = watcherStatus{Running: true, PID: pid, Socket: sock}
		if c, err := watcher.Dial(r); err == nil {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			resp, err := c.Do(cctx, watcher.Request{Op: "status"})
			cancel()
			c.Close()
			if err == nil && resp.Status != nil {
				return resp.Status
			}
		}
	}
	st, err := watcher.NewService(r, cfg, watcher.ServiceOptions{}).Status()
	if err != nil {
		e.logf("reading sessions: %v", err)
	}
	return st
}

// addDecisions puts the last n decisions of the log into rep; lines torn by a crash or over
// 1 MiB (not written by mbguard) are skipped with a note.
func (e *env) addDecisions(rep *statusReport, r repo.Repo, n int) {
	ds, bad, err := declog.Read(declog.Path(r.StateDir()), n)
	if err != nil {
		fmt.Fprintf(e.stderr, "mbguard: %v\n", err)
		return
	}
	if bad > 0 {
		fmt.Fprintf(e.stderr, "mbguard: note: skipped %d unreadable line(s) of %s (torn or over 1 MiB)\n", bad, declog.Path(r.StateDir()))
	}
	if ds != nil {
		rep.Decisions = ds
	}
}

func statusNext(rep statusReport) string {
	for _, s := range rep.Sessions {
		if s.RecoveryArmed && len(s.UnreadAnchors) > 0 {
			return fmt.Sprintf("session %s is blocked until the agent reads %s", s.ID, strings.Join(s.UnreadAnchors, ", "))
		}
	}
	if rep.Quarantine > 0 {
		return "run mbguard quarantine list: mbguard undid agent changes to memory-bank/ and kept the bytes"
	}
	if len(rep.Findings) > 0 {
		return "run mbguard check --all to see how to fix the findings"
	}
	if len(rep.JobReports) > 0 {
		return jobReportsNext
	}
	if !rep.Watcher.Running {
		return "run mbguard watch --detach to record out-of-band edits to memory-bank/"
	}
	return "nothing to do"
}

func printStatus(e *env, rep statusReport) {
	w := e.stdout
	if rep.Watcher.Running {
		fmt.Fprintf(w, "watcher: running (pid %d, socket %s)\n", rep.Watcher.PID, rep.Watcher.Socket)
	} else {
		fmt.Fprintln(w, "watcher: not running")
	}
	if len(rep.Sessions) == 0 {
		fmt.Fprintln(w, "sessions: none")
	} else {
		fmt.Fprintln(w, "sessions:")
		for _, s := range rep.Sessions {
			ctxWord := "context not read"
			if s.Satisfied {
				ctxWord = "context read"
			}
			line := fmt.Sprintf("  %s  message %s  %s", s.ID, orDash(s.Message), ctxWord)
			if s.RecoveryArmed {
				line += "  recovery armed"
				if len(s.UnreadAnchors) > 0 {
					line += " (unread: " + strings.Join(s.UnreadAnchors, ", ") + ")"
				}
			}
			if s.Updated > 0 {
				line += "  updated " + time.UnixMilli(s.Updated).Format(time.DateTime)
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(rep.Decisions) == 0 {
		fmt.Fprintln(w, "recent decisions: none")
	} else {
		fmt.Fprintln(w, "recent decisions:")
		for _, d := range rep.Decisions {
			what := d.Verdict
			if d.Recovery != "" {
				what = "recovery " + d.Recovery
			}
			msg, _, _ := strings.Cut(d.Message, "\n")
			paths := make([]string, len(d.Paths))
			for i, p := range d.Paths {
				paths[i] = scanner.DisplayPath(p)
			}
			fmt.Fprintf(w, "  %s  %-7s %-5s %s %s %s  %s\n", d.Time.Local().Format(time.DateTime), orDash(d.Host), what, orDash(d.Gate), terminalSafe(orDash(d.Tool)), strings.Join(paths, ","), terminalSafe(msg))
		}
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintln(w, "findings: none")
	} else {
		fmt.Fprintln(w, "findings:")
		for _, f := range rep.Findings {
			fmt.Fprintf(w, "  %s  %s  %s\n", time.UnixMilli(f.Time).Format(time.DateTime), f.Rule, terminalSafe(f.Message))
		}
	}
	printJobReports(w, rep.JobReports)
	fmt.Fprintf(w, "quarantine: %d %s\n", rep.Quarantine, plural(rep.Quarantine, "entry", "entries"))
	fmt.Fprintln(w, "next: "+rep.Next)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// terminalSafe writes control characters and bytes that are not UTF-8 as Go escapes (\x1b,
// \n…), so text that came from file names or agents cannot drive the terminal or forge lines.
func terminalSafe(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
