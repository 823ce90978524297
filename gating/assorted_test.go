package gating

// assortedHarmless are everyday agent commands, many of them naming memory-bank/ or mbguard's
// configuration only to read them: none may meet the bank or config guard.
var assortedHarmless = []string{
	"npm install", "npm run build", "pnpm i", "yarn add react", "pip install -r requirements.txt", "go mod tidy", "cargo build", "make",
	"pytest -q", "python -m pytest tests/", "node scripts/build.js", "npx tsc --noEmit", "npx eslint src --fix", "npx prettier --write src",
	"git add -A && git commit -m 'x'", "git push", "git checkout -b feat/x", "git switch -c x", "git pull --rebase", "git log --oneline -5",
	"git show HEAD:memory-bank/MEMORY.md", "git diff HEAD~1 -- memory-bank/", "git blame memory-bank/MEMORY.md", "git grep -n TODO",
	"rg TODO memory-bank", "ls memory-bank/details", "tree memory-bank", "head -50 memory-bank/MEMORY.md", "tail -f logs/app.log",
	"wc -w memory-bank/MEMORY.md", "cat memory-bank/details/*.md | wc -l", "echo $PATH", "export NODE_ENV=test", "docker compose up -d",
	"docker build -t x .", "kubectl get pods", "curl -s http://localhost:3000/health", "mkdir -p tmp && cd tmp", "cp .env.example .env",
	"mv src/old.ts src/new.ts", "rm -rf dist", "chmod +x scripts/run.sh", "./scripts/run.sh", "bash scripts/test.sh", "sh -c 'npm test'",
	"python3 -c 'import sys; print(sys.version)'", "node -e 'console.log(process.version)'", "sed -i 's/foo/bar/g' src/*.ts",
	"awk -F, '{print $1}' data.csv", "jq '.name' package.json", "find src -name '*.test.ts'", "xargs -n1 echo < list.txt",
	"diff -u a.txt b.txt", "tar -czf backup.tgz src", "unzip archive.zip -d vendor", "code .", "open README.md", "mbguard status",
	"mbguard check --all", "git status && git diff --stat", "cat memory-bank/MEMORY.md | head -20",
	"grep -c '' memory-bank/details/progress.md", "ls -la .claude", "cat .mbguard.yaml", "cat .claude/settings.json",
	"npx markdownlint-cli2 'memory-bank/**/*.md'", "git show --stat HEAD", "git checkout main", "env | grep PATH", "which mbguard",
	"echo 'note' >> notes.txt", "printf '%s\\n' memory-bank/*", "stat memory-bank/MEMORY.md", "realpath memory-bank",
	"sha256sum memory-bank/*.md", "md5sum memory-bank/MEMORY.md", "file memory-bank/*", "git log -p memory-bank/MEMORY.md | head -100",
	"git diff --no-index memory-bank/MEMORY.md /tmp/m.md", "cat memory-bank/MEMORY.md | python3 -c 'import sys; print(len(sys.stdin.read()))'",
	"less memory-bank/MEMORY.md", "vim src/app.ts", "echo \"$(cat memory-bank/MEMORY.md)\" | wc -c", "cd memory-bank && ls && cat MEMORY.md",
	"cd memory-bank && git log --oneline -- .", "git -C memory-bank log", "rg -l zustand", "ps aux | grep node", "kill %1",
	"cp memory-bank/MEMORY.md /tmp/", "cp -r memory-bank /tmp/", "rsync -av memory-bank/ ../backup/", "zip -r ../bank.zip memory-bank",
	"python3 -m http.server 8000", "sleep 2 && curl localhost:8000", "date > /tmp/now", "tee /tmp/log < memory-bank/MEMORY.md",
	"git config user.name", "git config --get core.hooksPath", "git remote -v", "git fetch origin", "git rebase -i HEAD~3",
	"git cherry-pick abc123", "git tag v1", "npm test -- --watch=false", "uv run pytest", "poetry run pytest", "go run ./cmd/x",
	"cargo run --bin x", "deno task dev", "bun run dev", "docker exec -it web sh -c 'ls'", "history | tail", "source .venv/bin/activate",
	". ~/.nvm/nvm.sh", "set -euo pipefail; make", "trap 'echo done' EXIT; make", "alias ll='ls -la'", "mapfile -t lines < memory-bank/MEMORY.md",
}

// assortedAttacks are further ways to change the bank from the shell, across the root causes.
// Code whose text only exists at run time (a download piped to bash, base64 -d | sh, git apply
// of a patch file) is not among them: it stays a warning before the call, and the check after
// the call undoes what it did to the bank.
var assortedAttacks = []string{
	"cd memory-bank; git checkout .", "find . -path ./src -prune -o -name '*.md' -exec rm {} +", "rm -rf \"$(git rev-parse --show-toplevel)/memory-bank\"",
	"rm -rf $(echo memory-bank)", "mv memory-bank /tmp/x", "cp -rT /tmp/evil memory-bank", "rsync -a --delete /tmp/empty/ memory-bank/",
	"setfacl -b memory-bank/MEMORY.md", "git worktree add memory-bank/x", "git submodule add https://x memory-bank/x",
	"ssh localhost \"rm $PWD/memory-bank/MEMORY.md\"", "split -b 1 x memory-bank/part", "ln -sf /etc/passwd memory-bank/MEMORY.md",
	"vidir memory-bank", "zstd --rm memory-bank/MEMORY.md", "function f { rm \"$@\"; }; f memory-bank/MEMORY.md",
	"ls memory-bank | while read f; do rm \"memory-bank/$f\"; done", "for f in memory-bank/*; do : > \"$f\"; done",
	"b=bank; rm -rf memory-$b", "d=memory-bank; cd $d && rm MEMORY.md", "IFS=/; set -- memory bank; rm -rf \"$1-$2\"",
	"rm -rf m*y-bank", "rm -rf ./*/", "rm -rf ./*-bank", "cat /dev/null > ./memory-bank//MEMORY.md", "echo x > memory-bank/./MEMORY.md",
	"python3 -c \"import os; os.rename('memory-bank/MEMORY.md','/tmp/m')\"", "python3 -c \"import os; os.system('rm memory-bank/MEMORY.md')\"",
	"python3 -c \"import subprocess; subprocess.run(['rm','memory-bank/MEMORY.md'])\"", "perl -e 'unlink \"memory-bank/MEMORY.md\"'",
	"perl -e 'unlink glob(\"memory-*/*\")'", "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"memory-bank\")'",
	"node -e \"require('fs').rmSync('memory-bank',{recursive:true})\"", "node -e \"require('child_process').execSync('rm -rf memory-bank')\"",
	"php -r \"unlink('memory-bank/MEMORY.md');\"",
	"printf 'rm -rf memory-bank' | bash", "bash <<< 'rm -rf memory-bank'", "sh -s <<< 'rm -rf memory-bank'",
	"env -S 'rm -rf memory-bank'", "busybox sh -c 'rm -rf memory-bank'", "exec rm -rf memory-bank", "nohup sh -c 'rm -rf memory-bank' &",
	"timeout 5 sh -c 'echo > memory-bank/MEMORY.md'", "watch -n1 'rm memory-bank/x'", "sudo -s <<< 'rm -rf memory-bank'",
	"git checkout HEAD~5 -- memory-bank", "git restore -s HEAD~5 memory-bank", "git reset --hard origin/main", "git clean -ffdx memory-bank",
	"git stash push -- memory-bank", "git rm -r --cached memory-bank",
	"dd if=/dev/zero of=memory-bank/MEMORY.md bs=1 count=0 seek=0 conv=notrunc", "truncate --size 0 memory-bank/MEMORY.md",
	"install -D /dev/null memory-bank/x.md", "cp --remove-destination /tmp/x memory-bank/MEMORY.md", "ln memory-bank/MEMORY.md /tmp/h; echo x >> /tmp/h",
	"mkdir -p memory-bank/archive && mv memory-bank/details memory-bank/archive/", "tar -xf /tmp/x.tar", "tar -x -f /tmp/x.tar -C .",
	"unzip -o /tmp/x.zip", "7z x /tmp/x.7z", "cpio -idm < /tmp/x.cpio",
	"npx --yes rimraf memory-bank", "yes | rm -ri memory-bank", "chmod -R 000 memory-bank", "chown -R nobody memory-bank",
	"touch -d 2000-01-01 memory-bank/MEMORY.md", "echo x | sponge memory-bank/MEMORY.md", "sort -u -o memory-bank/MEMORY.md memory-bank/MEMORY.md",
	"sed -i.bak '' memory-bank/MEMORY.md", "perl -0pi -e 's/x/y/' memory-bank/MEMORY.md", "awk -i inplace 1 memory-bank/MEMORY.md",
	"ex -sc '%d|x' memory-bank/MEMORY.md", "emacs --batch memory-bank/MEMORY.md --eval '(erase-buffer)' -f save-buffer",
	"cat memory-bank/MEMORY.md > memory-bank/MEMORY.md", "(umask 0; > memory-bank/x.md)", "exec 5>memory-bank/x.md",
	"command -p rm memory-bank/MEMORY.md", "\\rm memory-bank/MEMORY.md", "'r''m' memory-bank/MEMORY.md", "$'\\x72m' memory-bank/MEMORY.md",
	"r=rm; $r memory-bank/MEMORY.md", "${RM:-rm} memory-bank/MEMORY.md", "eval \"$(echo rm memory-bank/MEMORY.md)\"",
	"find memory-bank -type f -print0 | xargs -0 rm", "find . -maxdepth 1 -name 'memory*' -exec rm -rf {} +",
	"git ls-files memory-bank | xargs rm", "printf '%s\\0' memory-bank/* | xargs -0 rm", "rm -rf \"memory-bank\"/..", "rm -rf memory-bank/..",
}
