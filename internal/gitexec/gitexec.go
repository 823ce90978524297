package gitexec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Cmd is how git is started: where, with what on stdin, with which extra environment.
type Cmd struct {
	// Dir is the working directory; "" is the process's own.
	Dir string
	// Stdin is git's standard input; nil is none.
	Stdin io.Reader
	// Env is added to the process environment ("GIT_OPTIONAL_LOCKS=0"); nil inherits it as is.
	Env []string
}

// Run runs git with args in dir and returns its stdout; a failure is an *Error carrying git's
// stderr.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return Cmd{Dir: dir}.Run(ctx, args...)
}

// Run runs git with args and returns its stdout; a failure is an *Error carrying git's stderr.
func (c Cmd) Run(ctx context.Context, args ...string) ([]byte, error) {
	cmd, stderr := c.command(ctx, args)
	out, err := cmd.Output()
	if err != nil {
		return out, newError(args, stderr, err)
	}
	return out, nil
}

// Stream starts git with args and returns its stdout as it comes, for output too large to
// hold or read only in part. The caller must Close or Stop it.
func (c Cmd) Stream(ctx context.Context, args ...string) (*Stream, error) {
	cmd, stderr := c.command(ctx, args)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, newError(args, stderr, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, newError(args, stderr, err)
	}
	return &Stream{ReadCloser: out, cmd: cmd, stderr: stderr, args: args}, nil
}

func (c Cmd) command(ctx context.Context, args []string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	if c.Env != nil {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

// Stream is the stdout of a running git command.
type Stream struct {
	io.ReadCloser
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	args   []string
}

// Close reads what is left of git's output, waits for git and returns its failure, if any,
// as an *Error.
func (s *Stream) Close() error {
	io.Copy(io.Discard, s.ReadCloser)
	s.ReadCloser.Close()
	if err := s.cmd.Wait(); err != nil {
		return newError(s.args, s.stderr, err)
	}
	return nil
}

// Stop ends git without reading the rest (the caller has what it wanted, or gives up) and
// waits for it.
func (s *Stream) Stop() {
	s.cmd.Process.Kill()
	s.ReadCloser.Close()
	s.cmd.Wait()
}

// Error is a git command that failed: its subcommand, what it said on stderr, and the
// underlying error (an *exec.ExitError when git ran).
type Error struct {
	Sub    string
	Stderr string
	Err    error
}

// NotFound is what a git that is not installed or not on PATH says, in mbguard's words and
// with the next step (exec's own "executable file not found in %PATH%" names neither).
const NotFound = "Git was not found: mbguard runs git for this; install Git (on Windows, Git for Windows from https://git-scm.com/download/win) or put git on PATH, then run the command again"

func (e *Error) Error() string {
	if errors.Is(e.Err, exec.ErrNotFound) {
		return NotFound
	}
	if e.Stderr != "" {
		return "git " + e.Sub + ": " + e.Stderr
	}
	return "git " + e.Sub + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func newError(args []string, stderr *bytes.Buffer, err error) error {
	return &Error{Sub: subcommand(args), Stderr: strings.TrimSpace(stderr.String()), Err: err}
}

// ExitCode is the exit status of the git that err reports: 0 for no error, -1 when git did
// not run to an exit (not found, killed).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// subcommand names the git command in args for messages, past global options ("-c k=v diff"
// is "diff").
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return strings.Join(args, " ")
}
