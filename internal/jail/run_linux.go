//go:build linux

package jail

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	capSetpcap           = 8
	capSysAdmin          = 21
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
	// statfs flags that a remount inside a user namespace must keep (they are locked): the
	// ST_* values equal the MS_* ones.
	keepFlags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC | syscall.MS_NOATIME |
		syscall.MS_NODIRATIME | syscall.MS_RELATIME
)

// Run runs o.Argv with o.Bank read-only, stdin, stdout and stderr inherited, and returns the
// command's exit status (128+signal when a signal ended it), the method used, and an error
// wrapping ErrUnavailable when no method works (the command has not run then).
func Run(o Options) (int, Method, error) {
	if err := o.validate(); err != nil {
		return 2, None, err
	}
	// bubblewrap first when installed: one small C process, against a second start of this
	// binary for the namespace's first process; and it is what Ubuntu's AppArmor lets through.
	bw, bwErr := exec.LookPath("bwrap")
	if o.Method == Bwrap || (o.Method == "" && bwErr == nil) {
		if bwErr != nil {
			return 2, None, fmt.Errorf("%w: bubblewrap is not installed (apt-get install bubblewrap)", ErrUnavailable)
		}
		code, err := wait(exec.Command(bw, append(bwrapArgs(o.Bank, "--ro-bind"), o.Argv...)...), o)
		return code, Bwrap, err
	}
	code, err := runUserns(o)
	if err != nil {
		if errors.Is(err, ErrUnavailable) && o.Method == "" {
			err = fmt.Errorf("%w; bubblewrap is not installed either (apt-get install bubblewrap)", err)
		}
		return code, None, err
	}
	return code, Userns, nil
}

// Exec is Run for a process that has nothing left to do: with bubblewrap it replaces the
// process (one fork fewer per call, and bwrap passes on the status and signals); otherwise
// it is Run.
func Exec(o Options) (int, Method, error) {
	if err := o.validate(); err != nil {
		return 2, None, err
	}
	bw, err := exec.LookPath("bwrap")
	if o.Method == Userns || err != nil {
		return Run(o)
	}
	argv := append(append([]string{"bwrap"}, bwrapArgs(o.Bank, "--ro-bind")...), o.Argv...)
	err = syscall.Exec(bw, argv, os.Environ())
	return 126, Bwrap, fmt.Errorf("running %s: %w", bw, err)
}

func runUserns(o Options) (int, error) {
	self := o.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return 2, fmt.Errorf("%w: finding this binary: %v", ErrUnavailable, err)
		}
	}
	path, err := exec.LookPath(o.Argv[0])
	if err != nil {
		return 127, fmt.Errorf("%s: command not found", o.Argv[0])
	}
	cmd := exec.Command(self, o.Argv[1:]...)
	cmd.Args[0] = o.Argv[0]
	cmd.Env = append(os.Environ(), innerEnv+"="+o.Bank, innerExecEnv+"="+path)
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// CAP_SYS_ADMIN to remount the bank, CAP_SETPCAP to empty the bounding set after
		AmbientCaps: []uintptr{capSysAdmin, capSetpcap},
	}
	code, err := wait(cmd, o)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.EUSERS) {
		return 2, fmt.Errorf("%w: unprivileged user namespaces are refused (%v): Ubuntu's "+
			"kernel.apparmor_restrict_unprivileged_userns or user.max_user_namespaces=0", ErrUnavailable, err)
	}
	return code, err
}

// Inner is the namespace's first process: when this binary was re-executed by Run it makes
// the bank read-only, drops every capability and execs the command; it never returns then.
// Otherwise it returns at once. Call it first thing in main.
func Inner() {
	v, ok := os.LookupEnv(innerEnv)
	if !ok {
		return
	}
	bank, path := v, os.Getenv(innerExecEnv)
	os.Unsetenv(innerEnv)
	os.Unsetenv(innerExecEnv)
	if err := remountReadOnly(bank); err != nil {
		fmt.Fprintf(os.Stderr, "mbguard jail: making %s read-only: %v; the command did not run\n", bank, err)
		os.Exit(126)
	}
	// a root user is root in the namespace too: with no capability left (in every set,
	// the bounding set included, and no_new_privs against setuid and file capabilities) the
	// command can neither remount the bank read-write, nor reach the host's view of the file
	// system through /proc/<pid>/root, nor open a bank file by handle (open_by_handle_at)
	if err := dropAllCaps(); err != nil {
		fmt.Fprintf(os.Stderr, "mbguard jail: dropping capabilities: %v; the command did not run\n", err)
		os.Exit(126)
	}
	err := syscall.Exec(path, os.Args, os.Environ())
	fmt.Fprintf(os.Stderr, "mbguard jail: running %s: %v\n", path, err)
	os.Exit(126)
}

// dropAllCaps empties every capability set of this process — ambient, bounding, inheritable,
// permitted, effective — and sets no_new_privs, so that no program it execs gets one back, not
// even as uid 0, through a setuid bit or file capabilities.
func dropAllCaps() error {
	syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0)
	for c := uintptr(0); c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
}

func remountReadOnly(bank string) error {
	// nothing we mount may propagate back to the host's namespace
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	if err := syscall.Mount(bank, bank, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(bank, &st); err != nil {
		return fmt.Errorf("statfs: %w", err)
	}
	flags := uintptr(st.Flags)&keepFlags | syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY
	if err := syscall.Mount("", bank, "", flags, ""); err != nil {
		return fmt.Errorf("remount read-only: %w", err)
	}
	return nil
}
