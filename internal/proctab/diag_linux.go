package proctab

import (
	"encoding/binary"
	"net/netip"
	"syscall"
)

// The kernel's socket diagnostics (NETLINK_SOCK_DIAG, what ss uses) answer for one TCP socket
// named by its two ends in microseconds, where net/tcp lists every socket of the namespace
// as text (0.8 ms with a few hundred). Layouts from linux/inet_diag.h.
const (
	netlinkSockDiag   = 4  // NETLINK_SOCK_DIAG
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	nlmsgHdrLen       = 16
	inetDiagReqV2Len  = 56 // family, protocol, ext, pad, states, inet_diag_sockid (48)
	inetDiagMsgLen    = 72 // family, state, timer, retrans, sockid (48), expires, rqueue, wqueue, uid, inode
	inetDiagNoCookie  = ^uint32(0)
	nlmsgErrorType    = 2
	diagSockIDOffset  = 8  // in the request, after family … states
	diagMsgUIDOffset  = 64 // in the reply, after family … wqueue
	diagMsgInodeOffst = 68
)

// diagTCP asks the kernel for the IPv4 TCP socket whose local end is local and remote end
// remote (ok false when it has none; err when the kernel cannot be asked).
func diagTCP(local, remote netip.AddrPort) (s Socket, ok bool, err error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return Socket{}, false, err
	}
	defer syscall.Close(fd)
	req := make([]byte, nlmsgHdrLen+inetDiagReqV2Len)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], syscall.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1) // seq
	body := req[nlmsgHdrLen:]
	body[0], body[1] = syscall.AF_INET, syscall.IPPROTO_TCP
	ne.PutUint32(body[4:], ^uint32(0)) // every state
	id := body[diagSockIDOffset:]
	binary.BigEndian.PutUint16(id[0:], local.Port())
	binary.BigEndian.PutUint16(id[2:], remote.Port())
	la, ra := local.Addr().As4(), remote.Addr().As4()
	copy(id[4:8], la[:])
	copy(id[20:24], ra[:])
	ne.PutUint32(id[40:], inetDiagNoCookie)
	ne.PutUint32(id[44:], inetDiagNoCookie)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return Socket{}, false, err
	}
	buf := make([]byte, 4096)
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil {
		return Socket{}, false, err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil || len(msgs) == 0 {
		return Socket{}, false, err
	}
	m := msgs[0]
	switch {
	case m.Header.Type == nlmsgErrorType:
		if len(m.Data) >= 4 && int32(ne.Uint32(m.Data)) == -int32(syscall.ENOENT) {
			return Socket{}, false, nil // no such socket
		}
		return Socket{}, false, syscall.EINVAL
	case m.Header.Type != sockDiagByFamily || len(m.Data) < inetDiagMsgLen:
		return Socket{}, false, syscall.EINVAL
	}
	uid := ne.Uint32(m.Data[diagMsgUIDOffset:])
	ino := ne.Uint32(m.Data[diagMsgInodeOffst:])
	if ino == 0 {
		return Socket{}, false, nil
	}
	return Socket{Inode: uint64(ino), UID: int(uid)}, true, nil
}
