package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// runEnv runs mbguard with exactly the variables vars, plus what git needs to stay isolated.
func runEnv(t *testing.T, vars map[string]string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		if k == "PATH" || strings.HasPrefix(k, "GIT_") {
			return os.Getenv(k)
		}
		return ""
	}
	code := run(context.Background(), args, strings.NewReader(""), &out, &out, getenv)
	return code, out.String()
}

// TestGlobalInstallFromUserProfile (issue 31, point 5): PowerShell and cmd set no HOME; the
// user-level directory is %USERPROFILE% then, so install --global writes there instead of
// refusing.
func TestGlobalInstallFromUserProfile(t *testing.T) {
	testgit.Isolate(t)
	profile := t.TempDir()
	code, out := runEnv(t, map[string]string{"USERPROFILE": profile}, "-C", t.TempDir(), "install", "--agent", "claude", "--global")
	if code != 0 {
		t.Fatalf("install --global without HOME: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(filepath.Join(profile, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(b), "hook claude") {
		t.Fatalf("no hooks in %%USERPROFILE%%\\.claude\\settings.json: %v\n%s", err, out)
	}
}

// TestDoctorWithoutHomeFindsTheProjectFileOnce (issue 31, point 5): with neither HOME nor
// USERPROFILE, doctor run in the project must not take .claude/settings.json for a user-level
// file as well, and so must not advise removing "one of the two" installs.
func TestDoctorWithoutHomeFindsTheProjectFileOnce(t *testing.T) {
	testgit.Isolate(t)
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", "# Memory\n")
	if code, out := runEnv(t, map[string]string{"HOME": os.Getenv("HOME")}, "-C", root, "install", "--agent", "claude"); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	for name, vars := range map[string]map[string]string{
		"no HOME, no USERPROFILE":           {},
		"USERPROFILE is the project":        {"USERPROFILE": root},
		"HOME empty, USERPROFILE elsewhere": {"HOME": "", "USERPROFILE": t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			wd, _ := os.Getwd()
			if err := os.Chdir(root); err != nil {
				t.Fatal(err)
			}
			defer os.Chdir(wd)
			_, out := runEnv(t, vars, "doctor")
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "claude") && (strings.Contains(line, "twice") || strings.Contains(line, "--uninstall")) {
					t.Errorf("doctor: %s", line)
				}
			}
			if !strings.Contains(out, "hooks in "+filepath.Join(root, ".claude", "settings.json")) {
				t.Errorf("doctor does not find the project's hooks:\n%s", out)
			}
		})
	}
}

// TestNoGitSaysSo (issue 31, point 6): check and install --hooks without git say that Git was
// not found and how to get it, in mbguard's words.
func TestNoGitSaysSo(t *testing.T) {
	testgit.Isolate(t)
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/MEMORY.md", "# Memory\n")
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"check"}, {"install", "--hooks"}} {
		code, out := runEnv(t, map[string]string{"HOME": os.Getenv("HOME")}, append([]string{"-C", root}, args...)...)
		if code == 0 || !strings.Contains(out, "Git was not found") || !strings.Contains(out, "Git for Windows") || strings.Contains(out, "executable file not found") {
			t.Errorf("mbguard %s without git: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
}
