package outcome

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// clockTicks is USER_HZ, which is 100 on every Linux architecture Go supports.
const clockTicks = 100

// procStat reads a process's session id and start time from /proc/<pid>/stat.
func procStat(pid int) (sid int, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// the command name (field 2) is in parentheses and may hold spaces
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): session is field 6, starttime field 22
	if len(f) < 20 || f[0] == "Z" {
		return 0, 0, false
	}
	sid, err1 := strconv.Atoi(f[3])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	return sid, start, err1 == nil && err2 == nil
}

// uptimeTicks is the time since boot in clock ticks, the unit of a process's start time:
// /proc/uptime has two decimals, one tick.
func uptimeTicks() uint64 {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	secs, frac, _ := strings.Cut(f[0], ".")
	s, err := strconv.ParseUint(secs, 10, 64)
	if err != nil {
		return 0
	}
	c, _ := strconv.ParseUint((frac + "00")[:2], 10, 64)
	return s*clockTicks + c
}

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
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			consider(pid)
		}
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
func lastPID() int {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 5 {
		return 0
	}
	n, _ := strconv.Atoi(f[4])
	return n
}

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
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/comm")
		switch strings.TrimSpace(string(comm)) {
		case "systemd", "init", "tini", "dumb-init", "catatonit", "docker-init", "s6-svscan":
			return true
		}
		return false
	}
	return false
}

func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
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
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	type st struct {
		ppid int
		in   bool
	}
	all := map[int]*st{}
	self := os.Getpid()
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self {
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
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(dir + "/" + fd.Name())
			if err != nil || !strings.HasPrefix(target, prefix) {
				continue
			}
			info, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + fd.Name())
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(info), "\n") {
				if v, ok := strings.CutPrefix(line, "flags:"); ok {
					if f, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil && f&3 != 0 {
						rel, _ := filepath.Rel(root, target)
						if _, seen := out[filepath.ToSlash(rel)]; !seen {
							out[filepath.ToSlash(rel)] = pid
						}
					}
				}
			}
		}
	}
	return out
}
