package main

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBuiltBinary builds mbguard as a user would and checks two things only a linked binary
// shows: the linker's dead-code elimination of methods is on (a reachable text/template
// execution, e.g. cobra's SetUsageTemplate, turns it off for the whole binary: 10 MB more and
// every hook call ~1 ms slower to start), and `mbguard version` names the commit it was built
// from.
func TestBuiltBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads ELF symbols")
	}
	// Stamp the commit when this is a git clone. A source tarball has none to stamp, and go
	// does not recognise a linked worktree (its .git is a file), so neither is asked to.
	head, gitErr := exec.Command("git", "rev-parse", "HEAD").Output()
	if gitErr == nil {
		top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if fi, serr := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || serr != nil || !fi.IsDir() {
			gitErr = errors.New("not a plain clone")
		}
	}
	buildvcs := "-buildvcs=false" // what this machine's go env says too
	if gitErr == nil {
		buildvcs = "-buildvcs=true"
	}
	bin := filepath.Join(t.TempDir(), "mbguard")
	out, err := exec.Command("go", "build", buildvcs, "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("deadcode elimination", func(t *testing.T) {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		syms, err := f.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			// evalField is where text/template calls reflect.Value.MethodByName
			if strings.HasPrefix(s.Name, "text/template.(*state).evalField") {
				t.Fatalf("the binary links %s: something executes a text/template, so the linker keeps every exported method (find the caller with github.com/aarzilli/whydeadcode)", s.Name)
			}
		}
	})

	t.Run("version names the revision", func(t *testing.T) {
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		got := string(out)
		if !strings.HasPrefix(got, "mbguard ") || !strings.Contains(got, runtime.Version()) {
			t.Errorf("mbguard version = %q", got)
		}
		if gitErr == nil && !strings.Contains(got, "revision "+strings.TrimSpace(string(head))) {
			t.Errorf("mbguard version = %q, want revision %s", got, head)
		}
	})
}
