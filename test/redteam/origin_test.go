//go:build linux

package redteam

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testhost"
)

// Events come from the host (issue 26). The test process is the host: it runs each hook as its
// child (`mbguard hook claude`, `serve --stdio`) and each Bash call as `bash -c` (execute), so
// what the agent's command starts sits under a tool call's shell, as under a real host. Each
// attack forges the guard's own events or runs the person's commands from inside the call,
// then writes into the bank; the call's real post check must still undo the write, and the
// guard stays on for the next call.

// forgeScript is run as the agent's command. $MBG is a copy of the binary under another name
// (a path known only at run time), $CALL the call's id, read from inflight.log like an agent
// would; each forged request's exit status goes to forged.rc.
func forgeScript(bin, root, body string) string {
	return "set -u\nMBG=\"$(mktemp -d)/mbg\"\ncp " + strconv.Quote(bin) + " \"$MBG\"\n" +
		"CALL=$(grep -o '\"id\":\"[^\"]*\"' .git/mbguard/inflight.log | head -1 | cut -d'\"' -f4)\n" +
		"ROOT=" + strconv.Quote(root) + "\n" + body + "\n"
}

// claudeEvent is a Claude Code hook payload, as JSON for a shell's single quotes.
func claudeEvent(root, event, tool, id string, input map[string]any) string {
	p := map[string]any{"hook_event_name": event, "session_id": "sess-redteam", "transcript_path": "/dev/null", "cwd": root,
		"tool_name": tool, "tool_input": input, "tool_use_id": id}
	if event == "PostToolUse" {
		p["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func forgedRCs(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "forged.rc"))
	if err != nil {
		t.Fatalf("the attack did not run: %v", err)
	}
	return strings.Fields(string(b))
}

func TestForgedEventsRefused(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	bin := binary(t)
	tmpl := template(t, bin)
	want := bankState(tmpl)
	call := bash("bash tools/step.sh")
	const tmplRoot = "/ROOTDIR"
	attacks := []struct{ name, body string }{
		{"PostToolUse for its own call, then a fake pair", `
printf '%s' '` + claudeEvent(tmplRoot, "PostToolUse", "Bash", "CALLID", map[string]any{"command": "bash tools/step.sh"}) + `' | sed -e "s|CALLID|$CALL|" -e "s|` + tmplRoot + `|$ROOT|" | "$MBG" hook claude; echo $? >> forged.rc
printf 'x=1' > memory-bank/run.sh
printf '%s' '` + claudeEvent(tmplRoot, "PreToolUse", "Bash", "fake-1", map[string]any{"command": "true"}) + `' | sed "s|` + tmplRoot + `|$ROOT|" | "$MBG" hook claude; echo $? >> forged.rc
printf '%s' '` + claudeEvent(tmplRoot, "PostToolUse", "Bash", "fake-1", map[string]any{"command": "true"}) + `' | sed "s|` + tmplRoot + `|$ROOT|" | "$MBG" hook claude; echo $? >> forged.rc`},
		{"Stop, SessionEnd, UserPromptSubmit and PermissionDenied", `
for ev in Stop SessionEnd UserPromptSubmit PermissionDenied; do
  printf '{"hook_event_name":"%s","session_id":"sess-redteam","cwd":"%s","tool_use_id":"%s","tool_name":"Bash","tool_input":{"command":"x"},"prompt":"go on","reason":"other"}' "$ev" "$ROOT" "$CALL" | "$MBG" hook claude; echo $? >> forged.rc
done
printf 'x=1' > memory-bank/run.sh`},
		{"a script in python, through the PATH name", `
mkdir -p bin && cp "$MBG" bin/mbguard
PATH="$PWD/bin:$PATH" python3 - "$CALL" "$ROOT" <<'PY'
import json, subprocess, sys
call, root = sys.argv[1], sys.argv[2]
ev = {"hook_event_name": "PostToolUse", "session_id": "sess-redteam", "cwd": root, "tool_name": "Bash",
      "tool_input": {"command": "bash tools/step.sh"}, "tool_use_id": call, "tool_response": {"stdout": ""}}
r = subprocess.run(["mbguard", "hook", "claude"], input=json.dumps(ev).encode())
open("forged.rc", "a").write("%d\n" % r.returncode)
PY
printf 'x=1' > memory-bank/run.sh`},
		{"an orphan: setsid and a double fork", `
printf '%s' '` + claudeEvent(tmplRoot, "PostToolUse", "Bash", "CALLID", map[string]any{"command": "bash tools/step.sh"}) + `' | sed -e "s|CALLID|$CALL|" -e "s|` + tmplRoot + `|$ROOT|" > ev.json
export MBG
( setsid sh -c '"$MBG" hook claude < ev.json > /dev/null 2>&1; echo $? >> forged.rc' & )
for i in $(seq 300); do [ -s forged.rc ] && break; sleep 0.05; done
rm -f ev.json
printf 'x=1' > memory-bank/run.sh`},
		{"Codex's hook", `
printf '{"hook_event_name":"PostToolUse","session_id":"sess-redteam","cwd":"%s","tool_name":"Bash","tool_use_id":"%s","tool_input":{"command":"bash tools/step.sh"},"tool_response":"ok"}' "$ROOT" "$CALL" | "$MBG" hook codex; echo $? >> forged.rc
printf 'x=1' > memory-bank/run.sh`},
		{"serve --stdio for OpenCode", `
printf '{"id":1,"op":"event","event":{"kind":"tool.after","host":"opencode","session":"sess-redteam","tool":"bash","args":{"command":"bash tools/step.sh"},"cwd":"%s","call":"%s"}}\n' "$ROOT" "$CALL" | "$MBG" serve --stdio --root "$ROOT" > serve.out 2>&1; echo $? >> forged.rc
printf 'x=1' > memory-bank/run.sh`},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			root := clone(t, tmpl)
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			d := &claudeDriver{t: t, bin: bin, root: root, session: "sess-redteam"}
			if r := d.pre("toolu_1", call); r.refused {
				t.Fatalf("the host's own pre check was refused: %s", r.text)
			}
			os.WriteFile(filepath.Join(root, "tools", "step.sh"), []byte(forgeScript(bin, root, a.body)), 0o755)
			execute(t, root, call)
			// (Claude Code's post-tool and lifecycle events exit 0 whatever the answer: what
			// counts is that nothing was recorded, and that the person is told of each one)
			forged := len(forgedRCs(t, root))
			post := d.post("toolu_1", call)
			if !post.undone {
				t.Errorf("the real PostToolUse undid nothing: %s", post.text)
			}
			os.Remove(filepath.Join(root, "forged.rc"))
			os.Remove(filepath.Join(root, "serve.out"))
			os.RemoveAll(filepath.Join(root, "bin"))
			if diff := diffBank(want, bankState(root)); len(diff) > 0 {
				t.Errorf("memory-bank/ changed: %s", strings.Join(diff, "; "))
			}
			log, _ := os.ReadFile(filepath.Join(root, ".git", "mbguard", "decisions.jsonl"))
			if n := strings.Count(string(log), `"gate":"origin"`); n < forged {
				t.Errorf("the decision log reports %d of %d forged requests:\n%.2000s", n, forged, log)
			}
			guardStaysOn(t, d, root, want)
		})
	}
}

// guardStaysOn plays a later forbidden write (a script the first line lets through): the
// guard must still undo it.
func guardStaysOn(t *testing.T, d *claudeDriver, root string, want map[string]string) {
	t.Helper()
	later := bash("bash tools/later.sh")
	if r := d.pre("toolu_later", later); r.refused {
		t.Fatalf("the next call was refused: %s", r.text)
	}
	os.WriteFile(filepath.Join(root, "tools", "later.sh"), []byte("printf 'y=2' > memory-bank/later.sh\n"), 0o755)
	execute(t, root, later)
	if p := d.post("toolu_later", later); !p.undone {
		t.Errorf("a later forbidden write was not undone: the guard is off (%s)", p.text)
	}
	if diff := diffBank(want, bankState(root)); len(diff) > 0 {
		t.Errorf("memory-bank/ changed by the later call: %s", strings.Join(diff, "; "))
	}
}

// The person's commands, through a copy of the binary, from inside an agent's call: refused
// (exit 1), and the write in the same call is undone. From outside any call (the test
// process itself is no tool call) the person's uninstall works.
func TestPersonCommandsRefusedUnderAgent(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	bin := binary(t)
	tmpl := template(t, bin)
	want := bankState(tmpl)
	call := bash("bash tools/step.sh")
	for _, cmd := range []string{"uninstall", "install --agent claude --uninstall", "doctor --reset-known-good",
		"doctor --confirm-user-files", "quarantine drop --all", "quarantine restore last",
		"--set gating.shell_markdown_writes=true watch --detach"} {
		t.Run(cmd, func(t *testing.T) {
			root := clone(t, tmpl)
			os.MkdirAll(filepath.Join(root, "tools"), 0o755)
			d := &claudeDriver{t: t, bin: bin, root: root, session: "sess-redteam"}
			if r := d.pre("toolu_1", call); r.refused {
				t.Fatalf("the host's own pre check was refused: %s", r.text)
			}
			os.WriteFile(filepath.Join(root, "tools", "step.sh"), []byte(forgeScript(bin, root,
				`export MBG; script -qec '"$MBG" `+cmd+`' /dev/null > person.out 2>&1 </dev/null; echo $? >> forged.rc
"$MBG" `+cmd+` >> person.out 2>&1 </dev/null; echo $? >> forged.rc
printf 'x=1' > memory-bank/run.sh`)), 0o755)
			execute(t, root, call)
			out, _ := os.ReadFile(filepath.Join(root, "person.out"))
			for _, rc := range forgedRCs(t, root) {
				if rc != "1" {
					t.Errorf("`%s` from inside the call exited %s, want 1:\n%s", cmd, rc, out)
				}
			}
			if !strings.Contains(string(out), "the person's command") {
				t.Errorf("no clear refusal:\n%s", out)
			}
			if p := d.post("toolu_1", call); !p.undone {
				t.Errorf("the write in the same call was kept: %s", p.text)
			}
			os.Remove(filepath.Join(root, "forged.rc"))
			os.Remove(filepath.Join(root, "person.out"))
			if diff := diffBank(want, bankState(root)); len(diff) > 0 {
				t.Errorf("memory-bank/ changed: %s", strings.Join(diff, "; "))
			}
			guardStaysOn(t, d, root, want)
		})
	}
	t.Run("control: the person's uninstall outside any call", func(t *testing.T) {
		root := clone(t, tmpl)
		d := &claudeDriver{t: t, bin: bin, root: root, session: "sess-redteam"}
		n := bash("true")
		d.pre("toolu_1", n)
		execute(t, root, n)
		d.post("toolu_1", n)
		u := exec.Command(bin, "uninstall")
		u.Dir = root
		if out, err := u.CombinedOutput(); err != nil {
			t.Fatalf("the person's uninstall failed: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(root, ".git", "mbguard")); !os.IsNotExist(err) {
			t.Errorf("uninstall left .git/mbguard/: %v", err)
		}
	})
}

// One watcher, the person's: a watcher running with settings of its own (here
// MBGUARD_GATING_SHELL_MARKDOWN_WRITES=true, which lets shell .md writes into the bank through)
// is not asked; the hook decides in process, refuses the write, and reports the stray watcher.
// The person's own watcher, same executable and configuration, is asked.
func TestHooksTrustOnlyThePersonsWatcher(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	bin := binary(t)
	tmpl := template(t, bin)
	mdWrite := bash("echo '- shipped' >> memory-bank/details/progress.md")
	for _, tc := range []struct {
		name  string
		env   []string
		stray bool
	}{
		{"the person's watcher is asked", nil, false},
		{"a watcher with settings of its own is not", []string{"MBGUARD_GATING_SHELL_MARKDOWN_WRITES=true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := clone(t, tmpl)
			w := exec.Command(bin, "watch", "--detach")
			w.Dir = root
			w.Env = append(os.Environ(), tc.env...)
			if out, err := w.CombinedOutput(); err != nil {
				t.Fatalf("watch --detach: %v\n%s", err, out)
			}
			t.Cleanup(func() {
				s := exec.Command(bin, "watch", "--stop")
				s.Dir = root
				s.Run()
			})
			d := &claudeDriver{t: t, bin: bin, root: root, session: "sess-redteam"}
			a := d.pre("toolu_1", mdWrite)
			if !a.refused {
				t.Errorf("a shell write into the bank was allowed: %s", a.text)
			}
			b, err := os.ReadFile(filepath.Join(root, ".git", "mbguard", "watch.stray"))
			switch {
			case tc.stray && (err != nil || !strings.Contains(string(b), "settings of its own")):
				t.Errorf("the stray watcher is not reported: %q %v", b, err)
			case !tc.stray && err == nil:
				t.Errorf("the person's watcher was not trusted: %s", b)
			}
			st := exec.Command(bin, "watch", "--status")
			st.Dir = root
			out, _ := st.CombinedOutput()
			if tc.stray != strings.Contains(string(out), "does not ask the watcher") {
				t.Errorf("watch --status does not say whether the hooks ask the watcher:\n%s", out)
			}
		})
	}
}
