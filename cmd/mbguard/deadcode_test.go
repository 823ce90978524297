package main

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDeadcodeElimination keeps the linker's dead-code elimination of methods on: a reachable
// text/template execution (cobra's SetUsageTemplate, for one) turns it off for the whole
// binary, which made mbguard 10 MB larger and every hook call ~1 ms slower to start.
func TestDeadcodeElimination(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads ELF symbols")
	}
	bin := filepath.Join(t.TempDir(), "mbguard")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
}
