//go:build linux

package redteam

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
	"github.com/mbguard/mbguard/outcome"
)

// bigScript creates n files in the bank, a folder depth levels deep (openat-style, as no
// absolute path could name its bottom), and overwrites a known file, from a script the gate
// cannot read through.
func bigScript(n, depth int) []step {
	return script("big.py", `import os
b = 'mem' + 'ory-bank'
open(b + '/details/progress.md', 'w').write('# Progress\nbig-overwrite\n')
os.makedirs(b + '/junk/deep', exist_ok=True)
for i in range(`+itoa(n)+`):
    open(b + '/junk/deep/f%05d.md' % i, 'w').write('junk\n')
fd = os.open(b, os.O_RDONLY | os.O_DIRECTORY)
for i in range(`+itoa(depth)+`):
    os.mkdir('d' if i else 'down', dir_fd=fd)
    nfd = os.open('d' if i else 'down', os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.close(fd)
`, "python3 tools/big.py")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// runBig runs the script as the agent's shell would, without execute's 20 s bound: on a
// loaded machine creating thousands of files takes longer.
func runBig(t *testing.T, root string) {
	t.Helper()
	cmd := exec.Command("python3", "tools/big.py")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3 tools/big.py: %v\n%s", err, out)
	}
}

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	until := time.Now().Add(d)
	for !cond() {
		if time.Now().After(until) {
			t.Fatalf("after %s: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPostOutOfTimeFinishesInBackground: a big change with a deadline far too short (the
// test knob) is undone in the background in both protocols; the post says so, the next call
// is refused with "still undoing" until it is done, and nothing the call made stands.
func TestPostOutOfTimeFinishesInBackground(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	testhost.Tool(t, "python3", "apt-get install python3")
	bin := binary(t)
	tmpl := template(t, bin)
	want := bankState(tmpl)
	t.Setenv(outcome.DeadlineEnv, "1ms") // the hook processes and serve inherit it
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			root := clone(t, tmpl)
			d := p.open(t, bin, root)
			defer d.close()
			runSteps(t, d, root, "w", []step{bash("true")})
			steps := bigScript(3000, 0)
			if a := d.pre("prep", steps[0]); a.refused {
				t.Fatalf("writing the script was refused: %.600s", a.text)
			}
			execute(t, root, steps[0])
			d.post("prep", steps[0])
			if d.pre("big", steps[1]).refused {
				t.Fatal("the script was refused before it ran; this test is about the post check")
			}
			runBig(t, root)
			a := d.post("big", steps[1])
			if !a.undone || !strings.Contains(a.text, "still undoing") {
				t.Errorf("the post did not say the undo goes on in the background: %.600s", a.text)
			}
			refusals := 0
			next := bash("ls memory-bank >/dev/null")
			told := ""
			waitUntil(t, 60*time.Second, "the next call is still refused", func() bool {
				a := d.pre("next", next)
				told += a.text
				if a.refused {
					refusals++
					if !strings.Contains(a.text, "still undoing") || !strings.Contains(a.text, "retry") {
						t.Fatalf("refused without saying why: %.600s", a.text)
					}
				}
				return !a.refused
			})
			execute(t, root, next)
			told += d.post("next", next).text
			t.Logf("the next call was refused %d times while the background check ran", refusals)
			// what the background check undid reaches the agent with its next call, once
			if !strings.Contains(told, "finished in the background") || !strings.Contains(told, "[mbguard] undid") {
				t.Errorf("the agent was not told what the background check undid: %.900s", told)
			}
			again := d.pre("again", next).text
			execute(t, root, next)
			if again += d.post("again", next).text; strings.Contains(again, "finished in the background") {
				t.Errorf("the background check's message was told twice: %.600s", again)
			}
			if diff := diffBank(want, bankState(root)); len(diff) > 0 {
				t.Errorf("ESCAPED:\n  %s", strings.Join(diff, "\n  "))
			}
			if !quarantineHolds(root, "big-overwrite") {
				t.Error("the quarantine lacks the agent's bytes")
			}
		})
	}
}

// TestPostKilledMidCheck: the process running the post check of a 5,000-file, 1,500-level change is
// killed with SIGKILL while it works (a hook at the host's timeout; a serve process that
// dies). The call's record stays open, and the next call's pre check finishes the undo.
func TestPostKilledMidCheck(t *testing.T) {
	testhost.Tool(t, "git", "apt-get install git")
	testhost.Tool(t, "python3", "apt-get install python3")
	bin := binary(t)
	tmpl := template(t, bin)
	want := bankState(tmpl)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			root := clone(t, tmpl)
			d := p.open(t, bin, root)
			runSteps(t, d, root, "w", []step{bash("true")})
			// the deep folder keeps the check busy for seconds, long enough to be killed in it
			steps := bigScript(5000, 1500)
			d.pre("prep", steps[0])
			execute(t, root, steps[0])
			d.post("prep", steps[0])
			if d.pre("big", steps[1]).refused {
				t.Fatal("the script was refused before it ran")
			}
			runBig(t, root)
			// start the post check, wait until it has stamped the record, and kill it
			var proc *os.Process
			var wait func()
			switch dd := d.(type) {
			case *claudeDriver:
				cmd := exec.Command(bin, "hook", "claude")
				cmd.Dir = root
				cmd.Stdin = bytes.NewReader(dd.payload("PostToolUse", "big", steps[1]))
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				proc, wait = cmd.Process, func() { cmd.Wait() }
			case *serveDriver:
				dd.n++
				tool, args := dd.args(steps[1])
				b, _ := json.Marshal(map[string]any{"id": dd.n, "op": "event", "event": map[string]any{"kind": "tool.after",
					"host": "opencode", "session": dd.session, "tool": tool, "args": args, "cwd": root, "call": "big",
					"now": time.Now().UnixMilli()}})
				dd.in.Write(append(b, '\n'))
				proc, wait = dd.cmd.Process, func() { dd.cmd.Wait() }
			}
			log := filepath.Join(root, ".git/mbguard/inflight.log")
			waitUntil(t, 60*time.Second, "the post check never stamped the call's record", func() bool {
				b, _ := os.ReadFile(log)
				return bytes.Contains(b, []byte(`"post":`))
			})
			proc.Signal(syscall.SIGKILL)
			wait()
			if b, _ := os.ReadFile(log); !bytes.Contains(b, []byte(`"id":"big"`)) || len(bytes.TrimSpace(b)) == 0 {
				t.Fatalf("the killed check left no open record: %q", b)
			}
			if _, ok := d.(*serveDriver); ok {
				d = p.open(t, bin, root) // the host starts serve again
			}
			defer d.close()
			next := bash("ls memory-bank >/dev/null")
			a := d.pre("next", next)
			if a.refused {
				t.Fatalf("the next call was refused: %.600s", a.text)
			}
			if !a.undone {
				t.Errorf("the next pre check did not say it undid the killed call's change: %.600s", a.text)
			}
			execute(t, root, next)
			d.post("next", next)
			if diff := diffBank(want, bankState(root)); len(diff) > 0 {
				if len(diff) > 5 {
					diff = append(diff[:5], "...")
				}
				t.Errorf("ESCAPED:\n  %s", strings.Join(diff, "\n  "))
			}
			if !quarantineHolds(root, "big-overwrite") {
				t.Error("the quarantine lacks the agent's bytes")
			}
		})
	}
}
