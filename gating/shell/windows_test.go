package shell

import (
	"reflect"
	"testing"
)

// TestGitBashWindowsPaths (issue 31, point 3): in Git Bash or MSYS on Windows (a working
// directory with a drive) a drive path is absolute, in any slash and quoting; on a POSIX
// working directory the same words stay relative names, as bash on Linux reads them.
func TestGitBashWindowsPaths(t *testing.T) {
	const cwd = "C:/w/34/repo"
	for _, c := range []struct{ name, cmd, cwd, want string }{
		{"forward slashes", "echo x > C:/w/34/repo/memory-bank/a.json", cwd, "C:/w/34/repo/memory-bank/a.json"},
		{"lower-case drive", "echo x > c:/w/34/repo/memory-bank/a.json", cwd, "c:/w/34/repo/memory-bank/a.json"},
		{"backslashes quoted", `echo x > 'C:\w\34\repo\memory-bank\a.json'`, cwd, "C:/w/34/repo/memory-bank/a.json"},
		{"backslashes double-quoted", `cp x "C:\\w\\34\\repo\\memory-bank\\a.json"`, cwd, "C:/w/34/repo/memory-bank/a.json"},
		{"MSYS drive", "echo x > /c/w/34/repo/memory-bank/a.json", cwd, "/c/w/34/repo/memory-bank/a.json"},
		{"extended-length prefix", `echo x > '\\?\C:\w\34\repo\memory-bank\a.json'`, cwd, "//?/C:/w/34/repo/memory-bank/a.json"},
		{"relative with backslashes", `echo x > 'memory-bank.\x.json'`, cwd, "C:/w/34/repo/memory-bank./x.json"},
		{"drive-relative", "echo x > C:memory-bank/a.json", cwd, "C:/w/34/repo/memory-bank/a.json"},
		{"cd to a drive path", "cd 'C:\\w\\34\\repo\\memory-bank' && echo x > a.json", "D:/elsewhere", "C:/w/34/repo/memory-bank/a.json"},
		{"share", `echo x > '\\srv\share\repo\memory-bank\a.json'`, "//srv/share/repo", "//srv/share/repo/memory-bank/a.json"},
		{"relative under a share", `echo x > memory-bank/a.json`, "//srv/share/repo", "//srv/share/repo/memory-bank/a.json"},
		{"drive word on a POSIX cwd is relative", "echo x > C:/x/a.json", "/repo", "/repo/C:/x/a.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Classify(c.cmd, c.cwd)
			if got := format(r.Writes); !reflect.DeepEqual(got, []string{c.want}) {
				t.Errorf("Classify(%q) in %s: writes = %q, want %q", c.cmd, c.cwd, got, c.want)
			}
		})
	}
}
