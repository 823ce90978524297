package proctab

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Table is a process table rooted at a proc file system; the zero Table is unsupported.
type Table struct{ root string }

// Local is this machine's process table (unsupported off Linux).
func Local() Table { return Table{root: procRoot} }

// Unsupported is the table of a system mbguard cannot read processes on: what callers get off
// Linux, and what tests use to check their fallback on Linux.
func Unsupported() Table { return Table{} }

// Supported reports whether the table can be read.
func (t Table) Supported() bool {
	if t.root == "" {
		return false
	}
	_, err := os.Stat(t.root + "/self")
	return err == nil
}

func (t Table) path(pid int, name string) string {
	return t.root + "/" + strconv.Itoa(pid) + "/" + name
}

// PIDs lists the ids of every process (ok false when the table cannot be read).
func (t Table) PIDs() ([]int, bool) {
	if t.root == "" {
		return nil, false
	}
	d, err := os.Open(t.root)
	if err != nil {
		return nil, false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make([]int, 0, len(names))
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		if pid, err := strconv.Atoi(n); err == nil {
			out = append(out, pid)
		}
	}
	return out, true
}

// Stat is what the kernel's stat line says about a process.
type Stat struct {
	State byte   // R, S, D, Z …
	PPID  int    // its parent
	Sid   int    // its session
	Start uint64 // start time in clock ticks after boot (ClockTicks a second)
}

// ClockTicks is USER_HZ, the unit of Stat.Start and UptimeTicks: 100 on every Linux
// architecture Go supports.
const ClockTicks = 100

// Stat reads process pid's stat line.
func (t Table) Stat(pid int) (Stat, bool) {
	if t.root == "" || pid <= 0 {
		return Stat{}, false
	}
	b, err := os.ReadFile(t.path(pid, "stat"))
	if err != nil {
		return Stat{}, false
	}
	return ParseStat(b)
}

// ParseStat parses a /proc/<pid>/stat line. The command name (field 2) is in parentheses and
// may hold spaces and parentheses of its own, so the fields after it start at the last ')'.
func ParseStat(b []byte) (Stat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): parent is field 4, session field 6, starttime field 22
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	sid, err2 := strconv.Atoi(f[3])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Stat{}, false
	}
	return Stat{State: f[0][0], PPID: ppid, Sid: sid, Start: start}, true
}

// Comm is process pid's command name (at most 15 bytes of its program's name).
func (t Table) Comm(pid int) (string, bool) {
	if t.root == "" || pid <= 0 {
		return "", false
	}
	b, err := os.ReadFile(t.path(pid, "comm"))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// Exe is the path of process pid's executable (same user only).
func (t Table) Exe(pid int) (string, bool) {
	if t.root == "" || pid <= 0 {
		return "", false
	}
	p, err := os.Readlink(t.path(pid, "exe"))
	return p, err == nil
}

// UptimeTicks is the time since boot in clock ticks, the unit of Stat.Start (0 when unknown):
// /proc/uptime has two decimals, one tick.
func (t Table) UptimeTicks() uint64 {
	if t.root == "" {
		return 0
	}
	b, err := os.ReadFile(t.root + "/uptime")
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
	return s*ClockTicks + c
}

// LastPID is the last process id the kernel handed out in this pid namespace (the fifth field
// of /proc/loadavg), or 0.
func (t Table) LastPID() int {
	if t.root == "" {
		return 0
	}
	b, err := os.ReadFile(t.root + "/loadavg")
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

// OpenFile is a file a process holds open.
type OpenFile struct {
	Path  string // what the descriptor points at
	Write bool   // opened for writing (O_WRONLY or O_RDWR)
}

// OpenFiles lists the files process pid holds open whose path starts with prefix (same user
// only; nil when they cannot be read).
func (t Table) OpenFiles(pid int, prefix string) []OpenFile {
	if t.root == "" || pid <= 0 {
		return nil
	}
	dir := t.path(pid, "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []OpenFile
	for _, fd := range fds {
		target, err := os.Readlink(dir + "/" + fd.Name())
		if err != nil || !strings.HasPrefix(target, prefix) {
			continue
		}
		f := OpenFile{Path: target}
		if info, err := os.ReadFile(t.path(pid, "fdinfo/"+fd.Name())); err == nil {
			for _, line := range strings.Split(string(info), "\n") {
				if v, ok := strings.CutPrefix(line, "flags:"); ok {
					if fl, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil && fl&3 != 0 {
						f.Write = true
					}
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// Cmdline is process pid's argument vector (same user, or any process on most systems; nil and
// false when it cannot be read or the process is a zombie).
func (t Table) Cmdline(pid int) ([]string, bool) {
	if t.root == "" || pid <= 0 {
		return nil, false
	}
	b, err := os.ReadFile(t.path(pid, "cmdline"))
	if err != nil || len(b) == 0 {
		return nil, false
	}
	b = bytes.TrimSuffix(b, []byte{0})
	return strings.Split(string(b), "\x00"), true
}
