package gating

import (
	"testing"
)

func TestCanon(t *testing.T) {
	tests := []struct {
		name, raw, cwd string
		root           string
		ci             bool
		links          map[string]string
		want           string
		in             bool
	}{
		{name: "relative onto root", raw: "memory-bank/MEMORY.md", want: "memory-bank/MEMORY.md", in: true},
		{name: "backslashes", raw: `memory-bank\details\patterns.md`, want: "memory-bank/details/patterns.md", in: true},
		{name: "dot segments", raw: "./src/../memory-bank/./x.md", want: "memory-bank/x.md", in: true},
		{name: "relative onto cwd", raw: "../memory-bank/x.md", cwd: "/repo/src", want: "memory-bank/x.md", in: true},
		{name: "relative cwd from root", raw: "x.md", cwd: "memory-bank", want: "memory-bank/x.md", in: true},
		{name: "absolute inside", raw: "/repo/src/a.go", want: "src/a.go", in: true},
		{name: "root itself", raw: "/repo", want: ".", in: true},
		{name: "escape with dotdot", raw: "../other/memory-bank/x.md", want: "/other/memory-bank/x.md"},
		{name: "sibling with root prefix", raw: "/repo2/memory-bank/x.md", want: "/repo2/memory-bank/x.md"},
		{name: "home", raw: "~/memory-bank/x.md", want: "/~/memory-bank/x.md"},
		{name: "home as cwd", raw: "memory-bank/x.md", cwd: "~", want: "/~/memory-bank/x.md"},
		{name: "a directory named ~ in the repository", raw: "/repo/~/x", want: "./~/x", in: true},
		{name: "drive-like name on a POSIX root is relative", raw: `C:\repo\x.md`, want: "C:/repo/x.md", in: true},
		{name: "windows root", root: `C:\work\repo`, raw: `C:\work\repo\memory-bank\x.md`, want: "memory-bank/x.md", in: true},
		{name: "windows root, other drive", root: `C:\work\repo`, raw: `D:\work\repo\x.md`, want: "D:/work/repo/x.md"},
		{name: "windows root folded", root: `C:\Work\Repo`, ci: true, raw: `c:\work\repo\SRC\A.go`, want: "src/a.go", in: true},
		// Windows spellings of one file (issue 31): every one is the same canonical path.
		{name: "lower-case drive on an upper-case root", root: `C:\w\48\repo`, raw: `c:\w\48\repo\memory-bank\details\ok.md`, want: "memory-bank/details/ok.md", in: true},
		{name: "upper-case drive on a lower-case root", root: `c:\w\repo`, raw: `C:/w/repo/memory-bank/x.md`, want: "memory-bank/x.md", in: true},
		{name: "relative path under a lower-case drive cwd", root: `C:\w\repo`, cwd: `c:\w\repo\memory-bank`, raw: `details\ok.md`, want: "memory-bank/details/ok.md", in: true},
		{name: "MSYS drive path", root: `C:\w\repo`, raw: "/c/w/repo/memory-bank/a.json", want: "memory-bank/a.json", in: true},
		{name: "Cygwin drive path", root: `C:\w\repo`, raw: "/cygdrive/c/w/repo/memory-bank/a.json", want: "memory-bank/a.json", in: true},
		{name: "MSYS cwd", root: `C:\w\repo`, cwd: "/c/w/repo/src", raw: "../memory-bank/a.md", want: "memory-bank/a.md", in: true},
		{name: "extended-length prefix", root: `C:\w\repo`, raw: `\\?\C:\w\repo\memory-bank\a.json`, want: "memory-bank/a.json", in: true},
		{name: "device prefix", root: `C:\w\repo`, raw: `\\.\c:\w\repo\memory-bank\a.json`, want: "memory-bank/a.json", in: true},
		{name: "trailing dot dropped", root: `C:\w\repo`, raw: `memory-bank.\x.json`, want: "memory-bank/x.json", in: true},
		{name: "trailing spaces and dots dropped", root: `C:\w\repo`, raw: `memory-bank. .\MEMORY.md. `, want: "memory-bank/MEMORY.md", in: true},
		{name: "dotdot with a trailing space is the parent", root: `C:\w\repo`, cwd: `C:\w\repo\src`, raw: `.. \memory-bank\x.md`, want: "memory-bank/x.md", in: true},
		{name: "UNC root", root: `\\srv\share\repo`, raw: `\\srv\share\repo\memory-bank\x.md`, want: "memory-bank/x.md", in: true},
		{name: "UNC through the extended prefix", root: `\\srv\share\repo`, raw: `\\?\UNC\srv\share\repo\memory-bank\x.md`, want: "memory-bank/x.md", in: true},
		{name: "UNC relative", root: `\\srv\share\repo`, raw: `memory-bank\x.md`, want: "memory-bank/x.md", in: true},
		{name: "other share", root: `\\srv\share\repo`, raw: `\\srv\other\repo\x.md`, want: "//srv/other/repo/x.md"},
		{name: "folded on a case-insensitive drive", root: `C:\w\Repo`, ci: true, raw: `c:\W\repo\Memory-Bank\MEMORY.md`, want: "memory-bank/memory.md", in: true},
		{name: "alternate data stream is its file", root: `C:\w\repo`, raw: `memory-bank\MEMORY.md:hidden`, want: "memory-bank/MEMORY.md", in: true},
		{name: "drive-relative on the session's drive", root: `C:\w\repo`, cwd: `C:\w\repo\memory-bank`, raw: `c:x.json`, want: "memory-bank/x.json", in: true},
		{name: "drive-relative on another drive", root: `C:\w\repo`, raw: `D:x.json`, want: "D:/x.json"},
		{name: "MSYS-looking path on a POSIX root is POSIX", raw: "/c/repo/memory-bank/a.json", want: "/c/repo/memory-bank/a.json"},
		{name: "trailing dot kept on a POSIX root", raw: "memory-bank./x.json", want: "memory-bank./x.json", in: true},
		{name: "symlink out", raw: "memory-bank/link.md", links: map[string]string{"/repo/memory-bank/link.md": "/etc/passwd"}, want: "/etc/passwd"},
		{name: "symlinked dir inside", raw: "docs/x.md", links: map[string]string{"/repo/docs": "/repo/memory-bank"}, want: "memory-bank/x.md", in: true},
		{name: "case folded when insensitive", raw: "Memory-Bank/MEMORY.md", ci: true, want: "memory-bank/memory.md", in: true},
		{name: "root case folded", raw: "/REPO/src/A.go", ci: true, want: "src/a.go", in: true},
		{name: "case kept when sensitive", raw: "Memory-Bank/MEMORY.md", want: "Memory-Bank/MEMORY.md", in: true},
		{name: "root case matters when sensitive", raw: "/REPO/src/a.go", want: "/REPO/src/a.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFacts(nil)
			fx.ci = tc.ci
			if tc.root != "" {
				fx.root = tc.root
			}
			if tc.links != nil {
				fx.links = tc.links
			}
			got, in := Canon(tc.raw, tc.cwd, fx)
			if got != tc.want || in != tc.in {
				t.Errorf("Canon(%q, %q) = %q, %v; want %q, %v", tc.raw, tc.cwd, got, in, tc.want, tc.in)
			}
		})
	}
}

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"auth/", "src/auth/login.ts", true},
		{"auth/", "auth/x.go", true},
		{"auth/", "src/author.go", false},
		{"auth/", "src/oauth/x.go", false},
		{"auth/", "infra/auth", true}, // rm -rf names the directory itself
		{"sso/", "src/processor.ts", false},
		{"sso/", "src/sso/saml.ts", true},
		{"package.json", "web/package.json", true},
		{"package.json", "web/package.json.bak", false},
		{"package.json", "package.json/x", false},
		{".env*", ".env", true},
		{".env*", "api/.env.local", true},
		{".env*", "src/env.ts", false},
		{"*.pem", "certs/server.pem", true},
		{"*.pem", "pem/readme.md", false},
		{"infra/terraform/", "ops/infra/terraform/main.tf", true},
		{"infra/terraform/", "infra/x/terraform/main.tf", false},
		{".github/workflows/", ".github/workflows/ci.yml", true},
		{"memory-bank/details/progress.md", "memory-bank/details/progress.md", true},
		{"memory-bank/details/progress.md", "memory-bank/details/progress.md.bak", false},
		{"memory-bank/details/learnings/", "memory-bank/details/learnings/auth/x.md", true},
		{"index.md", "memory-bank/details/design/index.md", true},
		{"docs/api.md", "src/docs/api.md", true},
		{"docs/api.md", "docs/api.md/x", false},
		{"", "x", false},
		{"[", "[", false},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+"~"+tc.path, func(t *testing.T) {
			if got := MatchPath(tc.pattern, tc.path); got != tc.want {
				t.Errorf("MatchPath(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
			}
		})
	}
}

func TestDefaultPolicySensitive(t *testing.T) {
	e := New(DefaultPolicy())
	tests := []struct {
		path string
		want bool
	}{
		{"src/auth/session.ts", true},
		{"pkg/security/x.go", true},
		{"package-lock.json", true},
		{"go.sum", true},
		{".github/workflows/release.yml", true},
		{".gitlab-ci.yml", true},
		{"Dockerfile", true},
		{"deploy/k8s/app.yaml", true},
		{"main.tf", true},
		{".env.production", true},
		{"certs/tls.key", true},
		{"db/migrations/001.sql", true},
		{"src/processor.ts", false},
		{"src/author.go", false},
		{"src/store/index.ts", false},
		{"README.md", false},
		{"memory-bank/details/learnings/auth/notes.md", false}, // safe beats sensitive
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := e.sensitive(tc.path, false); got != tc.want {
				t.Errorf("sensitive(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		err  bool
	}{
		{"off", ModeOff, false},
		{"WARN", ModeWarn, false},
		{" Block ", ModeBlock, false},
		{"", "", true},
		{"strict", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMode(tc.in)
			if got != tc.want || (err != nil) != tc.err {
				t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
			}
		})
	}
}

// TestMatcherAgreesWithMatchPath keeps the compiled lists honest against the reference rules.
func TestMatcherAgreesWithMatchPath(t *testing.T) {
	p := DefaultPolicy()
	lists := append(append([]string{"[ab]c/", "*/x.md", "a/b/"}, p.SensitivePaths...), p.SafePaths...)
	m := compile(lists, false)
	paths := []string{"src/auth/x.ts", "src/author.go", "ac/x", "bc", "q/x.md", "x.md", "a/b", "z/a/b/c", "a/bb/c",
		".env", "web/.env.local", "deploy/app.yaml", "memory-bank/details/learnings/auth/x.md", "Dockerfile.dev",
		"requirements-dev.txt", "ops/infra/main.go", "README.md", "memory-bank/details/progress.md", "x/index.md"}
	for _, path := range paths {
		want := false
		for _, pat := range lists {
			want = want || MatchPath(pat, path)
		}
		if got := m.match(path); got != want {
			t.Errorf("compiled match(%q) = %v, MatchPath says %v", path, got, want)
		}
	}
}

func TestPolicyChangedAfterNew(t *testing.T) {
	e := New(DefaultPolicy())
	if !e.sensitive("src/auth/x.ts", false) {
		t.Fatal("default list not compiled")
	}
	e.Policy.SensitivePaths = []string{"billing/"}
	if e.sensitive("src/auth/x.ts", false) || !e.sensitive("src/billing/x.ts", false) {
		t.Error("a replaced list was not recompiled")
	}
	lit := &Engine{Policy: DefaultPolicy()}
	if !lit.sensitive("src/auth/x.ts", false) {
		t.Error("a literal Engine does not match")
	}
	if !lit.sensitive("src/auth/x.ts", true) {
		t.Error("folded match failed")
	}
}
