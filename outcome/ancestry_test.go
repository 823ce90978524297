package outcome

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/proctab"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// runsEntry tells a hook runner (what a host puts between itself and `mbguard hook`) from a
// tool call's shell, which the ancestry check must never take for one.
func TestRunsEntry(t *testing.T) {
	cases := map[string]struct {
		args []string
		want bool
	}{
		"mbguard itself":              {[]string{"/usr/local/bin/mbguard", "hook", "claude"}, true},
		"sh -c":                       {[]string{"/bin/sh", "-c", "mbguard hook claude"}, true},
		"the hook program":            {[]string{"/bin/sh", "-c", "'/opt/mbguard/mbguard-hook' hook claude"}, true},
		"quoted absolute path":        {[]string{"/bin/sh", "-c", `"/opt/my tools/mbguard" hook claude`}, true},
		"bash -lc with -C":            {[]string{"bash", "-lc", "mbguard -C /repo hook codex"}, true},
		"npm wrapper":                 {[]string{"node", "/usr/lib/node_modules/mbguard/bin/mbguard.js", "hook", "claude"}, true},
		"npx":                         {[]string{"node", "/usr/lib/node_modules/npm/bin/npx-cli.js", "mbguard", "hook", "qwen"}, true},
		"env assignment":              {[]string{"env", "MBGUARD_DEBUG=1", "mbguard", "serve", "--stdio"}, true},
		"serve":                       {[]string{"mbguard", "serve", "--stdio", "--root", "/r"}, true},
		"claude code's tool shell":    {[]string{"/bin/bash", "-c", "source /tmp/snap.sh 2>/dev/null || true && eval 'mbguard hook claude < e.json'"}, false},
		"python script":               {[]string{"python3", "forge.py"}, false},
		"the person's command":        {[]string{"mbguard", "uninstall"}, false},
		"a shell running a script":    {[]string{"bash", "tools/step.sh"}, false},
		"a copy under another name":   {[]string{"/tmp/x/mbg", "hook", "claude"}, false},
		"empty (a kernel thread)":     {nil, false},
		"host binary":                 {[]string{"/usr/bin/claude", "-p", "go"}, false},
		"shell -c of a shell -c hook": {[]string{"sh", "-c", "exec bash -c 'mbguard hook claude'"}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := runsEntry(tc.args, 0); got != tc.want {
				t.Errorf("runsEntry(%q) = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
}

// FromCall against a real process tree: this test process plays the host (recorded as the
// call's Parent); a process it starts directly through a hook runner passes, one under a
// "tool shell" (bash running something else) is refused, and the person's mode refuses
// anything under the host.
func TestFromCallRealTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := FromCall(repo.Repo{}, os.Getpid(), true); ok {
			t.Fatal("FromCall refused off Linux, where the table is not read")
		}
		return
	}
	tab := proctab.Local()
	self, ok := tab.Stat(os.Getpid())
	if !ok {
		t.Fatal("cannot read this process")
	}
	host := &Proc{PID: os.Getpid(), Start: self.Start, Sid: self.Sid}
	calls := []Call{{ID: "toolu_1", Tool: "Bash", Parent: host, Ticks: tab.UptimeTicks()}}
	// a process is found by its pid: sleep under each shape, read while it sleeps
	start := func(name string, args ...string) int {
		cmd := exec.Command(name, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd.Process.Pid
	}
	child := func(shell int) int {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			pids, _ := tab.PIDs()
			for _, p := range pids {
				if st, ok := tab.Stat(p); ok && st.PPID == shell {
					if c, _ := tab.Comm(p); c == "sleep" {
						return p
					}
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatal("the sleeping child did not start")
		return 0
	}
	tool := start("bash", "-c", "sleep 30; true")
	under := child(tool)
	if o, ok := fromCall(tab, calls, stat(t, tab, under), chain(tab, under, nil), false, under); !ok || o.PID != tool {
		t.Errorf("a process under a tool shell: %+v, %v; want refused naming pid %d", o, ok, tool)
	}
	if _, ok := fromCall(tab, calls, stat(t, tab, tool), chain(tab, tool, nil), false, tool); ok {
		t.Error("a direct child of the host (the host's own hook, by shape) was refused")
	}
	if _, ok := fromCall(tab, calls, stat(t, tab, tool), chain(tab, tool, nil), true, tool); !ok {
		t.Error("person's mode: a process under the host was not refused")
	}
	other := []Call{{ID: "toolu_2", Tool: "Bash", Parent: &Proc{PID: host.PID, Start: host.Start + 1}, Ticks: calls[0].Ticks}}
	if _, ok := fromCall(tab, other, stat(t, tab, under), chain(tab, under, nil), true, under); ok {
		t.Error("a recorded host whose start time differs (a reused pid) was taken for this process")
	}
	job := []Call{{ID: "toolu_3" + bgSuffix, Tool: "Bash", Procs: []Proc{{PID: tool, Start: startOf(t, tab, tool)}}, Ticks: calls[0].Ticks}}
	if o, ok := fromCall(tab, job, stat(t, tab, under), chain(tab, under, nil), false, under); !ok || !o.Job {
		t.Errorf("a process under a job the call left: %+v, %v", o, ok)
	}
}

func stat(t *testing.T, tab proctab.Table, pid int) proctab.Stat {
	st, ok := tab.Stat(pid)
	if !ok {
		t.Fatalf("cannot read process %d", pid)
	}
	return st
}

func startOf(t *testing.T, tab proctab.Table, pid int) uint64 {
	st, ok := tab.Stat(pid)
	if !ok {
		t.Fatalf("cannot read process %d", pid)
	}
	return st.Start
}

// BenchmarkFromCall is the ancestry check alone with a call in flight whose host is this
// process's parent (the log read, its MAC checked, the chain walked), against the empty log
// (one stat) in the same run.
func BenchmarkFromCall(b *testing.B) {
	root := testgit.New(b)
	r, err := repo.Find(root)
	if err != nil {
		b.Fatal(err)
	}
	g := New(r, Options{})
	os.MkdirAll(r.StateDir(), 0o755)
	tab := proctab.Local()
	st, _ := tab.Stat(os.Getppid())
	b.Run("empty-log", func(b *testing.B) {
		for b.Loop() {
			FromCall(r, os.Getpid(), false)
		}
	})
	if err := g.saveInflight(inflight{}, inflight{Calls: []Call{{ID: "c1", Tool: "Bash", Start: time.Now().UnixMilli(),
		Parent: &Proc{PID: os.Getppid(), Start: st.Start}, Ticks: tab.UptimeTicks()}}}); err != nil {
		b.Fatal(err)
	}
	b.Run("call-in-flight", func(b *testing.B) {
		for b.Loop() {
			if _, ok := FromCall(r, os.Getpid(), false); ok {
				b.Fatal("refused")
			}
		}
	})
}
