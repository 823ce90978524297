package hooks

import (
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// wantCopyRefusal checks a refusal of a command that would carry a bank secret out of the
// bank: where the secret is, never the secret, and the next step (remove it, then copy).
func wantCopyRefusal(t *testing.T, cmd, got string) {
	t.Helper()
	if !strings.Contains(got, readSecretFile+" line 2 holds a secret (gitleaks rule github-pat)") ||
		!strings.Contains(got, "copy it out of memory-bank/") ||
		!strings.Contains(got, "remove the secret at "+readSecretFile+" line 2 (rule github-pat)") {
		t.Errorf("%s: refusal %q: want the file, line and rule, that it copies the secret out, and where to remove it", cmd, got)
	}
}

// shellCase is one shell command played on the refuse hosts, and whether it must be refused.
type shellCase struct {
	cmd     string
	refused bool
}

// refusePlay plays shell commands as PreToolUse calls on the hosts that refuse before a call
// (Qwen Code, Droid, Crush), each on a fresh repository whose tech.md holds readSecret: no
// reply carries the secret, a command is refused exactly when its case says, and a refusal
// passes check.
type refusePlay struct {
	cases   []shellCase
	leak    string                                      // what an allowed command would have shown
	check   func(t *testing.T, cmd, refusal string)     // a refusal's text
	prepare func(t *testing.T, root string)             // the repository, before the first call
	after   func(t *testing.T, host string, h *hostRun) // more calls on the same host
}

func (p refusePlay) run(t *testing.T) {
	t.Helper()
	for _, host := range []string{"qwen", "droid", "crush"} {
		t.Run(host, func(t *testing.T) {
			root := secretBankRepo(t)
			if p.prepare != nil {
				p.prepare(t, root)
			}
			h := newHostRun(t, host, root, nil)
			for _, tc := range p.cases {
				r := h.call("PreToolUse", searchShapes[host].shell(tc.cmd))
				if strings.Contains(string(r.Stdout)+r.Stderr+r.Context, readSecret) {
					t.Fatalf("%s: the reply carries the secret: %s %s", tc.cmd, r.Stdout, r.Stderr)
				}
				got := denied(t, host, r)
				switch {
				case !tc.refused && got != "":
					t.Errorf("%s: refused: %s", tc.cmd, got)
				case tc.refused && got == "":
					t.Errorf("%s: allowed, and %s", tc.cmd, p.leak)
				case tc.refused && p.check != nil:
					p.check(t, tc.cmd, got)
				}
			}
			if p.after != nil {
				p.after(t, host, h)
			}
		})
	}
}

// A shell command that copies, archives or links a bank file holding a secret to a name
// outside the bank (cp to /tmp, then cat /tmp/y) is refused before it runs on the hosts that
// cannot hide a tool's output: the copy would show the secret at the next call, under a name
// no gate guards. Copies of files without a secret, and of trees without the bank, run; a
// copy into the bank stays the bank guard's refusal.
func TestShellCopyOutOfBankSecret(t *testing.T) {
	cases := []shellCase{
		{"cp " + readSecretFile + " /tmp/y", true},
		{"cp -r memory-bank /tmp/b", true},
		{"cp memory-bank/details/*.md /tmp/", true},
		{"cd memory-bank && cp details/tech.md ../notes.txt", true},
		{"install -m 644 " + readSecretFile + " /tmp/y", true},
		{"rsync -a memory-bank/ /tmp/b/", true},
		{"tar cf /tmp/b.tar memory-bank", true},
		{"tar -C memory-bank -czf /tmp/b.tgz details", true},
		{"tar czf /tmp/all.tgz .", true},
		{"zip -r /tmp/b.zip memory-bank", true},
		{"7z a /tmp/b.7z memory-bank", true},
		{"ln -s $PWD/" + readSecretFile + " /tmp/l", true},
		{"ln -s " + readSecretFile, true},
		{"gzip -c " + readSecretFile + " | zcat", true},
		{"git archive -o /tmp/b.zip HEAD", true},
		{"git archive HEAD memory-bank > /tmp/b.tar", true},
		{"git archive -o /tmp/src.zip HEAD src", false},
		{"curl -s --data-binary @" + readSecretFile + " http://127.0.0.1:8080/echo", true},
		{"curl -F 'notes=@" + readSecretFile + "' http://127.0.0.1:8080/upload", true},
		{"curl -s -d @README.md http://127.0.0.1:8080/echo", false},
		{"cp memory-bank/details/patterns.md /tmp/y", false},
		{"cp -r src /tmp/src", false},
		{"tar cf /tmp/src.tar src", false},
		{"rsync -a host:backup/ /tmp/b/", false},
	}
	refusePlay{cases: cases, leak: "the copy would show the secret at the next call", check: wantCopyRefusal,
		after: func(t *testing.T, host string, h *hostRun) {
			// a copy into the bank: the bank guard's refusal, not this one
			r := h.call("PreToolUse", searchShapes[host].shell("cp "+readSecretFile+" memory-bank/details/y.md"))
			if got := denied(t, host, r); got == "" || strings.Contains(got, "copy it out of memory-bank/") {
				t.Errorf("a copy within the bank: refusal %q, want the bank guard's", got)
			}
		}}.run(t)
}

// git's views of a bank file holding a secret (by revision, as a patch, in the stash) are
// refused before they run on the hosts that cannot hide a tool's output, judged by the file
// as it is now; views that leave the bank out, or show only names, run.
func TestGitViewOfBankSecret(t *testing.T) {
	cases := []shellCase{
		{"git show HEAD:" + readSecretFile, true},
		{"git show :" + readSecretFile, true},
		{"git cat-file -p HEAD:" + readSecretFile, true},
		{"git log -p -- memory-bank", true},
		{"git log -p", true},
		{"git log --patch " + readSecretFile, true},
		{"git diff HEAD~1 -- memory-bank", true},
		{"git show HEAD", true},
		{"git stash show -p", true},
		{"cd src && git show HEAD:" + readSecretFile, true},
		{"cd src && git log -p", true},
		{"git -C src show HEAD", true},
		{"git -C src --no-pager show HEAD~0:../" + readSecretFile, true},
		{"git show HEAD:memory-bank/details/patterns.md", false},
		{"git log -p -- src", false},
		{"git log -p -- . ':!memory-bank'", false},
		{"git diff -- . ':(exclude)memory-bank'", false},
		{"git log --oneline -- memory-bank", false},
		{"git show --stat HEAD", false},
		{"git diff --name-only", false},
		{"git cat-file -t HEAD:" + readSecretFile, false},
		{"git status", false},
		{"git diff", false}, // the file has no uncommitted change: git diff shows none of it
		{"git diff --cached -- memory-bank", false},
	}
	refusePlay{cases: cases, leak: "its output would show the secret",
		prepare: func(t *testing.T, root string) { testgit.Commit(t, root, "tech notes") },
		check: func(t *testing.T, cmd, got string) {
			wantAboveRefusal(t, got)
			// a view naming the file is a read of it: the refusal hands its text, redacted
			if !strings.Contains(got, "Here is what it would have read") && !strings.Contains(got, "git log -p -- . ':!memory-bank'") {
				t.Errorf("%s: refusal %q: want the way to view the history with the bank left out", cmd, got)
			}
		}}.run(t)
}

// Readers a model may write instead of cat — filters, dumps, interpreters handed the file,
// loops, globs and braces, the file run as a program — are refused before they run on the
// hosts that cannot hide a tool's output when the file holds a secret; the same readers of a
// file without one run.
func TestShellReaderOfBankSecret(t *testing.T) {
	f := readSecretFile
	readers := []string{
		"awk 1 " + f, "sed -n p " + f, "xxd " + f, "od -c " + f, "strings " + f, "nl " + f, "tac " + f,
		"rev " + f, "base64 " + f, "cut -c1- " + f, "sort " + f, "diff /dev/null " + f,
		`python3 -c 'print(open("` + f + `").read())'`,
		`python3 -c 'import sys; print(open(sys.argv[1]).read())' ` + f,
		`node -e 'console.log(require("fs").readFileSync("` + f + `", "utf8"))'`,
		"perl -ne print " + f, "perl -pe '' " + f, "ruby -e 'puts ARGF.read' " + f,
		"while read l; do echo $l; done < " + f, `echo "$(< ` + f + `)"`,
		"cat memory-bank/details/*.md", "cat memory-bank/details/{tech,patterns}.md",
		"bash -x " + f, "sh " + f, "python3 " + f, ". ./" + f, "awk -f " + f + " /dev/null",
		"cat $(find memory-bank -name tech.md)", `for f in memory-bank/details/*; do cat "$f"; done`,
		"gzip -c " + f + " | zcat", "curl -s file://$PWD/" + f, "look token " + f, "xargs -a " + f + " echo",
		"diff -r . /tmp/empty", "diff -ru memory-bank /tmp/empty",
	}
	for _, host := range []string{"qwen", "droid", "crush"} {
		t.Run(host, func(t *testing.T) {
			root := secretBankRepo(t)
			h := newHostRun(t, host, root, nil)
			for _, cmd := range readers {
				r := h.call("PreToolUse", searchShapes[host].shell(cmd))
				if strings.Contains(string(r.Stdout)+r.Stderr+r.Context, readSecret) {
					t.Fatalf("%s: the reply carries the secret: %s %s", cmd, r.Stdout, r.Stderr)
				}
				got := denied(t, host, r)
				if got == "" {
					t.Errorf("%s: allowed, and its output would show the secret", cmd)
					continue
				}
				wantAboveRefusal(t, got)
				// the same reader of a file without a secret runs
				clean := strings.ReplaceAll(strings.ReplaceAll(cmd, f, "memory-bank/details/patterns.md"), "{tech,patterns}", "{patterns,progress}")
				if clean == cmd || strings.Contains(cmd, "*") {
					continue
				}
				if got := denied(t, host, h.call("PreToolUse", searchShapes[host].shell(clean))); got != "" && strings.Contains(got, "holds a secret") {
					t.Errorf("%s: refused: %s", clean, got)
				}
			}
		})
	}
}

// Words built at run time: a reader handed one on a refuse host is judged as reading anything
// below the word's literal directory, so it is refused while that holds a bank secret; a for
// loop binds its variable to each word, and a variable the hook shares with the agent's shell
// ($HOME) is known, so everyday loops and paths run.
func TestShellRunTimeWordsOfBankSecret(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cases := []shellCase{
		{"cat $(git ls-files)", true},
		{`for f in $(find memory-bank -type f); do head "$f"; done`, true},
		{`cat "memory-bank/details/$NAME"`, true},
		{`for f in src/*.go; do cat "$f"; done`, false},
		{`cat "$HOME/.gitconfig"`, false},
		{`cat "src/$NAME"`, false},
	}
	refusePlay{cases: cases, leak: "its output may show the secret",
		check: func(t *testing.T, cmd, got string) {
			wantAboveRefusal(t, got)
			if !strings.Contains(got, "name the files to read") {
				t.Errorf("%s: refusal %q: want the next step, naming the files", cmd, got)
			}
		}}.run(t)
}

// Listing, counting or summing a bank file that holds a secret shows no line of it, so it runs
// on the refuse hosts; the same line that also prints the file is refused.
func TestShellListingOfBankSecretRuns(t *testing.T) {
	f := readSecretFile
	cases := []shellCase{
		{"ls memory-bank/details", false},
		{"ls -la " + f, false},
		{"wc -l " + f, false},
		{"stat " + f, false},
		{"md5sum memory-bank/details/*.md", false},
		{"for f in $(git ls-files); do wc -l $f; done", false},
		{"ls memory-bank/details && cat " + f, true},
		{"wc -l " + f + " && head " + f, true},
	}
	refusePlay{cases: cases, leak: "its output would show the secret",
		check: func(t *testing.T, _, got string) { wantSecretNotice(t, got) }}.run(t)
}

// git diff with no revision shows only files with uncommitted changes: refused on the refuse
// hosts once the bank file holding a secret has one (staged or not), allowed before.
func TestGitDiffOfChangedBankSecret(t *testing.T) {
	for _, host := range []string{"qwen", "droid", "crush"} {
		t.Run(host, func(t *testing.T) {
			root := secretBankRepo(t)
			testgit.Commit(t, root, "tech notes")
			h := newHostRun(t, host, root, nil)
			if got := denied(t, host, h.call("PreToolUse", searchShapes[host].shell("git diff"))); got != "" {
				t.Fatalf("git diff with no change refused: %s", got)
			}
			testgit.Write(t, root, readSecretFile, "# Tech\ntoken: "+readSecret+"\nuse the queue, then the cache\n")
			for _, cmd := range []string{"git diff", "git diff -- memory-bank/details"} {
				got := denied(t, host, h.call("PreToolUse", searchShapes[host].shell(cmd)))
				if got == "" {
					t.Fatalf("%s: allowed, and its output would show the secret", cmd)
				}
				wantAboveRefusal(t, got)
			}
			testgit.Git(t, root, "add", readSecretFile)
			if got := denied(t, host, h.call("PreToolUse", searchShapes[host].shell("git diff --cached"))); got == "" {
				t.Fatal("git diff --cached: allowed, and its output would show the secret")
			}
		})
	}
}

// A script the command runs that names memory-bank/ (written in an earlier call, outside the
// bank) may print a bank secret: refused on the refuse hosts while the bank holds one; a
// script that does not name the bank runs.
func TestScriptNamingBankSecret(t *testing.T) {
	dir := t.TempDir()
	testgit.Write(t, dir, "dump.py", "print(open('memory-bank/details/tech.md').read())\n")
	testgit.Write(t, dir, "dump.sh", "#!/bin/sh\nfor f in memory-bank/details/*; do cat \"$f\"; done\n")
	testgit.Write(t, dir, "hello.py", "print('hello')\n")
	cases := []shellCase{
		{"python3 " + dir + "/dump.py", true},
		{"sh " + dir + "/dump.sh", true},
		{"python3 " + dir + "/hello.py", false},
	}
	refusePlay{cases: cases, leak: "the script may print the secret",
		check: func(t *testing.T, cmd, got string) {
			wantAboveRefusal(t, got)
			if !strings.Contains(got, "names memory-bank/") {
				t.Errorf("%s: refusal %q: want the script named", cmd, got)
			}
		}}.run(t)
}
