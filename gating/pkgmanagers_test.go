package gating

import (
	"strings"
	"testing"
)

// pkgCommands are package-manager runs that rewrite a manifest or lockfile, with a file
// each must be judged to write.
var pkgCommands = []struct{ cmd, file string }{
	{"npm install lodash", "package.json"},
	{"npm i -D vitest", "package-lock.json"},
	{"npm uninstall left-pad", "package.json"},
	{"npm update", "package-lock.json"},
	{"npm --prefix web install react", "web/package.json"},
	{"yarn add react", "yarn.lock"},
	{"yarn", "yarn.lock"},
	{"pnpm add x", "pnpm-lock.yaml"},
	{"pnpm -C app remove x", "app/package.json"},
	{"bun add zod", "package.json"},
	{"go get example.com/x@v2", "go.mod"},
	{"go mod tidy", "go.sum"},
	{"go -C tools mod tidy", "tools/go.mod"},
	{"go mod edit -require=example.com/x@v1.0.0", "go.mod"},
	{"go work use ./sub", "go.work"},
	{"cargo add serde", "Cargo.toml"},
	{"cargo update", "Cargo.lock"},
	{"cargo add --manifest-path crates/a/Cargo.toml serde", "crates/a/Cargo.toml"},
	{"poetry add requests", "pyproject.toml"},
	{"poetry lock", "poetry.lock"},
	{"uv add httpx", "uv.lock"},
	{"uv --directory svc remove httpx", "svc/pyproject.toml"},
	{"pdm add flask", "pdm.lock"},
	{"pipenv install flask", "Pipfile"},
	{"bundle add rails", "Gemfile"},
	{"composer require monolog/monolog", "composer.json"},
	{"composer -d api update", "api/composer.lock"},
	{"dotnet add package Newtonsoft.Json", "packages.lock.json"},
	{"dotnet add src/App/App.csproj package Serilog", "src/App/App.csproj"},
	{"./gradlew dependencies --write-locks", "gradle.lockfile"},
	{"mvn versions:use-latest-versions", "pom.xml"},
	{"timeout 120 npm install lodash", "package.json"},
	{"cd web && npm install react", "web/package.json"},
}

// TestPackageManagersAreWrites: in block mode each is refused as a high-risk write before
// the bank is read and allowed after; it names the file it writes.
func TestPackageManagersAreWrites(t *testing.T) {
	for _, c := range pkgCommands {
		t.Run(c.cmd, func(t *testing.T) {
			s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), "claude")
			d := s.before("Bash", map[string]any{"command": c.cmd})
			if d.Verdict != Block || d.Gate != GateRead || d.Risk != RiskHigh {
				t.Fatalf("before reading: %s/%s %s (%q), want a high-risk read-gate block", d.Verdict, d.Gate, d.Risk, d.Message)
			}
			if !contains(d.Paths, c.file) {
				t.Errorf("paths %q lack %q", d.Paths, c.file)
			}
			s.read("memory-bank/details/patterns.md")
			if d := s.before("Bash", map[string]any{"command": c.cmd}); d.Verdict != Allow {
				t.Fatalf("after reading: %s/%s (%q), want allowed", d.Verdict, d.Gate, d.Message)
			}
		})
	}
}

// After a compaction the recovery gate holds a package-manager run until the anchors are
// read, like any other high-risk write.
func TestPackageManagersAfterCompaction(t *testing.T) {
	cmds := []string{"npm install lodash", "go mod tidy", "cargo add serde", "uv add httpx"}
	for _, r := range pkgRows {
		if !strings.HasSuffix(r.file, "/") {
			cmds = append(cmds, r.cmd) // every row that writes a manifest or lockfile
		}
	}
	for _, cmd := range cmds {
		s := newSession(t, policyWith(ModeOff, ModeBlock, ModeOff), newFacts(bankFiles()), "claude")
		s.compact()
		d := s.before("Bash", map[string]any{"command": cmd})
		if d.Verdict != Block || d.Gate != GateRecovery {
			t.Errorf("%q after compaction: %s/%s (%q), want a recovery block", cmd, d.Verdict, d.Gate, d.Message)
		}
	}
}

// Runs that only read, build or test, and subcommands not in the table, stay as they were.
func TestPackageManagersThatOnlyRead(t *testing.T) {
	for _, cmd := range []string{"npm test", "npm run build", "npm ls", "npm outdated", "npm view react version", "yarn build",
		"pnpm test", "go build ./...", "go test ./...", "go vet ./...", "go mod edit -json", "go mod tidy -diff", "go list -m all",
		"cargo build", "cargo test", "cargo tree", "poetry show", "poetry lock --check", "uv lock --check", "uv run pytest",
		"pip install requests", "pip list", "pip freeze", "bundle exec rspec", "composer show", "mvn test", "./gradlew build",
		"cargo add --dry-run serde", "npm --version", "go version"} {
		s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), "claude")
		if d := s.before("Bash", map[string]any{"command": cmd}); d.Verdict != Allow || d.Gate != "" {
			t.Errorf("%q: %s/%s (%q), want allowed", cmd, d.Verdict, d.Gate, d.Message)
		}
	}
}

// A package manager run inside the bank, or told to use it as its project, is a bank write.
func TestPackageManagersInTheBank(t *testing.T) {
	for _, cmd := range []string{"npm --prefix memory-bank install x", "cd memory-bank && go mod init x", "pip install -t memory-bank x",
		"cargo add --manifest-path memory-bank/Cargo.toml serde"} {
		s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "claude")
		d := s.before("Bash", map[string]any{"command": cmd})
		if d.Verdict != Block || d.Gate != GateBank || !strings.Contains(d.Message, "memory-bank") {
			t.Errorf("%q: %s/%s (%q), want a bank block", cmd, d.Verdict, d.Gate, d.Message)
		}
	}
}

// pkgRows are one command for each row of the package-manager table that pkgCommands does
// not already name, with a file (or directory, ending in /) the row says it writes. A row
// that writes only a dependency directory (node_modules/, .venv/, vendor/) is a
// medium-risk write: warned about, not refused, like any other write outside the
// sensitive list.
var pkgRows = []struct{ cmd, file string }{
	{"npm ci", "node_modules/"},
	{"npm dedupe", "package-lock.json"},
	{"npm audit fix", "package.json"},
	{"npm pkg set description=x", "package.json"},
	{"npm pkg delete scripts.x", "package.json"},
	{"npm init -y", "package.json"},
	{"pnpm install", "pnpm-lock.yaml"},
	{"pnpm update", "package.json"},
	{"pnpm dedupe", "pnpm-lock.yaml"},
	{"pnpm init", "package.json"},
	{"yarn install", "yarn.lock"},
	{"yarn remove moment", "package.json"},
	{"yarn up react", "package.json"},
	{"yarn dedupe", "yarn.lock"},
	{"yarn init -y", "package.json"},
	{"bun install", "bun.lock"},
	{"bun remove zod", "package.json"},
	{"bun update", "package.json"},
	{"bun init -y", "package.json"},
	{"pip install -t vendor requests", "vendor/"},
	{"uv remove httpx", "pyproject.toml"},
	{"uv lock", "uv.lock"},
	{"uv sync", "uv.lock"},
	{"uv pip install httpx", ".venv/"},
	{"uv pip uninstall httpx", ".venv/"},
	{"uv pip sync requirements.txt", ".venv/"},
	{"uv venv", ".venv/"},
	{"uv init", "pyproject.toml"},
	{"poetry remove requests", "pyproject.toml"},
	{"poetry update", "poetry.lock"},
	{"poetry install", "poetry.lock"},
	{"poetry version patch", "pyproject.toml"},
	{"poetry init -n", "pyproject.toml"},
	{"pdm remove flask", "pyproject.toml"},
	{"pdm lock", "pdm.lock"},
	{"pdm update", "pdm.lock"},
	{"pdm sync", "pdm.lock"},
	{"pdm init", "pyproject.toml"},
	{"pipenv uninstall flask", "Pipfile"},
	{"pipenv lock", "Pipfile.lock"},
	{"go mod download", "go.sum"},
	{"go mod vendor", "vendor/"},
	{"go mod init example.com/x", "go.mod"},
	{"go work init", "go.work"},
	{"go work edit -go=1.22", "go.work"},
	{"go work sync", "go.work"},
	{"go work vendor", "vendor/"},
	{"cargo remove serde", "Cargo.toml"},
	{"cargo generate-lockfile", "Cargo.lock"},
	{"cargo init", "Cargo.toml"},
	{"bundle remove rails", "Gemfile"},
	{"bundle install", "Gemfile.lock"},
	{"bundle init", "Gemfile"},
	{"composer install", "composer.lock"},
	{"composer init", "composer.json"},
	{"dotnet remove package Serilog", "packages.lock.json"},
	{"gradle dependencies --update-locks x:y", "gradle.lockfile"},
	{"mvn versions:set -DnewVersion=2.0", "pom.xml"},
}

// TestPackageManagerRowsBlockUntilRead: every row of the table, run in block mode, is refused
// as a high-risk write of its manifest or lockfile before the bank is read (warned about
// when it writes only a dependency directory) and allowed after.
func TestPackageManagerRowsBlockUntilRead(t *testing.T) {
	for _, c := range pkgRows {
		t.Run(c.cmd, func(t *testing.T) {
			s := newSession(t, policyWith(ModeBlock, ModeBlock, ModeOff), newFacts(bankFiles()), "claude")
			d := s.before("Bash", map[string]any{"command": c.cmd})
			verdict, risk := Block, RiskHigh
			if strings.HasSuffix(c.file, "/") {
				verdict, risk = Warn, RiskMedium
			}
			if d.Verdict != verdict || d.Gate != GateRead || d.Risk != risk {
				t.Fatalf("before reading: %s/%s %s (%q), want %s/%s %s", d.Verdict, d.Gate, d.Risk, d.Message, verdict, GateRead, risk)
			}
			if !contains(d.Paths, c.file) && !contains(d.Paths, strings.TrimSuffix(c.file, "/")) {
				t.Errorf("paths %q lack %q", d.Paths, c.file)
			}
			s.read("memory-bank/details/patterns.md")
			if d := s.before("Bash", map[string]any{"command": c.cmd}); d.Verdict != Allow {
				t.Fatalf("after reading: %s/%s (%q), want allowed", d.Verdict, d.Gate, d.Message)
			}
		})
	}
}
