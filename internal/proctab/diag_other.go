//go:build !linux

package proctab

import (
	"errors"
	"net/netip"
)

// diagTCP: the kernel's socket diagnostics are Linux's.
func diagTCP(local, remote netip.AddrPort) (Socket, bool, error) {
	return Socket{}, false, errors.ErrUnsupported
}
