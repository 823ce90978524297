//go:build !linux

package watcher

import (
	"net"

	"github.com/mbguard/mbguard/internal/repo"
)

// peer cannot tell the peer's program off Linux: the socket's owner (0600, the user's) is
// trusted, and the handshake (configuration, started by a person) still applies.
func (c *Client) peer() (int, string) { return 0, "" }

// peerPID is unknown off Linux.
func peerPID(net.Conn) int { return 0 }

// HTTPListener cannot tell who listens off Linux, where install writes no http hooks.
func HTTPListener(repo.Repo, int) (string, bool) { return "", false }
