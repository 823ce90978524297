package outcome

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/internal/proctab"
	"github.com/mbguard/mbguard/internal/repo"
)

// Events come from the host. A hook event, a `serve --stdio` request or a socket request
// changes mbguard's state (a read credited, a call's window closed, a call recorded), so one
// sent from inside an agent's tool call — `echo '{…PostToolUse…}' | mbguard hook claude`, a
// script that replays its own call id, a copy of the binary — would let the agent switch the
// guard off. What tells a host's request from a forged one is where the process sits:
//
//	host ─┬─ [sh -c "mbguard hook claude"] ─ mbguard hook claude     the host's hook: passes
//	      └─ bash -c "<the agent's command>" ─ … ─ mbguard hook …    under a tool call: refused
//
// Every pre check records the host (Call.Parent: the first ancestor of the hook that is not a
// hook runner, by pid and start time). A request is refused when a process between it and the
// recorded host of a call in the in-flight log is not a hook runner (a shell, env, node, npx
// whose command is `mbguard hook|serve|settle …`), or when one of its ancestors is a process a
// call left running (a job's recorded process, or a later member of its session). One walk up
// the parent chain in /proc and the in-flight log, which every pre check reads anyway.
//
// What this cannot tell: a tool shell that replaces itself (`exec`) by a hook runner sits
// where a runner sits. The first line refuses a command that names mbguard's entry points;
// a program that execs one by a path it builds at run time is the limit (docs/known-good.md).
// Off Linux the process table is not read and nothing is refused here.

// Origin names the agent call a process was found to run under.
type Origin struct {
	PID  int    // the call's process among the requester's ancestors
	Name string // its command name
	Call string // the call's id
	Tool string
	Job  bool // a process the call left running
}

func (o Origin) String() string {
	id := strings.TrimSuffix(o.Call, bgSuffix)
	if o.Job {
		return fmt.Sprintf("process %d (%s), left running by %s call %s", o.PID, o.Name, o.Tool, id)
	}
	return fmt.Sprintf("process %d (%s) of %s call %s", o.PID, o.Name, o.Tool, id)
}

// FromCall reports whether process pid runs inside an agent's tool call recorded in r's
// in-flight log, or under a process one left running. With person false (a protocol request)
// hook runners between pid and the host are allowed; with person true (a command only the
// person may run) being anywhere under the host of a call in flight is enough.
func FromCall(r repo.Repo, pid int, person bool) (Origin, bool) {
	tab := proctab.Local()
	if !tab.Supported() || pid <= 0 {
		return Origin{}, false
	}
	p := filepath.Join(r.StateDir(), "inflight.log")
	if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
		return Origin{}, false // nothing in flight: the common case costs one stat
	}
	in := (&Guard{r: r}).loadInflight() // only the log and its MAC key: no objects, no store
	if len(in.Calls) == 0 {
		return Origin{}, false
	}
	self, ok := tab.Stat(pid)
	if !ok {
		return Origin{}, false
	}
	return fromCall(tab, in.Calls, self, walkUp(tab, self, hostsOf(in.Calls)), person, pid)
}

// hostsOf are the recorded hosts of calls (pid and start time): the walk up the parent chain
// stops at the first of them, since what matters lies below it.
func hostsOf(calls []Call) map[[2]uint64]bool {
	m := map[[2]uint64]bool{}
	for _, c := range calls {
		if c.Parent != nil {
			m[[2]uint64{uint64(c.Parent.PID), c.Parent.Start}] = true
		}
	}
	return m
}

func fromCall(tab proctab.Table, calls []Call, self proctab.Stat, anc []ancestor, person bool, pid int) (Origin, bool) {
	for _, c := range calls {
		if o, ok := callOrigin(tab, c, self, anc, person, pid); ok {
			return o, true
		}
	}
	return Origin{}, false
}

// commName is pid's command name ("" when it is gone).
func commName(tab proctab.Table, pid int) string {
	c, _ := tab.Comm(pid)
	return c
}

// callOrigin is fromCall for one recorded call c.
func callOrigin(tab proctab.Table, c Call, self proctab.Stat, anc []ancestor, person bool, pid int) (Origin, bool) {
	if len(c.Procs) == 0 && c.Ticks > 0 && self.Start >= c.Ticks && orphan(tab, anc, c.Ticks) {
		// started during the call, and every ancestor since is gone: a job the call made
		// an orphan (`(mbguard hook … &)`, setsid) before its post check could record it
		return Origin{PID: pid, Name: commName(tab, pid), Call: c.ID, Tool: c.Tool, Job: true}, true
	}
	if len(c.Procs) > 0 {
		return jobOrigin(tab, c, anc)
	}
	if c.Parent == nil {
		return Origin{}, false
	}
	k := parentIndex(anc, c.Parent)
	if k < 0 {
		return Origin{}, false
	}
	if person {
		o := Origin{PID: c.Parent.PID, Call: c.ID, Tool: c.Tool}
		if k > 0 {
			o.PID = anc[k-1].pid
		}
		o.Name = commName(tab, o.PID)
		return o, true
	}
	for _, a := range anc[:k] {
		if args, _ := tab.Cmdline(a.pid); !runsEntry(args, 0) {
			return Origin{PID: a.pid, Name: commName(tab, a.pid), Call: c.ID, Tool: c.Tool}, true
		}
	}
	return Origin{}, false
}

// jobOrigin finds, among anc, one of the processes the call c recorded as its own, or one of
// their sessions started since the call began.
func jobOrigin(tab proctab.Table, c Call, anc []ancestor) (Origin, bool) {
	for _, a := range anc {
		for _, p := range c.Procs {
			if a.pid == p.PID && a.start == p.Start || p.Sid > 1 && a.sid == p.Sid && a.start >= c.Ticks {
				return Origin{PID: a.pid, Name: commName(tab, a.pid), Call: c.ID, Tool: c.Tool, Job: true}, true
			}
		}
	}
	return Origin{}, false
}

// parentIndex is the position of the call's parent process in anc (-1 when it is not there).
func parentIndex(anc []ancestor, parent *Proc) int {
	for i, a := range anc {
		if a.pid == parent.PID && a.start == parent.Start {
			return i
		}
	}
	return -1
}

// orphan reports whether the first of anc that started before the tick since is init or a
// subreaper: the process outlived whatever started it during the call. A host's hook, or a
// person's command, reaches a living process older than the call (the host, a terminal).
func orphan(tab proctab.Table, anc []ancestor, since uint64) bool {
	for _, a := range anc {
		if a.start >= since {
			continue
		}
		comm, _ := tab.Comm(a.pid)
		return subreapers[comm]
	}
	return true // every ancestor started since, up to init
}

// subreapers adopt orphans in place of init.
var subreapers = map[string]bool{"systemd": true, "init": true, "tini": true, "dumb-init": true, "catatonit": true,
	"docker-init": true, "s6-svscan": true}

// ancestor is one process above a requester.
type ancestor struct {
	pid   int
	start uint64
	sid   int
}

// maxHops bounds the walk up the parent chain.
const maxHops = 64

// chain lists pid's ancestors, parent first, up to (not including) init or up to the first of
// stop (included). Each is one read of /proc/<pid>/stat: a host's own hook stops after one or
// two.
func chain(tab proctab.Table, pid int, stop map[[2]uint64]bool) []ancestor {
	st, ok := tab.Stat(pid)
	if !ok {
		return nil
	}
	return walkUp(tab, st, stop)
}

// walkUp is chain from a process's own stat line.
func walkUp(tab proctab.Table, st proctab.Stat, stop map[[2]uint64]bool) []ancestor {
	var out []ancestor
	ok := true
	for hops := 0; ok && st.PPID > 1 && hops < maxHops; hops++ {
		p := st.PPID
		if st, ok = tab.Stat(p); ok {
			out = append(out, ancestor{pid: p, start: st.Start, sid: st.Sid})
			if stop[[2]uint64{uint64(p), st.Start}] {
				break
			}
		}
	}
	return out
}

// HostOf is the host process that started the hook or server pid: its first ancestor that is
// not a hook runner (nil off Linux). The pre check records it (Call.Parent).
func HostOf(pid int) *Proc {
	tab := proctab.Local()
	for _, a := range chain(tab, pid, nil) {
		if args, _ := tab.Cmdline(a.pid); !runsEntry(args, 0) {
			return &Proc{PID: a.pid, Start: a.start, Sid: a.sid}
		}
	}
	return nil
}

// ProcOf is process pid itself as a call's host (nil when it is gone, or off Linux): an http
// hook request comes from the host process, not from a hook it started.
func ProcOf(pid int) *Proc {
	st, ok := proctab.Local().Stat(pid)
	if !ok {
		return nil
	}
	return &Proc{PID: pid, Start: st.Start, Sid: st.Sid}
}

// launchers are the programs a host may put between itself and `mbguard hook`: shells that
// run the configured command line, and the npm wrapper's node/npx.
var launchers = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "fish": true,
	"busybox": true, "env": true, "exec": true, "command": true, "nice": true, "nohup": true, "node": true,
	"nodejs": true, "npx": true, "npx-cli": true, "bun": true, "bunx": true, "cmd": true, "pwsh": true, "powershell": true}

// entryPoints are mbguard's protocol entry points: what a host runs.
var entryPoints = map[string]bool{"hook": true, "serve": true, "settle": true}

// runsEntry reports whether args (a process's argument vector, or the words of a shell's -c
// command) run nothing but an mbguard protocol entry point through launchers.
func runsEntry(args []string, depth int) bool {
	for i := 0; i < len(args); i++ {
		w := strings.Trim(args[i], `"'`)
		switch {
		case w == "":
			continue
		case strings.HasPrefix(w, "-"):
			// a shell's -c (-lc, -ec …): the configured command line follows
			if !strings.HasPrefix(w, "--") && strings.Contains(w, "c") && i+1 < len(args) && depth < 2 && i > 0 &&
				launchers[progName(args[i-1])] {
				return runsEntry(shellWords(args[i+1]), depth+1)
			}
			continue
		case strings.Contains(w, "=") && !strings.ContainsAny(w[:strings.Index(w, "=")], "/ "):
			continue // NAME=value before the command
		}
		base := progName(w)
		if base == "mbguard" || base == "mbguard-hook" { // mbguard-hook answers hook calls, hands over the rest
			return entryAfter(args[i+1:])
		}
		if !launchers[base] {
			return false
		}
	}
	return false
}

// entryAfter reports whether mbguard's words (after its name) name a protocol entry point.
func entryAfter(words []string) bool {
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], `"'`)
		switch {
		case w == "-C" || w == "--dir" || w == "--set":
			i++
		case strings.HasPrefix(w, "-"):
		default:
			return entryPoints[w]
		}
	}
	return false
}

// shellWords splits a command line into words, honouring quotes (the configured hook command
// quotes a binary path with spaces); a word that holds shell syntax (a redirection, a pipe, a
// substitution) is kept as it is, so it never reads as a launcher.
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(ch)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// progName is a program's name without its folder and extension (mbguard.js, mbguard.exe).
func progName(w string) string {
	b := filepath.Base(strings.Trim(w, `"'`))
	for _, ext := range []string{".js", ".cjs", ".mjs", ".exe"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}
