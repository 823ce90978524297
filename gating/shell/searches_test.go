package shell

import (
	"slices"
	"testing"
)

// Searches: the directories a command reads at any depth and shows, so a caller can refuse a
// search that takes in a directory holding memory-bank/ (hooks' secretRefusal).
func TestSearches(t *testing.T) {
	tests := map[string]struct {
		cmd  string
		want []Access
	}{
		"grep -r at the root":       {"grep -rn token .", []Access{{Path: "/p", Op: "grep"}}},
		"grep -r with no path":      {"grep -r token", []Access{{Path: "/p", Op: "grep"}}},
		"grep -d recurse":           {"grep -d recurse x src", []Access{{Path: "/p/src", Op: "grep"}}},
		"grep -R, two roots":        {"grep -R x src docs", []Access{{Path: "/p/src", Op: "grep"}, {Path: "/p/docs", Op: "grep"}}},
		"rg with no path":           {"rg token", []Access{{Path: "/p", Op: "rg"}}},
		"rg after cd":               {"cd src && rg x", []Access{{Path: "/p/src", Op: "rg"}}},
		"rg in bash -c":             {"bash -c 'rg x'", []Access{{Path: "/p", Op: "rg"}}},
		"ag":                        {"ag x lib", []Access{{Path: "/p/lib", Op: "ag"}}},
		"a run-time root":           {`grep -r x "$D"`, []Access{{Path: "/p", Op: "grep", Unknown: true}}},
		"rg -g '!memory-bank'":      {"rg -g '!memory-bank' x", []Access{{Path: "/p", Op: "rg", NoBank: true}}},
		"rg --glob=!memory-bank/**": {"rg --glob='!memory-bank/**' x", []Access{{Path: "/p", Op: "rg", NoBank: true}}},
		"grep --exclude-dir":        {"grep -r --exclude-dir=memory-bank x .", []Access{{Path: "/p", Op: "grep", NoBank: true}}},
		"grep --exclude-dir apart":  {"grep -r --exclude-dir memory-bank x .", []Access{{Path: "/p", Op: "grep", NoBank: true}}},
		"ag --ignore-dir":           {"ag --ignore-dir=memory-bank x", []Access{{Path: "/p", Op: "ag", NoBank: true}}},
		"another dir excluded":      {"grep -r --exclude-dir=node_modules x .", []Access{{Path: "/p", Op: "grep"}}},
		"find -exec":                {"find . -name '*.md' -exec cat {} +", []Access{{Path: "/p", Op: "find -exec"}}},
		"xargs cat":                 {"find . -name '*.md' | xargs cat", []Access{{Path: "/p", Op: "xargs cat"}}},
		"git grep":                  {"git grep -n token", []Access{{Path: "/p", Op: "git grep"}}},
		"git grep in a dir":         {"git grep token -- src", []Access{{Path: "/p/src", Op: "git grep"}}},
		"git grep bank excluded":    {"git grep -n token -- ':!memory-bank'", []Access{{Path: "/p", Op: "git grep", NoBank: true}}},
		"git grep :(exclude)":       {"git grep token -- . ':(exclude)memory-bank/**'", []Access{{Path: "/p", Op: "git grep", NoBank: true}}},
		"grep --include=*.go":       {"grep -rn --include='*.go' token .", []Access{{Path: "/p", Op: "grep", NoMarkdown: true}}},
		"grep --include=*.{go,md}":  {"grep -rn --include='*.{go,md}' token .", []Access{{Path: "/p", Op: "grep"}}},
		"grep --include=*":          {"grep -rn --include='*' token .", []Access{{Path: "/p", Op: "grep"}}},
		"grep --exclude=*.md":       {"grep -rn --exclude='*.md' token .", []Access{{Path: "/p", Op: "grep", NoMarkdown: true}}},
		"rg -t go":                  {"rg -t go token", []Access{{Path: "/p", Op: "rg", NoMarkdown: true}}},
		"rg -t md":                  {"rg -t md token", []Access{{Path: "/p", Op: "rg"}}},
		"rg -g '*.ts' -g '*.md'":    {"rg -g '*.ts' -g '*.md' token", []Access{{Path: "/p", Op: "rg"}}},
		"rg -g '!*.md'":             {"rg -g '!*.md' token", []Access{{Path: "/p", Op: "rg", NoMarkdown: true}}},
		"grep of one file":          {"grep token notes.txt", nil},
		"grep from stdin":           {"ls | grep x", nil},
		"rg file names only":        {"rg -l x", nil},
		"rg --files":                {"rg --files", nil},
		"grep -rl":                  {"grep -rl x .", nil},
		"git grep -l":               {"git grep -l x", nil},
		"ag -g":                     {"ag -g foo", nil},
		"find without -exec":        {"find . -name '*.md'", nil},
		"xargs rm":                  {"find . -name '*.tmp' | xargs rm", nil},
		"ls":                        {"ls -la", nil},
		"diff -r":                   {"diff -ru memory-bank /tmp/e", []Access{{Path: "/p/memory-bank", Op: "diff"}, {Path: "/tmp/e", Op: "diff"}}},
		"diff -rq":                  {"diff -rq . /tmp/e", nil},
		"cat of a run-time word":    {"cat $(find memory-bank -name x.md)", []Access{{Path: "/p", Op: "cat", Unknown: true}}},
		"cat below a literal dir":   {`cat "memory-bank/$X"`, []Access{{Path: "/p/memory-bank", Op: "cat", Unknown: true}}},
		"head of a loop's word":     {`for f in $(ls); do head "$f"; done`, []Access{{Path: "/p", Op: "head", Unknown: true}}},
		"cat of a loop's glob":      {`for f in memory-bank/*.md; do cat "$f"; done`, nil},
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

func TestExcludesBank(t *testing.T) {
	for v, want := range map[string]bool{
		"memory-bank": true, "memory-bank/": true, "./memory-bank": true, "memory-bank/**": true, "**/memory-bank": true,
		"memory-bank/**/*": true, "memory-bank/details": false, "memory-bank-old": false, "src": false, "": false,
	} {
		if got := ExcludesBank(v); got != want {
			t.Errorf("ExcludesBank(%q) = %v, want %v", v, got, want)
		}
	}
}
