// Package spawn starts mbguard's background processes: in a session of their own, holding
// none of the caller's pipes, so they outlive it (and a host's kill of it) and a host waiting
// for a hook's output to end does not wait for them.
package spawn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Detached starts program with args in dir and lets it run on its own.
func Detached(program, dir string, args ...string) error {
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// Beside is the program name (name.exe on Windows) in the folder of this process's
// executable, its symlinks resolved: mbguard and mbguard-hook are released, packed and
// installed side by side, and each finds the other there, never on PATH, which the agent may
// change. An error says there is no such file.
func Beside(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("no %s beside %s", name, self)
	}
	return p, nil
}
