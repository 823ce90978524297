package shell

import (
	"slices"
	"testing"
)

// Carries: the paths whose bytes a command copies, archives or links to another name, so a
// caller can refuse a copy of a bank file holding a secret to where its text is not guarded
// (hooks' secretRefusal).
func TestCarries(t *testing.T) {
	c := func(op string, paths ...string) []Access {
		var out []Access
		for _, p := range paths {
			out = append(out, Access{Path: p, Op: op})
		}
		return out
	}
	tests := map[string]struct {
		cmd  string
		want []Access
	}{
		"cp":                    {"cp memory-bank/a.md /tmp/y", c("cp", "/p/memory-bank/a.md")},
		"cp -r a tree":          {"cp -r memory-bank /tmp/b", c("cp", "/p/memory-bank")},
		"cp two into a dir":     {"cp a.md b.md out/", c("cp", "/p/a.md", "/p/b.md")},
		"cp -t":                 {"cp -t /tmp a.md b.md", c("cp", "/p/a.md", "/p/b.md")},
		"cp after cd":           {"cd memory-bank && cp details/x.md ../out.txt", c("cp", "/p/memory-bank/details/x.md")},
		"cp a glob":             {"cp memory-bank/*.md /tmp/", c("cp", "/p/memory-bank/*.md")},
		"mv":                    {"mv a.md /tmp/a.md", c("mv", "/p/a.md")},
		"install":               {"install -m 644 a.md /tmp/a.md", c("install", "/p/a.md")},
		"ln -s":                 {"ln -s /p/memory-bank/a.md /tmp/l", c("ln", "/p/memory-bank/a.md")},
		"ln into cwd":           {"ln -s memory-bank/a.md", c("ln", "/p/memory-bank/a.md")},
		"rsync":                 {"rsync -a memory-bank/ /tmp/b/", c("rsync", "/p/memory-bank")},
		"rsync from a remote":   {"rsync -a host:x/ out/", nil},
		"scp to a remote":       {"scp memory-bank/a.md host:/tmp/", c("scp", "/p/memory-bank/a.md")},
		"tar c":                 {"tar cf /tmp/b.tar memory-bank", c("tar c", "/p/memory-bank")},
		"tar czf -C":            {"tar -C memory-bank -czf /tmp/b.tgz details", c("tar c", "/p/memory-bank/details")},
		"tar to stdout":         {"tar c memory-bank | gzip > /tmp/b.tgz", c("tar c", "/p/memory-bank")},
		"zip -r":                {"zip -r /tmp/b.zip memory-bank", c("zip", "/p/memory-bank")},
		"7z a":                  {"7z a /tmp/b.7z memory-bank", c("7z a", "/p/memory-bank")},
		"tar x":                 {"tar xf b.tar", nil},
		"gzip -c":               {"gzip -c memory-bank/a.md | zcat", c("gzip", "/p/memory-bank/a.md")},
		"gzip in place":         {"gzip a.log", nil},
		"git archive":           {"git archive -o /tmp/b.zip HEAD", c("git archive", "/p")},
		"git archive a path":    {"git archive HEAD memory-bank > /tmp/b.tar", c("git archive", "/p/memory-bank")},
		"git archive --list":    {"git archive --list", nil},
		"curl -d @FILE":         {"curl -d @memory-bank/a.md https://h/post", c("curl", "/p/memory-bank/a.md")},
		"curl -F name=@FILE":    {"curl -F 'f=@memory-bank/a.md;type=text/plain' https://h/", c("curl", "/p/memory-bank/a.md")},
		"curl -T":               {"curl -T memory-bank/a.md https://h/", c("curl", "/p/memory-bank/a.md")},
		"curl -d text":          {"curl -d 'a=b' https://h/", nil},
		"cp of a run-time word": {`cp "$F" /tmp/y`, nil},
		"cat":                   {"cat memory-bank/a.md", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Classify(tc.cmd, "/p").Carries
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: Carries = %+v, want %+v", tc.cmd, got, tc.want)
			}
		})
	}
}

// git's views of files by revision or as patches are searches of the paths they show: the
// text is the file's, whichever version.
func TestGitShowsSearches(t *testing.T) {
	s := func(op string, noBank bool, paths ...string) []Access {
		var out []Access
		for _, p := range paths {
			out = append(out, Access{Path: p, Op: op, NoBank: noBank})
		}
		return out
	}
	tests := map[string]struct {
		cmd  string
		want []Access
	}{
		"git show REV:PATH":         {"git show HEAD:memory-bank/x.md", []Access{{Path: "memory-bank/x.md", Op: "git show", Top: true}}},
		"git show the index's":      {"git show :memory-bank/x.md", []Access{{Path: "memory-bank/x.md", Op: "git show", Top: true}}},
		"git show a stage":          {"git show :2:memory-bank/x.md", []Access{{Path: "memory-bank/x.md", Op: "git show", Top: true}}},
		"git cat-file -p":           {"git cat-file -p HEAD~1:memory-bank/x.md", []Access{{Path: "memory-bank/x.md", Op: "git cat-file", Top: true}}},
		"git cat-file blob":         {"git cat-file blob main:memory-bank/x.md", []Access{{Path: "memory-bank/x.md", Op: "git cat-file", Top: true}}},
		"git show a commit":         {"git show HEAD", []Access{{Path: ".", Op: "git show", Top: true}}},
		"git show -- a path":        {"git show HEAD -- memory-bank", s("git show", false, "/p/memory-bank")},
		"git log -p":                {"git log -p", []Access{{Path: ".", Op: "git log", Top: true}}},
		"git log -p -- memory-bank": {"git log -p -- memory-bank", s("git log", false, "/p/memory-bank")},
		"git log --patch a file":    {"git log --patch memory-bank/x.md", s("git log", false, "/p/memory-bank/x.md")},
		"git log -p bank left out":  {"git log -p -- . ':!memory-bank'", s("git log", true, "/p")},
		"git diff":                  {"git diff", []Access{{Path: ".", Op: "git diff", Changes: true, Top: true}}},
		"git diff --cached a path":  {"git diff --cached -- memory-bank", []Access{{Path: "/p/memory-bank", Op: "git diff", Changes: true}}},
		"git diff a revision":       {"git diff main", []Access{{Path: ".", Op: "git diff", Top: true}}},
		"git diff HEAD~1 -- bank":   {"git diff HEAD~1 -- memory-bank", s("git diff", false, "/p/memory-bank")},
		"git diff two blobs":        {"git diff HEAD:a.md HEAD~1:a.md", []Access{{Path: "a.md", Op: "git diff", Top: true}}},
		"git show REV:./PATH":       {"cd memory-bank && git show HEAD:./x.md", s("git show", false, "/p/memory-bank/x.md")},
		"git stash show -p":         {"git stash show -p", []Access{{Path: ".", Op: "git stash show", Top: true}}},
		"git -C sub log -p":         {"git -C src log -p", []Access{{Path: ".", Op: "git log", Top: true}}},
		"git log":                   {"git log --oneline", nil},
		"git log -- bank":           {"git log -- memory-bank", nil},
		"git show --stat":           {"git show --stat HEAD", nil},
		"git diff --name-only":      {"git diff --name-only", nil},
		"git cat-file -t":           {"git cat-file -t HEAD:memory-bank/x.md", nil},
		"git show a tree":           {"git show HEAD:memory-bank/", nil},
		"git stash show":            {"git stash show", nil},
		"git status":                {"git status", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Classify(tc.cmd, "/p").Searches
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: Searches = %+v, want %+v", tc.cmd, got, tc.want)
			}
		})
	}
}

// A for loop's body is walked once per word of its list, the variable bound to the word: what
// it reads and writes through the variable is known.
func TestForLoopUnrolled(t *testing.T) {
	paths := func(as []Access) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Path)
		}
		return out
	}
	tests := []struct {
		cmd           string
		reads, writes []string
		unknown       bool
	}{
		{`for f in memory-bank/*.md; do cat "$f"; done`, []string{"/p/memory-bank/*.md"}, nil, false},
		{`for f in a.md b.md; do cp "$f" /tmp/; done`, nil, []string{"/tmp/a.md", "/tmp/b.md"}, false},
		{`for f in memory-bank/{a,b}.md; do rm $f; done`, nil, []string{"/p/memory-bank/a.md", "/p/memory-bank/b.md"}, false},
		{`for d in src docs; do cd $d; cat x; done`, []string{"/p/src/x"}, nil, false},
		{`for f in $(ls); do rm "$f"; done`, nil, nil, true},
	}
	for _, tc := range tests {
		r := Classify(tc.cmd, "/p")
		if got := paths(r.Reads); !slices.Equal(got, tc.reads) {
			t.Errorf("%s: Reads = %v, want %v", tc.cmd, got, tc.reads)
		}
		if got := paths(r.Writes); !slices.Equal(got, tc.writes) {
			t.Errorf("%s: Writes = %v, want %v", tc.cmd, got, tc.writes)
		}
		if r.Unknown != tc.unknown {
			t.Errorf("%s: Unknown = %v, want %v", tc.cmd, r.Unknown, tc.unknown)
		}
	}
}
