package watcher

import (
	"net"
	"os"
	"strconv"
	"syscall"
)

// peer names the process at the other end of the socket, and says why it is not this
// executable ("" when it is). The socket's path comes from a file in .git/mbguard/ that a
// command run by the agent can rewrite; a server of its own there (a copy of python named
// mbguard) would answer "allow" to every check. The peer must run the very file this process
// runs — same device and inode, read through /proc/<pid>/exe — not a copy (the agent can make
// one) nor a program with the same name. A running executable cannot be rewritten in place
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

func sameExecutable(pid int) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, err := os.Stat(self)
	if err != nil {
		return false
	}
	b, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe")
	return err == nil && os.SameFile(a, b)
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
