package watcher

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
)

// peer reads the peer's executable through /proc: the same file is this mbguard; another
// program serving the socket is not, even a copy of python named mbguard (issue 26: the old
// check accepted any executable whose base name was mbguard).
func TestPeerIsThisExecutable(t *testing.T) {
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
	if _, why := (&Client{conn: c}).peer(); why != "" {
		t.Errorf("this process (the same executable) is refused: %s", why)
	}

	py := testhost.Tool(t, "python3", "apt-get install python3")
	real, err := exec.Command(py, "-c", "import os,sys; print(os.path.realpath(sys.executable))").Output()
	if err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "mbguard") // a copy of python with mbguard's name
	b, err := os.ReadFile(strings.TrimSpace(string(real)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(named, b, 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.sock")
	cmd := exec.Command(named, "-c", `import socket,sys,time
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
	if _, why := (&Client{conn: fc}).peer(); why == "" {
		t.Error("a copy of python named mbguard serving the socket is taken for this mbguard")
	}
}
