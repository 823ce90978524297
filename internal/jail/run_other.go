//go:build !linux

package jail

import "runtime"

// Run reports that no method exists on this platform; the command has not run.
func Run(o Options) (int, Method, error) {
	if err := o.validate(); err != nil {
		return 2, None, err
	}
	return 2, None, NoBindMount(runtime.GOOS)
}

// Inner does nothing off Linux.
func Inner() {}

// Exec is Run off Linux.
func Exec(o Options) (int, Method, error) { return Run(o) }
