package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mbguard/mbguard/examples"
	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/outcome"
)

// demoEnv is the configuration the demo runs with, whatever the user's environment says:
// the read gate in block mode, so every gate has something to show.
var demoEnv = map[string]string{"MEMORY_BANK_GUARD_MODE": "block"}

func newDemoCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "demo [--from dir]", Short: "replay a scripted Claude Code session on a bundled demo project",
		Long: `Writes the demo project built into mbguard (examples/demo in the source) to a temporary
directory, runs git init there, and replays its session.jsonl (Claude Code hook payloads)
through the code of mbguard hook claude, with gating.mode=block. Nothing outside the
temporary directory changes; it is removed at the end.`,
		Example: "  mbguard demo\n  mbguard demo --from my-demo   # a project of your own with a session.jsonl",
		Args:    noArgs}
	from := c.Flags().String("from", "", "replay the project in `dir` (it needs a session.jsonl) instead of the bundled one")
	c.RunE = e.runs(func(ctx context.Context, args []string) int { return runDemo(ctx, e, *from) })
	return c
}

// runDemo replays the bundled demo project, or the one in from.
func runDemo(ctx context.Context, e *env, from string) int {
	src := ""
	if from != "" {
		if !filepath.IsAbs(from) {
			from = filepath.Join(e.dir, from)
		}
		var err error
		if src, err = filepath.Abs(from); err != nil {
			return e.fail(err)
		}
		if _, err := os.Stat(filepath.Join(src, "session.jsonl")); err != nil {
			return e.fail(fmt.Errorf("no session.jsonl in %s: pass a project with one, or run mbguard demo for the bundled one", src))
		}
	}
	tmp, err := os.MkdirTemp("", "mbguard-demo-")
	if err != nil {
		return e.fail(fmt.Errorf("making the demo directory: %w", err))
	}
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	defer func() {
		// the hooks recorded the demo repository in the user's state folder too: forget it,
		// or every doctor after would report a repository that no longer exists
		if r, err := repo.Find(tmp); err == nil && r.Root == tmp {
			if err := outcome.ForgetState(r); err != nil {
				fmt.Fprintf(e.stderr, "mbguard: removing the demo's state: %v (mbguard doctor --prune removes it)\n", err)
			}
		}
		os.RemoveAll(tmp)
	}()
	name := "the bundled demo project"
	if src == "" {
		err = examples.WriteDemo(tmp)
	} else {
		name = "a copy of " + src
		err = copyTree(src, tmp)
	}
	if err != nil {
		return e.fail(fmt.Errorf("preparing the demo project: %w", err))
	}
	if _, err := gitexec.Run(ctx, tmp, "init", "-q"); err != nil {
		return e.fail(fmt.Errorf("%w in %s (install git and retry)", err, tmp))
	}
	b, err := os.ReadFile(filepath.Join(tmp, "session.jsonl"))
	if err != nil {
		return e.fail(err)
	}
	rootJSON, _ := json.Marshal(tmp)
	b = bytes.ReplaceAll(b, []byte("@ROOT@"), bytes.Trim(rootJSON, `"`))

	fmt.Fprintf(e.stdout, "mbguard demo: a scripted Claude Code session in %s\n", name)
	fmt.Fprintf(e.stdout, "(run with gating.mode=block so every gate shows; the default is warn, which warns instead of blocking)\n\n")
	h := &hooks.Claude{Dir: tmp, Getenv: func(k string) string { return demoEnv[k] }, Now: time.Now}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), hooks.MaxClaudePayload)
	step, mismatches := 0, 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		step++
		var meta struct {
			Note   string `json:"_note"`
			Expect string `json:"_expect"`
		}
		json.Unmarshal(line, &meta)
		reply := h.Handle(ctx, line)
		verdict, text := demoOutcome(reply)
		mark := ""
		if meta.Expect != "" && meta.Expect != verdict {
			mark = fmt.Sprintf("  (expected %s)", meta.Expect)
			mismatches++
		}
		fmt.Fprintf(e.stdout, "%2d  %-48s %-6s %s%s\n", step, demoLabel(line, tmp), strings.ToUpper(verdict), meta.Note, mark)
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			if l != "" {
				fmt.Fprintf(e.stdout, "      │ %s\n", strings.ReplaceAll(l, tmp+"/", ""))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return e.fail(fmt.Errorf("reading session.jsonl: %w", err))
	}
	fmt.Fprintf(e.stdout, "\n%d steps replayed. In your repository: mbguard init (when it has no memory-bank/ yet), mbguard install --agent claude, then mbguard status.\n", step)
	if mismatches > 0 {
		fmt.Fprintf(e.stderr, "mbguard: %d demo steps did not give the expected verdict (see above)\n", mismatches)
		return exitFindings
	}
	return exitOK
}

// demoOutcome turns a hook reply into the verdict and the text the agent would see.
func demoOutcome(r hooks.ClaudeReply) (string, string) {
	if r.Exit == 2 {
		return "block", r.Stderr
	}
	var out struct {
		H struct {
			Ctx string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	json.Unmarshal(r.Stdout, &out)
	text := out.H.Ctx
	if r.Event == "SessionStart" && strings.HasPrefix(text, "<memory-bank>") {
		lines := strings.Split(text, "\n")
		text = fmt.Sprintf("additionalContext: <memory-bank> with MEMORY.md (%d characters, %d lines)", len(text), len(lines))
	}
	v := "allow"
	if r.Decision != nil && r.Decision.Verdict != "" {
		v = string(r.Decision.Verdict)
		if r.Decision.Recovery != "" {
			text = "recovery " + r.Decision.Recovery + "\n" + text
		}
	}
	return v, strings.TrimSpace(text + "\n" + r.Stderr)
}

// demoLabel names a step: the event, and the tool with its path or command.
func demoLabel(line []byte, root string) string {
	var p struct {
		Event  string         `json:"hook_event_name"`
		Tool   string         `json:"tool_name"`
		Input  map[string]any `json:"tool_input"`
		Source string         `json:"source"`
	}
	json.Unmarshal(line, &p)
	label := p.Event
	switch {
	case p.Tool != "":
		arg, _ := p.Input["file_path"].(string)
		if c, ok := p.Input["command"].(string); ok {
			arg = c
		}
		arg = strings.TrimPrefix(arg, root+"/")
		if len(arg) > 32 {
			arg = arg[:31] + "…"
		}
		label += " " + p.Tool + " " + arg
	case p.Source != "":
		label += " (" + p.Source + ")"
	}
	return label
}

// copyTree copies the demo project, skipping any .git directory.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return errors.New(rel + ": only regular files are copied")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
