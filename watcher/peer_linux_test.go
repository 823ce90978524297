package watcher

import (
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
)

// PeerIsMbguard reads the peer's executable from the process table (internal/proctab): the
// same binary is mbguard, another program serving the socket is not.
func TestPeerIsMbguard(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "own.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			c.Read(make([]byte, 1)) // until the client hangs up
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !(&Client{conn: c}).PeerIsMbguard() {
		t.Error("this process (the same executable) is not taken for mbguard")
	}

	py := testhost.Tool(t, "python3", "apt-get install python3")
	foreign := filepath.Join(dir, "foreign.sock")
	cmd := exec.Command(py, "-c", `import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c,_=s.accept(); time.sleep(30)`, foreign)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var fc net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		if fc, err = net.Dial("unix", foreign); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the foreign server did not listen: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	defer fc.Close()
	if (&Client{conn: fc}).PeerIsMbguard() {
		t.Error("a python3 process serving the socket is taken for mbguard")
	}
}
