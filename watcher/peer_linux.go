package watcher

import (
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mbguard/mbguard/internal/proctab"
)

// PeerIsMbguard reports whether the process at the other end of the socket runs mbguard: the
// same executable as this process, or one named mbguard. The socket's path comes from a file
// in .git/mbguard/ that a command run by the agent can rewrite; a server of its own there
// would answer "allow" to every check. A hook that finds another program must decide the
// call itself. Same user only.
func (c *Client) PeerIsMbguard() bool {
	uc, ok := c.conn.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil || cred == nil {
		return false
	}
	if int(cred.Uid) != os.Getuid() {
		return false
	}
	exe, ok := proctab.Local().Exe(int(cred.Pid))
	if !ok {
		return false
	}
	if self, err := os.Executable(); err == nil {
		if s, err := filepath.EvalSymlinks(self); err == nil && s == exe {
			return true
		}
		if self == exe {
			return true
		}
	}
	return filepath.Base(exe) == "mbguard"
}
