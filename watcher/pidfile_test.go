package watcher

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadPIDFile: the pid file holds the pid alone, the socket is read from AddrFile; the
// two-line form of older watchers (pid, then socket) still reads.
func TestReadPIDFile(t *testing.T) {
	for name, c := range map[string]struct{ pid, addr, wantSock string }{
		"pid alone":         {"4242\n", "/tmp/w.sock\n", "/tmp/w.sock"},
		"older two-line":    {"4242\n/tmp/old.sock\n", "", "/tmp/old.sock"},
		"not listening yet": {"4242\n", "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, PIDFile), []byte(c.pid), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.addr != "" {
				if err := os.WriteFile(filepath.Join(dir, AddrFile), []byte(c.addr), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			pid, sock := readPIDFile(filepath.Join(dir, PIDFile))
			if pid != 4242 || sock != c.wantSock {
				t.Errorf("readPIDFile = %d, %q; want 4242, %q", pid, sock, c.wantSock)
			}
		})
	}
}
