//go:build linux

package redteam

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/outcome"
)

// step is one tool call, in neutral form: the drivers spell it in their host's shape.
type step struct {
	tool    string // bash, write, edit, or any other name (an unknown tool: executed as a write)
	command string // bash
	path    string // write, edit, unknown: relative to the repository root
	content string // write, unknown
	old     string // edit
	new     string // edit
	// bg: how long to wait after the post check for a background job the call started
	bg time.Duration
}

func bash(c string) step { return step{tool: "bash", command: c} }
func write(p, c string) step {
	return step{tool: "write", path: p, content: c}
}
func edit(p, o, n string) step { return step{tool: "edit", path: p, old: o, new: n} }

// answer is what the guard said about one call.
type answer struct {
	refused bool   // the pre check refused it: it never ran
	undone  bool   // a check after it undid what it did (its post, or the next call's pre/post)
	text    string // what the agent was told
}

// driver speaks one host protocol to the built binary for one repository.
type driver interface {
	pre(id string, s step) answer
	post(id string, s step) answer
	close()
}

// --- Claude Code: one `mbguard hook claude` process per hook call ---

type claudeDriver struct {
	t         *testing.T
	bin, root string
	session   string
}

func (d *claudeDriver) input(s step) (string, map[string]any) {
	abs := filepath.Join(d.root, s.path)
	switch s.tool {
	case "bash":
		return "Bash", map[string]any{"command": s.command, "description": "step"}
	case "write":
		return "Write", map[string]any{"file_path": abs, "content": s.content}
	case "edit":
		return "Edit", map[string]any{"file_path": abs, "old_string": s.old, "new_string": s.new}
	}
	return s.tool, map[string]any{"path": abs, "content": s.content}
}

func (d *claudeDriver) payload(event, id string, s step) []byte {
	tool, in := d.input(s)
	p := map[string]any{"hook_event_name": event, "session_id": d.session, "transcript_path": "/dev/null",
		"cwd": d.root, "tool_name": tool, "tool_input": in, "tool_use_id": id}
	if event == "PostToolUse" {
		p["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
	}
	b, _ := json.Marshal(p)
	return b
}

func (d *claudeDriver) run(event, id string, s step) (int, []byte, []byte) {
	b := d.payload(event, id, s)
	cmd := exec.Command(filepath.Join(filepath.Dir(d.bin), "mbguard-hook"), "hook", "claude")
	cmd.Dir = d.root
	cmd.Stdin = bytes.NewReader(b)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		d.t.Fatalf("running the hook: %v", err)
	}
	return code, out.Bytes(), errb.Bytes()
}

func (d *claudeDriver) pre(id string, s step) answer {
	code, out, errb := d.run("PreToolUse", id, s)
	a := answer{text: string(errb) + string(out)}
	a.refused = code == 2 || bytes.Contains(out, []byte(`"permissionDecision":"deny"`))
	if code != 0 && code != 2 {
		d.t.Errorf("PreToolUse exit %d: %s", code, a.text)
	}
	// a pre check that settled an earlier call's changes says so in its context
	a.undone = strings.Contains(a.text, "undid")
	return a
}

func (d *claudeDriver) post(id string, s step) answer {
	code, out, errb := d.run("PostToolUse", id, s)
	if code != 0 {
		d.t.Errorf("PostToolUse exit %d: %s%s", code, out, errb)
	}
	var r struct{ Decision, Reason string }
	_ = json.Unmarshal(out, &r)
	return answer{undone: r.Decision == "block", text: r.Reason + string(errb)}
}

func (d *claudeDriver) close() {}

// --- serve --stdio: one long-lived process, JSON lines ---

type serveDriver struct {
	t       *testing.T
	root    string
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	n       int
	session string
}

func newServe(t *testing.T, bin, root string) *serveDriver {
	cmd := exec.Command(bin, "serve", "--stdio", "--root", root)
	cmd.Dir = root
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &serveDriver{t: t, root: root, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), session: "ses_1"}
}

func (d *serveDriver) args(s step) (string, map[string]any) {
	abs := filepath.Join(d.root, s.path)
	switch s.tool {
	case "bash":
		return "bash", map[string]any{"command": s.command, "description": "step"}
	case "write":
		return "write", map[string]any{"filePath": abs, "content": s.content}
	case "edit":
		return "edit", map[string]any{"filePath": abs, "oldString": s.old, "newString": s.new}
	}
	return s.tool, map[string]any{"path": abs, "content": s.content}
}

type serveReply struct {
	Decision struct {
		Verdict string `json:"verdict"`
		Message string `json:"message"`
	} `json:"decision"`
	Notice any    `json:"notice"`
	Error  string `json:"error"`
}

func (d *serveDriver) send(kind, id string, s step) serveReply {
	d.n++
	tool, args := d.args(s)
	req := map[string]any{"id": d.n, "op": "event", "event": map[string]any{"kind": kind, "host": "opencode",
		"session": d.session, "message": "msg_1", "tool": tool, "args": args, "cwd": d.root, "call": id,
		"now": time.Now().UnixMilli()}}
	b, _ := json.Marshal(req)
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		d.t.Fatalf("writing to serve: %v", err)
	}
	line, err := d.out.ReadBytes('\n')
	if err != nil {
		d.t.Fatalf("reading from serve: %v", err)
	}
	var r serveReply
	if err := json.Unmarshal(line, &r); err != nil {
		d.t.Fatalf("serve answered %q: %v", line, err)
	}
	return r
}

func (d *serveDriver) pre(id string, s step) answer {
	r := d.send("tool.before", id, s)
	n, _ := json.Marshal(r.Notice)
	return answer{refused: r.Decision.Verdict == "block", undone: strings.Contains(string(n), "undid"),
		text: r.Decision.Message + string(n)}
}

func (d *serveDriver) post(id string, s step) answer {
	r := d.send("tool.after", id, s)
	return answer{undone: r.Decision.Verdict == "block", text: r.Decision.Message}
}

func (d *serveDriver) close() {
	d.in.Close()
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

// --- executing a call for real ---

func execute(t *testing.T, root string, s step) {
	t.Helper()
	abs := filepath.Join(root, s.path)
	switch s.tool {
	case "bash":
		cmd := exec.Command("bash", "-c", s.command)
		cmd.Dir = root
		cmd.Stdin = nil
		// a background job keeps no pipe of ours open
		cmd.Stdout, cmd.Stderr = nil, nil
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%q ran for 20 s", s.command)
		}
	case "edit":
		b, err := os.ReadFile(abs)
		if err != nil {
			return // the tool would fail
		}
		if !bytes.Contains(b, []byte(s.old)) {
			return
		}
		os.WriteFile(abs, bytes.Replace(b, []byte(s.old), []byte(s.new), 1), 0o644)
	default: // write and unknown tools write their content
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.WriteFile(abs, []byte(s.content), 0o644)
	}
}

// --- the bank's state and the quarantine ---

// bankState is everything under memory-bank/: kind, mode and bytes (a symlink's target).
func bankState(root string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(filepath.Join(root, "memory-bank"), func(p string, de fs.DirEntry, err error) error {
		fi, lerr := os.Lstat(p)
		if lerr != nil {
			return nil
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			s, _ := os.Readlink(p)
			v += " -> " + s
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			v += fmt.Sprintf(" %d %x", len(b), b)
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				v += fmt.Sprintf(" links=%d", st.Nlink)
			}
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = v
		return nil
	})
	if _, err := os.Lstat(filepath.Join(root, "memory-bank")); err != nil {
		out["memory-bank"] = "missing"
	}
	return out
}

func diffBank(want, got map[string]string) []string {
	var out []string
	for p, w := range want {
		if g := got[p]; g != w {
			out = append(out, fmt.Sprintf("%s: %.60s -> %.60s", p, w, g))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("%s: new %.60s", p, g))
		}
	}
	return out
}

// quarantineHolds reports whether any quarantine entry holds want.
func quarantineHolds(root, want string) bool {
	r, err := repo.Find(root)
	if err != nil {
		return false
	}
	qs, _ := outcome.ListQuarantine(r)
	for _, q := range qs {
		for _, e := range q.Entries {
			b, _ := outcome.ReadQuarantined(r, q, e)
			if bytes.Contains(b, []byte(want)) {
				return true
			}
		}
	}
	return false
}

var _ = testgit.Git
