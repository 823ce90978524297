package proctab

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"strconv"
)

// Socket is an IPv4 TCP socket as the kernel lists it in net/tcp: its inode (what a process's
// descriptor points at, "socket:[inode]") and the user that made it.
type Socket struct {
	Inode uint64
	UID   int
}

// TCPSocket finds the IPv4 TCP socket whose local end is local and whose remote end is
// remote (ok false when there is none, or the table cannot be read). For a connection
// accepted on a server, pass the client's address as local and the server's as remote: the
// result is the client's socket, which names the process that connected (SocketHolder).
func (t Table) TCPSocket(local, remote netip.AddrPort) (Socket, bool) {
	if t.root == "" || !local.Addr().Is4() || !remote.Addr().Is4() {
		return Socket{}, false
	}
	if t.root == procRoot {
		if s, ok, err := diagTCP(local, remote); err == nil {
			return s, ok
		}
	}
	f, err := os.Open(t.root + "/net/tcp")
	if err != nil {
		return Socket{}, false
	}
	defer f.Close()
	want := []byte(tcpAddr(local) + " " + tcpAddr(remote) + " ")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := bytes.TrimLeft(sc.Bytes(), " ")
		// "sl: local remote st tx:rx tr:when retrnsmt uid timeout inode …"
		_, rest, ok := bytes.Cut(line, []byte(": "))
		if !ok || !bytes.HasPrefix(rest, want) {
			continue
		}
		fs := bytes.Fields(rest)
		if len(fs) < 9 {
			return Socket{}, false
		}
		uid, err1 := strconv.Atoi(string(fs[6]))
		ino, err2 := strconv.ParseUint(string(fs[8]), 10, 64)
		if err1 != nil || err2 != nil || ino == 0 {
			return Socket{}, false
		}
		return Socket{Inode: ino, UID: uid}, true
	}
	return Socket{}, false
}

// tcpAddr is an address as net/tcp writes it: the address's four bytes read as one 32-bit
// word in this machine's byte order (the kernel prints the stored word), then the port, both
// in upper-case hex ("0100007F:1F90" for 127.0.0.1:8080 on a little-endian machine).
func tcpAddr(ap netip.AddrPort) string {
	a := ap.Addr().As4()
	return fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(a[:]), ap.Port())
}

// SocketHolder is a process that holds socket inode open (0 when none of this user's
// processes does). The processes in hint are looked at first: a server asks again and again
// about the same client.
func (t Table) SocketHolder(inode uint64, hint ...int) int {
	if t.root == "" || inode == 0 {
		return 0
	}
	target := "socket:[" + strconv.FormatUint(inode, 10) + "]"
	for _, pid := range hint {
		if t.holds(pid, target) {
			return pid
		}
	}
	pids, _ := t.PIDs()
	for _, pid := range pids {
		if t.holds(pid, target) {
			return pid
		}
	}
	return 0
}

// holds reports whether process pid has a descriptor pointing at target.
func (t Table) holds(pid int, target string) bool {
	if pid <= 0 {
		return false
	}
	dir := t.path(pid, "fd")
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if l, err := os.Readlink(dir + "/" + n); err == nil && l == target {
			return true
		}
	}
	return false
}
