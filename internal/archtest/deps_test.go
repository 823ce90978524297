package archtest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoGitTransports keeps go-git's root package, and with it its HTTP, SSH and git-protocol
// transports, out of the mbguard binary: a hook starts the binary on every agent tool call and
// pays every linked package's initialisation, while mbguard never talks to a remote. lifecycle
// uses only go-git's plumbing and storage packages.
func TestNoGitTransports(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/mbguard")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/go-git/go-git/v5" || strings.HasPrefix(p, "github.com/go-git/go-git/v5/plumbing/transport") {
			t.Errorf("the binary links %s: use go-git's plumbing and storage packages only (see lifecycle/gitstore.go)", p)
		}
	}
}

// TestHookProgramLinksNoHeavyTree keeps mbguard-hook, which hosts start on every agent tool
// call, free of the dependency trees whose package initialisation costs more than the rest of
// a hook call: gitleaks (its scans run in the mbguard beside it, scanner/remote), go-git
// (lifecycle), cobra (a hook call has one form), and the network stack gitleaks brings.
func TestHookProgramLinksNoHeavyTree(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/mbguard-hook")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	heavy := []string{"github.com/zricethezav/gitleaks", "github.com/go-git/", "github.com/spf13/", "net/http",
		"github.com/mbguard/mbguard/scanner/engine", "github.com/mbguard/mbguard/lifecycle"}
	for _, p := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(p, h) {
				t.Errorf("mbguard-hook links %s (through %s): keep it out of the hook path (see cmd/mbguard-hook/main.go)", p, h)
			}
		}
	}
}
