package jail

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/testhost"
)

// TestMain lets the test binary be the namespace's first process, as mbguard is in use.
func TestMain(m *testing.M) {
	Inner()
	os.Exit(m.Run())
}

type sandbox struct {
	root, bank string
	stdout     *os.File
	stderr     *os.File
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := t.TempDir()
	bank := filepath.Join(root, "memory-bank")
	if err := os.MkdirAll(filepath.Join(bank, "details"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bank, "projectbrief.md"), []byte("# brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &sandbox{root: root, bank: bank}
	var err error
	if s.stdout, err = os.Create(filepath.Join(t.TempDir(), "stdout")); err != nil {
		t.Fatal(err)
	}
	if s.stderr, err = os.Create(filepath.Join(t.TempDir(), "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stdout.Close(); s.stderr.Close() })
	return s
}

func (s *sandbox) out(t *testing.T) (string, string) {
	t.Helper()
	o, _ := os.ReadFile(s.stdout.Name())
	e, _ := os.ReadFile(s.stderr.Name())
	return string(o), string(e)
}

// run jails a shell command in s.root with method m.
func (s *sandbox) run(t *testing.T, m Method, cmd string) int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(s.root); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, got, err := Run(Options{Bank: s.bank, Argv: []string{"/bin/sh", "-c", cmd}, Method: m, Self: self,
		Stdout: s.stdout, Stderr: s.stderr})
	if errors.Is(err, ErrUnavailable) {
		testhost.Missing(t, "the "+string(m)+" primitive", err.Error())
	}
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got != m {
		t.Fatalf("method = %s, want %s", got, m)
	}
	return code
}

var methods = []Method{Userns, Bwrap}

func requireMethod(t *testing.T, m Method) {
	t.Helper()
	if m == Bwrap {
		testhost.Tool(t, "bwrap", "apt-get install -y bubblewrap")
	}
}

// TestWriteWithRunTimePathFails: the path is computed when the shell runs, so no
// classifier could have seen it; the kernel refuses the write all the same.
func TestWriteWithRunTimePathFails(t *testing.T) {
	for _, m := range methods {
		t.Run(string(m), func(t *testing.T) {
			requireMethod(t, m)
			s := newSandbox(t)
			code := s.run(t, m, `d=$(printf memory-; printf bank); echo x > "$d/details/a.json"; echo changed >> "$d/projectbrief.md"; rm "$d/projectbrief.md"`)
			_, stderr := s.out(t)
			if code == 0 {
				t.Fatalf("exit 0; want the shell's failure (stderr %q)", stderr)
			}
			if !strings.Contains(stderr, "Read-only file system") {
				t.Errorf("stderr = %q, want EROFS", stderr)
			}
			if _, err := os.Stat(filepath.Join(s.bank, "details", "a.json")); !os.IsNotExist(err) {
				t.Errorf("a.json was written: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(s.bank, "projectbrief.md")); string(b) != "# brief\n" {
				t.Errorf("projectbrief.md = %q, want it untouched", b)
			}
		})
	}
}

// TestNoWayBack: the command cannot undo the read-only view, even as root: no remount, no
// unmount, not from a nested namespace, and not through /proc/<pid>/root of a process
// outside the jail.
func TestNoWayBack(t *testing.T) {
	outside := exec.Command("sleep", "60")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer outside.Process.Kill()
	for _, m := range methods {
		t.Run(string(m), func(t *testing.T) {
			requireMethod(t, m)
			s := newSandbox(t)
			b := Quote(s.bank)
			via := Quote(fmt.Sprintf("/proc/%d/root%s/via-proc.json", outside.Process.Pid, s.bank))
			s.run(t, m, `mount -o remount,bind,rw `+b+`; umount `+b+`; umount -l `+b+`; echo 1 > `+b+`/remount.json; `+
				`echo 2 > `+via+`; `+
				`unshare -Urm sh -c "mount -o remount,bind,rw `+b+`; umount `+b+`; echo 3 > `+b+`/nested.json"; exit 0`)
			for _, name := range []string{"remount.json", "via-proc.json", "nested.json"} {
				if _, err := os.Stat(filepath.Join(s.bank, name)); !os.IsNotExist(err) {
					_, stderr := s.out(t)
					t.Errorf("%s was written: the jail was undone from inside (uid %d)\n%s", name, os.Getuid(), stderr)
				}
			}
		})
	}
}

// TestReadsAndOtherWritesWork: only the bank is read-only; reading it and writing elsewhere
// in the repository behave as without the jail, and the exit status is the command's.
func TestReadsAndOtherWritesWork(t *testing.T) {
	for _, m := range methods {
		t.Run(string(m), func(t *testing.T) {
			requireMethod(t, m)
			s := newSandbox(t)
			code := s.run(t, m, `cat memory-bank/projectbrief.md && echo ok > notes.txt && echo err >&2 && exit 7`)
			stdout, stderr := s.out(t)
			if code != 7 {
				t.Errorf("exit = %d, want 7", code)
			}
			if stdout != "# brief\n" || stderr != "err\n" {
				t.Errorf("stdout %q stderr %q", stdout, stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(s.root, "notes.txt")); string(b) != "ok\n" {
				t.Errorf("notes.txt = %q", b)
			}
		})
	}
}

// TestBackgroundJobStaysJailed: a job the command leaves running keeps the read-only view
// after the command has returned, however it detaches.
func TestBackgroundJobStaysJailed(t *testing.T) {
	for _, m := range methods {
		t.Run(string(m), func(t *testing.T) {
			requireMethod(t, m)
			s := newSandbox(t)
			job := `(sleep 0.3; echo x > memory-bank/late.json 2>/dev/null; echo $? > done.$1) `
			code := s.run(t, m, `f() { `+job+`; }; f plain >/dev/null 2>&1 & `+
				`setsid sh -c '`+strings.ReplaceAll(job, "$1", "setsid")+`' >/dev/null 2>&1 & `+
				`sh -c '( `+strings.ReplaceAll(job, "$1", "fork")+` & ) &' >/dev/null 2>&1; exit 0`)
			if code != 0 {
				t.Fatalf("exit = %d", code)
			}
			for _, name := range []string{"plain", "setsid", "fork"} {
				p := filepath.Join(s.root, "done."+name)
				deadline := time.Now().Add(10 * time.Second)
				var b []byte
				for {
					b, _ = os.ReadFile(p)
					if len(b) > 0 || time.Now().After(deadline) {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if strings.TrimSpace(string(b)) == "" || strings.TrimSpace(string(b)) == "0" {
					t.Errorf("%s job: write status %q, want a failure", name, b)
				}
			}
			if _, err := os.Stat(filepath.Join(s.bank, "late.json")); !os.IsNotExist(err) {
				t.Errorf("late.json was written by a background job: %v", err)
			}
		})
	}
}

// TestShellArgvKeepsCwdAndStatus: the directory the command ends in is written out even when
// it fails, so the host's shell can follow it.
func TestShellArgvKeepsCwdAndStatus(t *testing.T) {
	s := newSandbox(t)
	os.Mkdir(filepath.Join(s.root, "sub dir"), 0o755)
	cwd := filepath.Join(t.TempDir(), "cwd")
	self, _ := os.Executable()
	wd, _ := os.Getwd()
	os.Chdir(s.root)
	defer os.Chdir(wd)
	code, _, err := Run(Options{Bank: s.bank, Argv: ShellArgv(`cd "sub dir" && echo "it's" && exit 3`, cwd), Self: self,
		Stdout: s.stdout, Stderr: s.stderr})
	if errors.Is(err, ErrUnavailable) {
		testhost.Missing(t, "a jail primitive", err.Error())
	}
	if err != nil || code != 3 {
		t.Fatalf("Run = %d, %v; want 3", code, err)
	}
	got, _ := os.ReadFile(cwd)
	want, _ := filepath.EvalSymlinks(filepath.Join(s.root, "sub dir"))
	if strings.TrimSpace(string(got)) != want {
		t.Errorf("cwd file = %q, want %q", got, want)
	}
	if stdout, _ := s.out(t); stdout != "it's\n" {
		t.Errorf("stdout = %q", stdout)
	}
}

func TestOptionsValidate(t *testing.T) {
	for name, o := range map[string]Options{
		"no command":    {Bank: "/x"},
		"relative bank": {Bank: "memory-bank", Argv: []string{"true"}},
		"bad method":    {Bank: "/x", Argv: []string{"true"}, Method: "chroot"},
	} {
		if _, _, err := Run(o); err == nil || errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: err = %v, want a usage error", name, err)
		}
	}
}

// TestWrapperLine: the line a host runs instead of its shell command keeps the command's
// output and status and cannot write the bank.
func TestWrapperLine(t *testing.T) {
	s := newSandbox(t)
	self, _ := os.Executable()
	line := NewWrapper(self, s.bank).Wrap(`echo "it's"; d=$(printf memory-)bank; echo x > "$d/w.json"; exit 5`)
	if strings.HasPrefix(line, Quote(self)) {
		// the `mbguard jail --sh` form; the CLI's scripts test it
		testhost.Missing(t, "bwrap", "apt-get install -y bubblewrap")
	}
	c := exec.Command("/bin/sh", "-c", line)
	c.Dir = s.root
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 5 {
		t.Errorf("exit = %v, want 5\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "it's\n") || !strings.Contains(string(out), "Read-only file system") {
		t.Errorf("output = %q", out)
	}
	if _, err := os.Stat(filepath.Join(s.bank, "w.json")); !os.IsNotExist(err) {
		t.Errorf("w.json was written: %v", err)
	}
}

// TestNoCapabilityLeft: the command keeps no capability, not even as root: open_by_handle_at
// (which needs CAP_DAC_READ_SEARCH) cannot turn a file handle of a bank file into a writable
// descriptor through a read-write mount of the same file system, and the command's
// capability sets (effective, permitted, inheritable, ambient, and with the userns method the
// bounding set) are empty after an exec.
func TestNoCapabilityLeft(t *testing.T) {
	gcc := testhost.Tool(t, "gcc", "apt-get install -y gcc")
	helper := filepath.Join(t.TempDir(), "byhandle")
	if out, err := exec.Command(gcc, "-o", helper, "testdata/byhandle.c").CombinedOutput(); err != nil {
		t.Fatalf("building the helper: %v\n%s", err, out)
	}
	for _, m := range methods {
		t.Run(string(m), func(t *testing.T) {
			requireMethod(t, m)
			s := newSandbox(t)
			file := filepath.Join(s.bank, "projectbrief.md")
			code := s.run(t, m, Quote(helper)+" "+Quote(file)+" "+Quote(s.root)+"; grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status")
			stdout, stderr := s.out(t)
			if b, _ := os.ReadFile(file); string(b) != "# brief\n" {
				t.Fatalf("projectbrief.md = %q: written through a file handle (uid %d)\n%s%s", b, os.Getuid(), stdout, stderr)
			}
			if code != 0 || !strings.Contains(stdout, "refused: ") && !strings.Contains(stdout, "nohandle: ") {
				t.Errorf("exit %d, stdout %q, stderr %q: want the helper refused", code, stdout, stderr)
			}
			for _, line := range strings.Split(stdout, "\n") {
				if m == Bwrap && strings.HasPrefix(line, "CapBnd") {
					// bwrap keeps root's bounding set but sets SECBIT_NOROOT and no_new_privs:
					// an exec gets nothing from it (the other sets show it)
					continue
				}
				if strings.HasPrefix(line, "Cap") && !strings.HasSuffix(line, "0000000000000000") {
					t.Errorf("%s: want no capability in the jail", line)
				}
			}
		})
	}
}
