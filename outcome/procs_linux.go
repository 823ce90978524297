package outcome

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/mbguard/mbguard/internal/proctab"
)

// Proc is a process a tool call left running, named by its id and its start time (clock
// ticks after boot), so a reused id is not taken for it.
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	// Sid is its session: a child it starts later stays in it (unless it calls setsid), so
	// the job is followed through a relay that outlives the process recorded here.
	Sid int `json:"sid,omitempty"`
}

// procStat reads a living process's session id and start time (a zombie is not running).
func procStat(pid int) (sid int, start uint64, ok bool) {
	st, ok := proctab.Local().Stat(pid)
	if !ok || st.State == 'Z' {
		return 0, 0, false
	}
	return st.Sid, st.Start, true
}

// uptimeTicks is the time since boot in clock ticks, the unit of a process's start time.
func uptimeTicks() uint64 { return proctab.Local().UptimeTicks() }

// leftBehind lists the processes a call left running: started since the uptime tick `since`,
// still running, in this process's session (a shell's background job) or in a session that
// began with the call (its shell's, whose leader has exited, or one made with setsid) —
// wherever it works (`cd /tmp` or a daemon's chdir change nothing) — and orphaned — the first of its ancestors started before the
// call is init or a subreaper, because the shell that started it has exited. A process the
// host itself started meanwhile (a language server, a formatter, the next test binary) has a
// living parent that predates the call and is not counted: a person's edits made while it
// runs must not be taken for the agent's. This process and its ancestors are not counted.
//
// Only the ids the kernel handed out since the pre check (from fromPID, /proc/loadavg's last
// id then) are looked at when that range is short; otherwise every process is.
func leftBehind(since uint64, fromPID int, root string) []Proc {
	mine, _, _ := procStat(os.Getpid())
	skip := map[int]bool{}
	for p := os.Getpid(); p > 1 && !skip[p]; p = ppid(p) {
		skip[p] = true
	}
	var out []Proc
	consider := func(pid int) {
		if skip[pid] {
			return
		}
		sid, start, ok := procStat(pid)
		if !ok || start < since {
			return
		}
		if sid != mine && !newSession(sid, since) {
			return // a session older than the call: some other program's
		}
		if !orphaned(pid, since) {
			return
		}
		out = append(out, Proc{PID: pid, Start: start, Sid: sid})
	}
	if to := lastPID(); fromPID > 0 && to >= fromPID && to-fromPID <= maxPIDRange {
		for pid := fromPID + 1; pid <= to; pid++ {
			consider(pid)
		}
		return out
	}
	pids, _ := proctab.Local().PIDs()
	for _, pid := range pids {
		consider(pid)
	}
	return out
}

// newSession reports whether session sid began with the call: its leader started since the
// tick `since`, or has exited (the call's shell, gone once the call returned).
func newSession(sid int, since uint64) bool {
	if sid <= 1 {
		return false
	}
	_, start, ok := procStat(sid)
	return !ok || start >= since
}

// maxPIDRange bounds the ids probed one by one; past it (a busy machine, ids wrapped around)
// listing /proc is cheaper.
const maxPIDRange = 4096

// lastPID is the last process id the kernel handed out in this pid namespace (/proc/loadavg's
// fifth field), or 0.
func lastPID() int { return proctab.Local().LastPID() }

// orphaned reports whether the first ancestor of pid that started before the tick `since` is
// init or a subreaper (systemd --user, tini…): the process outlived the shell that started it.
func orphaned(pid int, since uint64) bool {
	for p, hops := ppid(pid), 0; hops < 64; p, hops = ppid(p), hops+1 {
		if p <= 1 {
			return true
		}
		_, start, ok := procStat(p)
		if !ok {
			return true // the parent is gone: the process is being reparented
		}
		if start >= since {
			continue // started by the call too (a subshell of the background job)
		}
		comm, _ := proctab.Local().Comm(p)
		switch comm {
		case "systemd", "init", "tini", "dumb-init", "catatonit", "docker-init", "s6-svscan":
			return true
		}
		return false
	}
	return false
}

func ppid(pid int) int {
	st, _ := proctab.Local().Stat(pid)
	return st.PPID
}

// running reports whether any of ps still runs.
func running(ps []Proc) bool {
	for _, p := range ps {
		if _, start, ok := procStat(p.PID); ok && start == p.Start {
			return true
		}
	}
	return len(jobProcs(ps)) > 0
}

// jobProcs lists the processes alive now that belong to the job ps recorded: ps themselves,
// processes of their sessions started since the earliest of them (a relay the job started
// before it exited), and their descendants (one that made a session of its own).
func jobProcs(ps []Proc) []int {
	if len(ps) == 0 {
		return nil
	}
	sids := map[int]bool{}
	since := ps[0].Start
	for _, p := range ps {
		if p.Sid > 1 {
			sids[p.Sid] = true
		}
		since = min(since, p.Start)
	}
	pids, _ := proctab.Local().PIDs()
	type st struct {
		ppid int
		in   bool
	}
	all := map[int]*st{}
	self := os.Getpid()
	for _, pid := range pids {
		if pid == self {
			continue
		}
		sid, start, ok := procStat(pid)
		if !ok || start < since {
			continue
		}
		// A session member counts only when orphaned, as in leftBehind: a session may be
		// shared with programs that have nothing to do with the call (the host's, a CI
		// runner's), and their children started meanwhile are not the job's.
		s := &st{ppid: ppid(pid), in: sids[sid] && orphaned(pid, since)}
		for _, p := range ps {
			s.in = s.in || p.PID == pid && p.Start == start
		}
		all[pid] = s
	}
	for changed := true; changed; { // descendants, to a fixed point
		changed = false
		for _, s := range all {
			if p, ok := all[s.ppid]; !s.in && ok && p.in {
				s.in, changed = true, true
			}
		}
	}
	var out []int
	for pid, s := range all {
		if s.in {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// openForWrite maps the bank paths (relative to root, slash-separated) that the processes
// pids hold open for writing to the first such process.
func openForWrite(pids []int, root string) map[string]int {
	out := map[string]int{}
	prefix := filepath.Join(root, "memory-bank") + string(filepath.Separator)
	for _, pid := range pids {
		for _, f := range proctab.Local().OpenFiles(pid, prefix) {
			if !f.Write {
				continue
			}
			rel, _ := filepath.Rel(root, f.Path)
			if _, seen := out[filepath.ToSlash(rel)]; !seen {
				out[filepath.ToSlash(rel)] = pid
			}
		}
	}
	return out
}
