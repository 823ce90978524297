package gating

import (
	"strings"
	"testing"
)

// TestFirstLineFalseBlocks: everyday commands that only read the bank, or write where the
// bank cannot be, are not refused in any mode (issue 20). Each was refused before.
func TestFirstLineFalseBlocks(t *testing.T) {
	summarize := "import sys, pathlib\nfor p in pathlib.Path(sys.argv[1]).glob('*.md'):\n    print(p.read_text()[:100])\n"
	cases := []struct {
		cmd   string
		files map[string]string
	}{
		{"gofmt -w .", nil},
		{"ruff format .", nil},
		{"black .", nil},
		{"ruff check --fix .", nil},
		{"eslint --fix .", nil},
		{"go fmt ./...", nil},
		{"cargo fmt", nil},
		{"isort src tests", nil},
		{"clang-format -i src/main.c", nil},
		{`python3 -c 'print(pathlib.Path("memory-bank/MEMORY.md").read_text())'`, nil},
		{`python3 -c 'import pathlib; print(pathlib.Path("memory-bank/MEMORY.md").read_bytes()[:10])'`, nil},
		{`python3 -c 'import os; print(os.path.exists("memory-bank/MEMORY.md"), os.stat("memory-bank").st_size)'`, nil},
		{`cp memory-bank/MEMORY.md "$TMPDIR/mem.md"`, nil},
		{`cp memory-bank/MEMORY.md "$HOME/mem.md"`, nil},
		{`python3 -c "import subprocess; subprocess.run(['git','log','--','memory-bank'])"`, nil},
		{`python3 -c "import subprocess; print(subprocess.check_output(['cat', 'memory-bank/MEMORY.md']))"`, nil},
		{"python summarize.py memory-bank/", map[string]string{"summarize.py": summarize}},
		{"python3 summarize.py memory-bank/MEMORY.md", map[string]string{"summarize.py": summarize}},
		{"cat memory-bank/MEMORY.md > /tmp/copy.md", nil},
		{`node -e "console.log(require('child_process').execFileSync('git', ['log', '--', 'memory-bank']).toString())"`, nil},
		{"cat memory-bank/MEMORY.md > /tmp/package.json", nil},
	}
	for _, c := range cases {
		for _, mode := range []Mode{ModeWarn, ModeBlock} {
			fx := newFacts(bankFiles())
			for p, s := range c.files {
				fx.files[p] = s
			}
			s := newSession(t, policyWith(mode, ModeBlock, ModeOff), fx, "claude")
			d := s.before("Bash", map[string]any{"command": c.cmd})
			if d.Verdict == Block {
				t.Errorf("%s mode: %q refused (%s): %s", mode, c.cmd, d.Gate, d.Message)
			}
			if d.Gate == GateRead && !strings.Contains(c.cmd, "fmt") && !strings.Contains(c.cmd, "format") && !strings.Contains(c.cmd, "black") && !strings.Contains(c.cmd, "--fix") && !strings.Contains(c.cmd, "isort") {
				// a formatter rewrites the project's code: a read-gate warning, never a refusal;
				// a read, or a write outside the repository, is not gated at all
				t.Errorf("%s mode: %q gated by the read gate: %s", mode, c.cmd, d.Message)
			}
		}
	}
}

// TestFirstLineStillBlocks: the rules that let the commands above through do not open a
// way into the bank.
func TestFirstLineStillBlocks(t *testing.T) {
	writer := "import sys\nopen(sys.argv[1], 'w').write('x')\n"
	cases := []struct {
		cmd   string
		files map[string]string
		msg   string
	}{
		{`python3 -c "import subprocess; subprocess.run(['rm','-rf','memory-bank'])"`, nil, ""},
		{`python3 -c "import subprocess; subprocess.run(['bash','-c','echo x > memory-bank/a.md'])"`, nil, ""},
		{`python3 -c "import subprocess as s; s.run(['git','log','--','memory-bank'])"`, nil, ""},
		{`python3 -c "import subprocess; subprocess.run(['git','log']); subprocess.call('rm -rf memory-bank', shell=True)"`, nil, ""},
		{`python3 -c 'import pathlib; pathlib.Path("memory-bank/MEMORY.md").write_text("x")'`, nil, ""},
		{`node -e "require('child_process').execFileSync('rm', ['-rf', 'memory-bank'])"`, nil, ""},
		{`node -e "const cp = require('child_process'); require('child_process').execFileSync('git', ['log']); cp.execSync('rm -rf memory-bank')"`, nil, ""},
		{`python3 -c 'import pathlib; pathlib.Path("memory-bank/MEMORY.md").unlink()'`, nil, ""},
		{`python3 -c 'from shutil import move as mv; mv("memory-bank/MEMORY.md", "/tmp/x")'`, nil, ""},
		{`python3 -c 'import shutil; shutil.rmtree("memory-bank")'`, nil, ""},
		{"read TMPDIR <<< memory-bank; cp /tmp/evil.md \"$TMPDIR/\"", nil, ""},
		{"TMPDIR=memory-bank; cp /tmp/evil.md \"$TMPDIR/MEMORY.md\"", nil, ""},
		{"export TMPDIR=memory-bank; cp /tmp/evil.md \"$TMPDIR/MEMORY.md\"", nil, ""},
		{`eval "TMP""DIR=memory-bank"; cp /tmp/evil.md "$TMPDIR/MEMORY.md"`, nil, ""},
		{`cp /tmp/evil.md "$CLAUDE_PROJECT_DIR/memory-bank/MEMORY.md"`, nil, ""},
		{"python3 tools/w.py memory-bank/MEMORY.md", map[string]string{"tools/w.py": writer}, ""},
		{"python3 tools/missing.py memory-bank/MEMORY.md", nil, ""},
		{"prettier --write .", nil, "`prettier --write . '!memory-bank/**'`"},
		{"npx prettier --write src docs .", nil, "'!memory-bank/**'"},
		{"markdownlint --fix .", nil, "`markdownlint --fix . --ignore memory-bank`"},
		{"dprint fmt", nil, "--excludes memory-bank"},
		{"mdformat .", nil, ""},
		{"prettier --write . '!docs/**'", nil, "'!memory-bank/**'"},
		{"prettier --write . --ignore-path .prettierignore", nil, ""},
		{"prettier --write memory-bank '!memory-bank/**'", nil, ""},
		{"markdownlint --fix . --ignore memory-bank-old", nil, ""},
		{"eslint --fix --ext .js,.md .", nil, ""},
		{"ruff format --extension md:python .", nil, ""},
		{"gofmt -w memory-bank/", nil, ""},
		{"black memory-bank", nil, ""},
	}
	for _, c := range cases {
		fx := newFacts(bankFiles())
		for p, s := range c.files {
			fx.files[p] = s
		}
		s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), fx, "claude")
		d := s.before("Bash", map[string]any{"command": c.cmd})
		if d.Verdict != Block || d.Gate != GateBank {
			t.Errorf("%q: %s/%s (%q), want a bank block", c.cmd, d.Verdict, d.Gate, d.Message)
			continue
		}
		if !strings.Contains(d.Message, c.msg) {
			t.Errorf("%q: message %q lacks %q", c.cmd, d.Message, c.msg)
		}
	}
}
