package watcher

import (
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"

	"github.com/mbguard/mbguard/internal/proctab"
	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/spawn"
)

// peer names the process at the other end of the socket, and says why it is not this
// executable ("" when it is). The socket's path comes from a file in .git/mbguard/ that a
// command run by the agent can rewrite; a server of its own there (a copy of python named
// mbguard) would answer "allow" to every check. The peer must run the very file this process
// runs — same device and inode, read through /proc/<pid>/exe — not a copy (the agent can make
// one) nor a program with the same name; or its pair beside it (mbguard for mbguard-hook). A running executable cannot be rewritten in place
// (ETXTBSY), so the same inode is the same bytes. Same user only.
func (c *Client) peer() (int, string) {
	cred := peerCred(c.conn)
	if cred == nil {
		return 0, "its process cannot be read"
	}
	if int(cred.Uid) != os.Getuid() {
		return 0, "it runs as another user"
	}
	if !sameExecutable(int(cred.Pid)) {
		return int(cred.Pid), "it is not this mbguard executable (pid " + strconv.Itoa(int(cred.Pid)) + ")"
	}
	return int(cred.Pid), ""
}

// sameExecutable reports whether pid runs this executable or its pair installed beside it:
// mbguard-hook asks a watcher that mbguard runs (spawn.Beside, the same folder as this
// file, never PATH; both files are mbguard's own and guarded alike).
func sameExecutable(pid int) bool {
	peer, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return false
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	mine := []string{self}
	for _, name := range []string{"mbguard", "mbguard-hook"} {
		if p, err := spawn.Beside(name); err == nil {
			mine = append(mine, p)
		}
	}
	for _, p := range mine {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, peer) {
			return true
		}
	}
	return false
}

// peerPID is the process at the other end of a unix socket (0 when unknown).
func peerPID(c net.Conn) int {
	if cred := peerCred(c); cred != nil {
		return int(cred.Pid)
	}
	return 0
}

func peerCred(c net.Conn) *syscall.Ucred {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return nil
	}
	return cred
}

// HTTPListener says who answers Claude Code's http hooks for r on 127.0.0.1:port: "" when it
// is this repository's mbguard watch (the same executable, or its pair), else why not —
// nothing listens, or another program does (taken: the agent could have stopped the watcher
// and taken the port, and its answers would let every call through).
func HTTPListener(r repo.Repo, port int) (why string, taken bool) {
	tab := proctab.Local()
	addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port))
	where := "127.0.0.1:" + strconv.Itoa(port)
	s, ok := tab.TCPSocket(addr, netip.AddrPortFrom(netip.IPv4Unspecified(), 0))
	if !ok {
		return "no mbguard watch answers Claude Code's http hooks on " + where, false
	}
	if s.UID != os.Getuid() {
		return "a process of another user listens on " + where + ", not mbguard watch", true
	}
	var hint []int
	if pid, _, ok := Running(r); ok {
		hint = append(hint, pid)
	}
	pid := tab.SocketHolder(s.Inode, hint...)
	switch {
	case pid == 0:
		return "a process mbguard cannot see listens on " + where + ", not mbguard watch", true
	case !sameExecutable(pid):
		name, _ := tab.Comm(pid)
		return "process " + strconv.Itoa(pid) + " (" + name + ") listens on " + where + ", not mbguard watch", true
	}
	return "", false
}
