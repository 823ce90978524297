//go:build !unix

package spawn

import "os/exec"

func detach(cmd *exec.Cmd) {}
