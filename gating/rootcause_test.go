package gating

import (
	"strings"
	"testing"
)

// rootCauseAttacks are shell commands that change memory-bank/ (or mbguard's own
// configuration), grouped by the root cause of issue 8 §3 that used to let them through.
// Each must be refused before it runs, in every mode.
var rootCauseAttacks = map[string][]string{
	"git pathspec magic and globs": {
		"git checkout -- ':/'",
		"git checkout -- '*.md'",
		"git restore ':/*.md'",
		"git restore -- ':(glob)**/*.md'",
		"git checkout HEAD -- 'memory-ban?'",
		"git rm -r ':/memory-bank'",
	},
	"git whole-tree commands": {
		"git reset --hard",
		"git reset --hard HEAD~1",
		"git clean -fdx",
		"git stash",
		"git stash -u",
		"git stash pop",
		"git checkout -f main",
		"git read-tree -u --reset HEAD",
		"git checkout-index -a -f",
		"git --work-tree=memory-bank checkout HEAD -- .",
	},
	"git running code": {
		"git -c alias.x='!rm -rf memory-bank' x",
		"git -c core.editor='rm -rf memory-bank' commit",
		`GIT_EDITOR='sh -c "echo x > memory-bank/MEMORY.md"' git commit --amend`,
		"git -c core.pager='tee memory-bank/MEMORY.md' log",
	},
	"git options that write files": {
		"git config -f memory-bank/x.json a.b c",
		"git bundle create memory-bank/x.bundle HEAD",
		"git format-patch -o memory-bank HEAD~1",
	},
	"wrappers that run their arguments": {
		"flock /tmp/l rm memory-bank/MEMORY.md",
		"flock -c 'rm memory-bank/MEMORY.md' /tmp/l",
		"taskset -c 0 rm memory-bank/MEMORY.md",
		"strace -f -o /dev/null rm memory-bank/MEMORY.md",
		"script -qc 'rm memory-bank/MEMORY.md' /dev/null",
		"parallel rm ::: memory-bank/MEMORY.md",
		"su -c 'rm memory-bank/MEMORY.md' me",
		"runuser -u me -- rm memory-bank/MEMORY.md",
		"chroot / rm /repo/memory-bank/MEMORY.md",
		"hyperfine --runs 1 'rm memory-bank/MEMORY.md'",
		"uv run rm memory-bank/MEMORY.md",
		"npx rimraf memory-bank",
		"fd . memory-bank -x rm",
		"docker run --rm -v $PWD/memory-bank:/x alpine rm /x/MEMORY.md",
		"rename 's/md/txt/' memory-bank/*.md",
		"make -C memory-bank clean",
		"find . -name memory-bank -exec rm -rf {} +",
		"find . -name MEMORY.md -delete",
	},
	"writers with an output option": {
		"pandoc README.md -o memory-bank/x.html",
		"sqlite3 /tmp/db '.output memory-bank/x.json' 'select 1'",
		"sqlite3 /tmp/db \".once memory-bank/x.csv\" 'select 1'",
		"python3 -m zipfile -c memory-bank/x.zip src",
		"python3 -m tarfile -c memory-bank/x.tar src",
		"fallocate -l 1M memory-bank/x.bin",
		"gcc -o memory-bank/x a.c",
		"openssl enc -in a -out memory-bank/x.bin",
		"convert a.png memory-bank/x.png",
		"prettier --write memory-bank/MEMORY.md",
		"markdownlint --fix memory-bank",
	},
	"archivers that delete their sources": {
		"tar --remove-files -czf /tmp/b.tgz memory-bank",
		"zip -m /tmp/b.zip memory-bank/MEMORY.md",
		"7z a -sdel /tmp/b.7z memory-bank",
	},
	"readers that write with an option": {
		"iconv -f utf-8 -t ascii -o memory-bank/MEMORY.md README.md",
		"xmllint --output memory-bank/x.xml a.xml",
		"base64 -o memory-bank/x.b64 a.bin",
	},
	"code without bash -c": {
		"trap 'rm memory-bank/MEMORY.md' EXIT",
		"source <(echo 'rm memory-bank/MEMORY.md')",
		". /dev/stdin <<< 'rm memory-bank/MEMORY.md'",
		`python3 <<< "open('memory-bank/x.json','w')"`,
		"python3 /dev/stdin <<'EOF'\nimport os; os.remove('memory-bank/MEMORY.md')\nEOF",
		`python3 <(echo "import os; os.remove('memory-bank/MEMORY.md')")`,
		"mapfile -C 'rm memory-bank/MEMORY.md #' -c 1 < /etc/hosts",
		"echo 'rm memory-bank/MEMORY.md' > /tmp/e.sh; BASH_ENV=/tmp/e.sh bash -c true",
		"shopt -s expand_aliases; alias ls='rm memory-bank/MEMORY.md'; ls",
	},
	"awk and sed writing": {
		`awk '{print > FILENAME}' memory-bank/MEMORY.md`,
		`awk 'BEGIN{f="memory-bank/x.json"; print 1 > f}'`,
		`awk 'BEGIN{print "rm memory-bank/MEMORY.md" | "sh"}'`,
		"sed -n 'w memory-bank/x.json' src/app.ts",
		"sed 's/a/b/w memory-bank/x.json' src/app.ts",
		"sed '1e rm memory-bank/MEMORY.md' src/app.ts",
	},
	"editors with commands": {
		"vim -c 'w! memory-bank/x.json' -c q src/app.ts",
		"ex -s src/app.ts <<< 'w memory-bank/x.json'",
		"nvim --headless +'w memory-bank/x.json' +q src/app.ts",
		"ed -s src/app.ts <<< $'w memory-bank/x.json\\nq'",
	},
	"words that spell the bank": {
		`rm $'memory-ban\x6b/MEMORY.md'`,
		"rm memory-{bank,x}/MEMORY.md",
		"rm memory-ban?/MEMORY.md",
		"rm memory-ban{k..k}/MEMORY.md",
		"shopt -s nocaseglob; rm MEMORY-BANK/*.md",
		"export CDPATH=/repo/memory-bank; cd details && rm tech.md",
		"x=memory; rm -rf ${x}-bank",
		`x=memory-bank; rm -rf "$x"`,
		"exec 3<memory-bank/MEMORY.md; cp /tmp/x /dev/fd/3",
		"exec 3<>memory-bank/MEMORY.md; echo x >/proc/self/fd/3",
		"ln -s memory-bank x; rm x/MEMORY.md",
		"ln -s memory-bank/MEMORY.md m; echo x > m",
	},
	"inline interpreter code": {
		`python3 -c "import os; fd=os.open('memory-bank/MEMORY.md', os.O_TRUNC|os.O_WRONLY)"`,
		`node -e "require('fs').openSync('memory-bank/MEMORY.md','w')"`,
		`node -e "require('fs').linkSync('src/app.ts','memory-bank/a.ts')"`,
		`perl -e 'open(my $f, "+>", "memory-bank/MEMORY.md")'`,
		`python3 -c "open('memory-' + 'bank/x.json','w')"`,
		`python3 -c "open('memory-ban\x6b/x.json','w')"`,
		`node -e "require('fs').writeFileSync(['memory','bank'].join('-')+'/x.json','x')"`,
		`ruby -e 'IO.write("memory-bank/MEMORY.md", "")'`,
	},
	"assorted": assortedAttacks,
	"mbguard's own configuration": {
		"echo 'gating: {mode: off}' > .mbguard.yaml",
		"sed -i 's/mbguard hook/true/' .claude/settings.json",
		"rm -f .opencode/plugin/mbguard.js",
		"rm .git/hooks/pre-commit",
		"cp /dev/null .git/mbguard/state.json",
	},
}

// harmlessCommands must never meet the bank or config guard.
var harmlessShell = []string{
	"cat memory-bank/MEMORY.md",
	"git log -- memory-bank",
	"git log --oneline -- memory-bank > \"$(mktemp)\"",
	"git diff --stat memory-bank",
	"rsync -a memory-bank/ /tmp/x/",
	"cp -r memory-bank /tmp/bank-copy",
	"cp memory-bank/MEMORY.md ~/backup.md",
	"tar -czf /tmp/bank.tgz memory-bank",
	"tar -xzf /tmp/bank.tgz -C /tmp/restore",
	"unzip -d /tmp/x bank.zip",
	"zip -r /tmp/bank.zip memory-bank",
	"cat memory-bank/MEMORY.md > /tmp/m.md",
	"for f in memory-bank/*.md; do cp \"$f\" /tmp/; done",
	"for f in memory-bank/*.md; do cp \"$f\" /; done", // / holds the repository: one entry there is not the bank
	"grep -rn zustand memory-bank | head",
	"wc -l memory-bank/details/*.md",
	"find memory-bank -name '*.md' | sort",
	"git status --short",
	"git restore --staged memory-bank/MEMORY.md",
	"git stash list",
	"git clean -n",
	"git checkout -- src/",
	"git stash push -- src/",
	"git clean -fd -- src/",
	"git -c color.ui=always log -1",
	"vim +10 src/app.ts",
	"sed -n '1,20p' memory-bank/MEMORY.md",
	"awk '$1 > 5 {print $2}' memory-bank/details/progress.md",
	"python3 -c \"print(open('memory-bank/MEMORY.md').read())\"",
	"mbguard check memory-bank",
	"make test > /tmp/test.log 2>&1",
	"npm test",
	"go test ./...",
	"ls -la memory-bank && cat memory-bank/MEMORY.md",
	"echo done > build/out.txt",
	"diff <(cat memory-bank/MEMORY.md) /tmp/m.md",
	"rm -rf build/ dist/",
	"prettier --check memory-bank/MEMORY.md",
	"markdownlint memory-bank",
	"shopt -s nocaseglob; ls MEMORY-BANK/*.md",
	"gh pr create --body-file memory-bank/details/progress.md",
	"fd md memory-bank",
	"du -sh memory-bank",
	"find . -type d -name __pycache__ -exec rm -rf {} +",
	"find . -name node_modules -type d -prune -exec rm -rf {} +",
	"openssl dgst -sha256 memory-bank/MEMORY.md",
	"cspell memory-bank/**/*.md",
	"pandoc memory-bank/MEMORY.md -o /tmp/m.html",
	"bat memory-bank/MEMORY.md",
	"jq . memory-bank/details/x.json",
	"git add memory-bank && git commit -m 'update memory-bank'",
}

func TestRootCauses(t *testing.T) {
	for cause, cmds := range rootCauseAttacks {
		for _, cmd := range cmds {
			for _, mode := range []Mode{ModeOff, ModeWarn, ModeBlock} {
				t.Run(cause+"/"+cmd+"/"+string(mode), func(t *testing.T) {
					s := newSession(t, policyWith(mode, mode, mode), newFacts(bankFiles()), "claude")
					d := s.before("Bash", map[string]any{"command": cmd})
					if d.Verdict != Block || d.Gate != GateBank && d.Gate != GateConfig {
						t.Fatalf("decision = %s/%s (%q), want a bank or config block", d.Verdict, d.Gate, d.Message)
					}
					wantMsg(t, d, "Next:")
				})
			}
		}
	}
	for _, cmd := range append(append(harmlessShell, assortedHarmless...), everydayHarmless...) {
		t.Run("harmless/"+cmd, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "claude")
			d := s.before("Bash", map[string]any{"command": cmd})
			if d.Verdict != Allow || d.Gate == GateBank || d.Gate == GateConfig {
				t.Fatalf("harmless command refused: %s/%s (%q)", d.Verdict, d.Gate, d.Message)
			}
		})
	}
}

// TestRootCauseCount is the red-team figure the README quotes: how many attacks are refused
// before they run.
func TestRootCauseCount(t *testing.T) {
	total, refused := 0, 0
	for _, cmds := range rootCauseAttacks {
		for _, cmd := range cmds {
			total++
			s := newSession(t, policyWith(ModeWarn, ModeWarn, ModeWarn), newFacts(bankFiles()), "claude")
			if d := s.before("Bash", map[string]any{"command": cmd}); d.Verdict == Block {
				refused++
			}
		}
	}
	t.Logf("%d of %d root-cause attacks refused before they run", refused, total)
	_ = strings.TrimSpace
}
