package proctab

import (
	"bufio"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
)

// The holder of a TCP client socket is the process that connected: this one for its own
// connection, a child shell for the child's — whatever the server side sees of the peer.
func TestSocketHolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		if Local().Supported() {
			t.Fatal("a process table off Linux")
		}
		return
	}
	bash := testhost.Tool(t, "bash", "apt-get install -y bash")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	server := netip.MustParseAddrPort(ln.Addr().String())
	tab := Local()

	// this process connects
	c, err := net.Dial("tcp4", server.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	client := netip.MustParseAddrPort(sc.RemoteAddr().String())
	s, ok := tab.TCPSocket(client, server)
	if !ok {
		t.Fatalf("TCPSocket(%v, %v): not found", client, server)
	}
	if s.UID != os.Getuid() {
		t.Errorf("UID = %d, want %d", s.UID, os.Getuid())
	}
	if pid := tab.SocketHolder(s.Inode); pid != os.Getpid() {
		t.Errorf("SocketHolder = %d, want this process %d", pid, os.Getpid())
	}
	// net/tcp, read where the kernel's socket diagnostics cannot be asked, names the same one
	if viaFile, ok := (Table{root: procRoot + "/."}).TCPSocket(client, server); !ok || viaFile != s {
		t.Errorf("net/tcp: %+v, %v; socket diagnostics: %+v", viaFile, ok, s)
	}
	// the server's own end is another socket: the lookup is by direction
	if back, ok := tab.TCPSocket(server, client); !ok || back.Inode == s.Inode {
		t.Errorf("the server's end: %+v, %v", back, ok)
	}

	// a child connects (bash's /dev/tcp) and waits on its stdin
	cmd := exec.Command(bash, "-c", "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(int(server.Port()))+"; echo up; read _")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "up\n" {
		t.Fatalf("child: %q", line)
	}
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	cc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	s2, ok := tab.TCPSocket(netip.MustParseAddrPort(cc.RemoteAddr().String()), server)
	if !ok {
		t.Fatal("the child's socket: not found")
	}
	if pid := tab.SocketHolder(s2.Inode, os.Getpid()); pid != cmd.Process.Pid {
		t.Errorf("SocketHolder = %d, want the child %d (the hint is not taken on trust)", pid, cmd.Process.Pid)
	}
	if pid := Unsupported().SocketHolder(s2.Inode); pid != 0 {
		t.Errorf("unsupported table: %d", pid)
	}
	if _, ok := tab.TCPSocket(netip.MustParseAddrPort("[::1]:1"), server); ok {
		t.Error("an IPv6 address found in net/tcp")
	}
}
