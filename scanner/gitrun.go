package scanner

import (
	"context"
	"io"
)

// Git runs git in dir and returns its stdout; the error carries git's stderr. It is the one
// git runner of the commit-time checks, shared with the stale-reference check.
func Git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	return git(ctx, dir, stdin, args...)
}
