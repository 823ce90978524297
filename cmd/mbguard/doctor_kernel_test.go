package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/jail"
)

// The kernel line says once what still holds where no jail works: the jail states the fact
// (macOS and Windows: no read-only bind mount), doctor adds the rest.
func TestKernelLineWithoutJail(t *testing.T) {
	for _, goos := range []string{"darwin", "windows"} {
		k := kernelCheck(jail.None, jail.NoBindMount(goos))
		if k.Status != checkInfo {
			t.Errorf("%s: status %v, want info", goos, k.Status)
		}
		if n := strings.Count(k.Detail, "still hold"); n != 1 {
			t.Errorf("%s: %q says what still holds %d times, want once", goos, k.Detail, n)
		}
		if !strings.Contains(k.Detail, goos+" has no read-only bind mount") {
			t.Errorf("%s: %q does not name the reason", goos, k.Detail)
		}
	}
	if k := kernelCheck(jail.None, errors.New("bwrap: permission denied")); k.Status != checkWarn {
		t.Errorf("a broken jail: status %v, want warn", k.Status)
	}
}
