// Package spawn starts mbguard's background processes: in a session of their own, holding
// none of the caller's pipes, so they outlive it (and a host's kill of it) and a host waiting
// for a hook's output to end does not wait for them.
package spawn

import "os/exec"

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
