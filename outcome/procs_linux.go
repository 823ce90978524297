package outcome

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is a process a tool call left running, named by its id and its start time (clock
// ticks after boot), so a reused id is not taken for it.
type Proc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
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

// leftBehind lists the processes started since the uptime tick `since` that still run: in
// this process's session (a shell's background job), or working under root (one started
// with setsid). This process and its ancestors are not counted.
func leftBehind(since uint64, root string) []Proc {
	mine, _, _ := procStat(os.Getpid())
	skip := map[int]bool{}
	for p := os.Getpid(); p > 1 && !skip[p]; p = ppid(p) {
		skip[p] = true
	}
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var out []Proc
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || skip[pid] {
			continue
		}
		sid, start, ok := procStat(pid)
		if !ok || start < since {
			continue
		}
		if sid != mine {
			cwd, err := os.Readlink("/proc/" + n + "/cwd")
			if err != nil || !under(filepath.ToSlash(cwd), filepath.ToSlash(root)) {
				continue
			}
		}
		out = append(out, Proc{PID: pid, Start: start})
	}
	return out
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
	return false
}
