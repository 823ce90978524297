package proctab

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// The session id read from /proc is the kernel's, including 0: in a container whose session
// leader lives outside the PID namespace (a CI runner's), getsid says 0 too.
func TestLocalSidIsKernels(t *testing.T) {
	want, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := Local().Stat(os.Getpid())
	if !ok || st.Sid != want {
		t.Fatalf("Stat(self).Sid = %d, %v; getsid says %d", st.Sid, ok, want)
	}
}
