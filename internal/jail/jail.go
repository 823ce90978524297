package jail

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Method is the primitive that makes the bank read-only for a command.
type Method string

// The methods: Run uses Bwrap when bwrap is installed, else Userns.
const (
	Userns Method = "userns" // unprivileged user+mount namespace, from this binary
	Bwrap  Method = "bwrap"  // bubblewrap: --bind / / --ro-bind bank bank
	None   Method = "none"   // no primitive here: the command runs as it is
)

// innerEnv marks the re-executed binary as the namespace's first process; its value is the
// bank to make read-only. innerExecEnv is the absolute path of the command it then execs.
const (
	innerEnv     = "MBGUARD_JAIL_INNER"
	innerExecEnv = "MBGUARD_JAIL_EXEC"
)

// ErrUnavailable wraps the reason no method works here.
var ErrUnavailable = errors.New("the kernel line is unavailable here")

// NoBindMount is the reason on an operating system without read-only bind mounts (every one
// but Linux): it states the fact only; doctor says what still holds.
func NoBindMount(goos string) error {
	return fmt.Errorf("%w: %s has no read-only bind mount mbguard can use", ErrUnavailable, goos)
}

// Options says what to jail.
type Options struct {
	Bank string   // the folder to make read-only (absolute)
	Argv []string // the command and its arguments
	// Method forces one method; empty picks Bwrap when installed, else Userns.
	Method Method
	// Stdin, Stdout and Stderr default to the process's own. Give *os.File values: with other
	// types, a background job that keeps the stream open would make Run wait for it.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Self is the binary re-executed for Userns; empty means os.Executable.
	Self string
}

func (o Options) validate() error {
	if len(o.Argv) == 0 {
		return errors.New("no command to run: give one after --")
	}
	if !filepath.IsAbs(o.Bank) {
		return fmt.Errorf("bank %q is not an absolute path", o.Bank)
	}
	switch o.Method {
	case "", Userns, Bwrap:
		return nil
	}
	return fmt.Errorf("method %q: want %s or %s", o.Method, Userns, Bwrap)
}

// Wrapper turns a host's shell command line into the same line under the kernel line, for
// hosts that start every shell call afresh in the project (OpenCode).
type Wrapper struct{ prefix string }

// NewWrapper makes the Wrapper for bank: with bubblewrap installed the line runs bwrap
// directly (no start of mbguard per call; --ro-bind-try, so a bank created later is simply
// not there to protect yet), else `self jail --sh`.
func NewWrapper(self, bank string) Wrapper {
	if bw, err := exec.LookPath("bwrap"); err == nil && runtime.GOOS == "linux" {
		words := []string{Quote(bw)}
		for _, a := range bwrapArgs(bank, "--ro-bind-try") {
			words = append(words, Quote(a))
		}
		return Wrapper{prefix: strings.Join(words, " ") + " " + Quote(shell()) + " -c "}
	}
	return Wrapper{prefix: Quote(self) + " jail --sh -- "}
}

// bwrapArgs are bubblewrap's arguments before the command: the whole file system as it is,
// the bank read-only on top (bind is --ro-bind, or --ro-bind-try for a bank that may not
// exist yet), and without any capability, which only a root user would keep: CAP_SYS_ADMIN
// remounts or unmounts, CAP_SYS_PTRACE reaches the host's view of the file system through
// /proc/<pid>/root, CAP_DAC_READ_SEARCH opens a bank file by handle (open_by_handle_at)
// through a read-write mount. For other users bwrap has dropped them already.
func bwrapArgs(bank, bind string) []string {
	return []string{"--cap-drop", "ALL", "--dev-bind", "/", "/", bind, bank, bank, "--"}
}

// Wrap is the one-line sh command that runs cmd inside the jail.
func (w Wrapper) Wrap(cmd string) string { return w.prefix + Quote(cmd) }

// shell is the shell that runs a host's command line inside the jail: bash when installed
// (hosts' shell tools speak bash), else /bin/sh.
func shell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// Quote makes s one single-quoted sh word.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellArgv is the argv that runs a shell command line cmd inside the jail; with cwdFile it
// writes the directory the command ends in there, even when the command exits or fails.
func ShellArgv(cmd, cwdFile string) []string {
	sh := shell()
	if cwdFile == "" {
		return []string{sh, "-c", cmd}
	}
	// the file name travels as $1 so no quoting of it is needed; eval keeps cmd's own syntax
	script := `__mbg_f=$1; trap 'pwd -P >"$__mbg_f" 2>/dev/null' EXIT; shift; eval "$__mbg_c"`
	return []string{sh, "-c", "__mbg_c=" + Quote(cmd) + "; " + script, "mbguard-jail", cwdFile}
}

// RunPlain runs argv without a jail, with the process's streams, returning its status as Run
// does: the fallback where no method works.
func RunPlain(argv []string) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("no command to run: give one after --")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, fmt.Errorf("%s: command not found", argv[0])
	}
	return wait(exec.Command(path, argv[1:]...), Options{})
}

// Probe reports whether a command can be jailed here, and how: it runs true with a fresh
// folder as the bank. self is the binary that calls Inner first (os.Executable when empty).
func Probe(self string) (Method, error) {
	dir, err := os.MkdirTemp("", "mbguard-jail-probe")
	if err != nil {
		return None, err
	}
	defer os.RemoveAll(dir)
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return None, err
	}
	defer devnull.Close()
	code, m, err := Run(Options{Bank: dir, Argv: []string{"true"}, Self: self, Stdin: devnull, Stdout: devnull, Stderr: devnull})
	if err != nil {
		return None, err
	}
	if code != 0 {
		return None, fmt.Errorf("%w: the %s jail could not run true (exit %d)", ErrUnavailable, m, code)
	}
	return m, nil
}
