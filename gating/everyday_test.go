package gating

import "testing"

// everydayHarmless are issue 20's everyday commands — builds, tests, formatters, package
// managers and scripts that read the bank — none of which may meet the bank or config
// guard, in any mode. They are replayed by bench/redteam through the built binary too.
var everydayHarmless = []string{
	// formatters and fixers that cannot write Markdown, on the whole tree
	"gofmt -w .", "gofmt -l .", "goimports -w .", "go fmt ./...", "go vet ./...", "black .", "black --check .",
	"ruff format .", "ruff check --fix .", "ruff check .", "isort .", "autopep8 -i -r src", "rustfmt src/main.rs",
	"cargo fmt", "cargo fmt --check", "clang-format -i src/*.c", "shfmt -w scripts", "eslint --fix .", "npx eslint --fix .",
	"stylua .", "yamlfmt .", "taplo fmt", "uv run ruff format .", "poetry run black .", "pnpm exec eslint --fix src",
	// Markdown-capable formatters pointed away from the bank
	"prettier --write src", "prettier --write . '!memory-bank/**'", "npx prettier --check .", "markdownlint --fix docs",
	"markdownlint --fix . --ignore memory-bank", "markdownlint-cli2 --fix 'docs/**/*.md'", "mdformat README.md docs",
	"dprint fmt --excludes memory-bank", "prettier --write README.md CHANGELOG.md",
	// package managers (the read gate judges them; the bank guard never does)
	"npm install lodash", "npm i -D vitest", "npm ci", "npm uninstall left-pad", "npm update", "npm --prefix web install",
	"pnpm add zod", "pnpm install --frozen-lockfile", "yarn add react", "yarn", "yarn remove moment", "bun add hono", "bun install",
	"go get example.com/x@v2", "go mod tidy", "go mod download", "go mod edit -go=1.22", "go work sync", "go -C tools mod tidy",
	"cargo add serde", "cargo update", "cargo add --manifest-path crates/a/Cargo.toml tokio", "poetry add requests",
	"poetry lock", "uv add httpx", "uv sync", "uv lock --check", "uv pip install -r requirements.txt", "pdm add flask",
	"pipenv install flask", "pip install -e .", "pip install -r requirements.txt", "bundle add rails", "bundle install",
	"composer require monolog/monolog", "composer install", "dotnet add package Serilog", "./gradlew dependencies --write-locks",
	"mvn versions:use-latest-versions", "npm version patch --no-git-tag-version",
	// builds and tests
	"go build ./...", "go test -count=1 ./...", "go test -run TestX ./pkg/", "cargo build --release", "cargo test", "cargo clippy",
	"npm run build", "npm test", "pnpm test", "yarn build", "bun test", "make", "make test", "make -C build all",
	"pytest -q", "python -m pytest tests/", "tox -e py312", "nox -s tests", "mvn -q test", "./gradlew build", "dotnet build",
	"dotnet test", "tsc --noEmit", "npx tsc -p .", "vite build", "next build", "docker build -t app .", "cmake -B build && cmake --build build",
	// scripts and interpreters that read the bank
	`python3 -c 'print(pathlib.Path("memory-bank/MEMORY.md").read_text())'`,
	`python3 -c 'import pathlib; print(len(pathlib.Path("memory-bank/details/progress.md").read_text()))'`,
	`python3 -c 'import pathlib; print([p.name for p in pathlib.Path("memory-bank").glob("**/*.md")])'`,
	`python3 -c 'import os; print(os.listdir("memory-bank/details"))'`,
	`python3 -c 'import os; print(os.path.getsize("memory-bank/MEMORY.md"))'`,
	`python3 -c "import subprocess; subprocess.run(['git','log','--','memory-bank'])"`,
	`python3 -c "import subprocess; print(subprocess.check_output(['git','diff','--stat','--','memory-bank']).decode())"`,
	`node -e 'console.log(require("fs").readFileSync("memory-bank/MEMORY.md","utf8").length)'`,
	`node -e 'console.log(require("fs").readdirSync("memory-bank"))'`,
	`cp memory-bank/MEMORY.md "$TMPDIR/mem.md"`, `cp -r memory-bank "$TMPDIR/bank-copy"`, `cat memory-bank/MEMORY.md > /tmp/copy.md`,
	`diff memory-bank/MEMORY.md "$TMPDIR/mem.md"`, `tar -czf "$TMPDIR/bank.tgz" memory-bank`, `rsync -a memory-bank/ /tmp/bank-backup/`,
	"wc -l memory-bank/**/*.md", "grep -rn TODO memory-bank src", "rg -l 'Current Focus' memory-bank",
	"git log -p -- memory-bank/details/progress.md | head -50", "git diff HEAD -- memory-bank", "git stash list",
	"less memory-bank/MEMORY.md", "bat memory-bank/details/patterns.md", "jq . package.json", "sort -u memory-bank/details/tech.md | head",
	// one of each registry family, as agents run them day to day
	"tar -czf dist/app.tgz build", "tar -tzf dist/app.tgz | head", "unzip -l dist/app.zip", "zip -r dist/src.zip src",
	"gzip -k logs/app.log", "curl -fsSL https://example.com/api | jq .", "curl -o dist/schema.json https://example.com/schema.json",
	"wget -q -O dist/data.csv https://example.com/data.csv", "rsync -a src/ /tmp/src-backup/", "scp build/app host:/srv/app",
	"sed -n '1,40p' memory-bank/MEMORY.md", "awk '/^## /' memory-bank/details/progress.md", "sed -i 's/foo/bar/' src/app.go",
	"yq '.version' config.yaml", "sqlite3 dist/app.db 'select 1'", "patch -p1 --dry-run < fix.diff", "mktemp -d",
	"nohup go test ./... > /tmp/test.log 2>&1 &", "timeout 60 go test ./...", "env GOOS=linux go build -o dist/app .",
	"find src -name '*.go' | xargs wc -l", "fd -e md . memory-bank", "tree -L 2 memory-bank", "cp -r src /tmp/src-copy",
}

// TestEverydayHarmless: in every mode, none of everydayHarmless meets the bank or config guard.
func TestEverydayHarmless(t *testing.T) {
	if len(everydayHarmless) < 100 {
		t.Fatalf("%d everyday commands; the corpus promises at least 100", len(everydayHarmless))
	}
	for _, mode := range []Mode{ModeOff, ModeWarn, ModeBlock} {
		for _, cmd := range everydayHarmless {
			s := newSession(t, policyWith(mode, mode, mode), newFacts(bankFiles()), "claude")
			d := s.before("Bash", map[string]any{"command": cmd})
			if d.Verdict == Block && (d.Gate == GateBank || d.Gate == GateConfig) {
				t.Errorf("%s mode: %q refused: %s", mode, cmd, d.Message)
			}
			if mode == ModeWarn && d.Verdict == Block {
				t.Errorf("warn mode: %q refused by %s: %s", cmd, d.Gate, d.Message)
			}
		}
	}
}
