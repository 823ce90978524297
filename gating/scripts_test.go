package gating

import (
	"strings"
	"testing"
)

// ReadAbs reads files outside the repository (a script in /tmp), from memFacts.abs.
func (f *memFacts) ReadAbs(p string) (string, bool) { s, ok := f.abs[p]; return s, ok }

// TestScriptsAreJudgedBeforeTheyRun: a command line cannot show what a script it runs will
// do, but the script is on disk when the pre check runs. Each case writes the file(s), then
// runs a command whose own text is harmless; the files' content decides.
func TestScriptsAreJudgedBeforeTheyRun(t *testing.T) {
	type tc struct {
		name  string
		files map[string]string // repository-relative, or absolute (outside the repository)
		cmd   string
		block bool
	}
	cases := []tc{
		{"bash script", map[string]string{"tools/s.sh": "echo x > memory-bank/a.json\n"}, "bash tools/s.sh", true},
		{"sh script", map[string]string{"tools/s.sh": "rm memory-bank/MEMORY.md\n"}, "sh tools/s.sh", true},
		{"source", map[string]string{"tools/s.sh": "rm memory-bank/MEMORY.md\n"}, "source tools/s.sh", true},
		{"dot", map[string]string{"tools/s.sh": "rm memory-bank/MEMORY.md\n"}, ". tools/s.sh", true},
		{"executable by path", map[string]string{"tools/s": "#!/bin/sh\nmv memory-bank/details/patterns.md /tmp/\n"}, "./tools/s", true},
		{"script in tmp", map[string]string{"/tmp/s.sh": "echo x > memory-bank/a.json\n"}, "bash /tmp/s.sh", true},
		{"cd then run", map[string]string{"tools/s.sh": "echo x > ../memory-bank/a.json\n"}, "cd tools && bash s.sh", true},
		{"BASH_ENV", map[string]string{"tools/env.sh": "rm memory-bank/MEMORY.md\n"}, "BASH_ENV=tools/env.sh bash -c true", true},
		{"wrapped", map[string]string{"tools/s.sh": "rm memory-bank/MEMORY.md\n"}, "timeout 10 nohup bash tools/s.sh", true},
		{"script runs a script", map[string]string{"tools/a.sh": "bash tools/b.sh\n", "tools/b.sh": "rm -rf memory-bank\n"}, "bash tools/a.sh", true},
		{"python file", map[string]string{"tools/w.py": "open('memory-bank/x.txt', 'w').write('x')\n"}, "python3 tools/w.py", true},
		{"shebang python", map[string]string{"tools/w": "#!/usr/bin/env python3\nimport os\nos.remove('memory-bank/MEMORY.md')\n"}, "tools/w", true},
		{"node file", map[string]string{"tools/w.js": "require('fs').writeFileSync('memory-bank/n.json', '1')\n"}, "node tools/w.js", true},
		{"perl file", map[string]string{"tools/w.pl": "open(my $f, '>', 'memory-bank/p.txt');\n"}, "perl tools/w.pl", true},
		{"makefile", map[string]string{"Makefile": "all:\n\t@rm -f memory-bank/MEMORY.md\n"}, "make", true},
		{"makefile -f -C", map[string]string{"build/rules.mk": "x:\n\techo > ../memory-bank/a.json\n"}, "make -C build -f rules.mk x", true},
		{"npm run", map[string]string{"package.json": `{"scripts":{"gen":"echo x > memory-bank/g.json"}}`}, "npm run gen", true},
		{"npm test pre hook", map[string]string{"package.json": `{"scripts":{"pretest":"rm memory-bank/MEMORY.md","test":"true"}}`}, "npm test", true},
		{"yarn script", map[string]string{"package.json": `{"scripts":{"build":"rm -rf memory-bank"}}`}, "yarn build", true},
		{"git apply", map[string]string{"tools/p.diff": "--- a/memory-bank/details/progress.md\n+++ b/memory-bank/details/progress.md\n@@ -1 +1 @@\n-a\n+b\n"}, "git apply tools/p.diff", true},

		{"harmless script", map[string]string{"tools/b.sh": "mkdir -p out && cp memory-bank/MEMORY.md out/\ngo vet ./...\n"}, "bash tools/b.sh", false},
		{"harmless python", map[string]string{"tools/r.py": "import os\nos.makedirs('out', exist_ok=True)\nopen('out/r.txt', 'w').write(open('memory-bank/MEMORY.md').read())\n"}, "python3 tools/r.py", false},
		{"harmless makefile", map[string]string{"Makefile": "build:\n\tgo build -o out/app ./...\n"}, "make build", false},
		{"harmless npm", map[string]string{"package.json": `{"scripts":{"test":"node test.js > out/test.log"}}`}, "npm test", false},
		{"harmless patch", map[string]string{"tools/p.diff": "--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-a\n+b\n"}, "git apply tools/p.diff", false},
		{"missing script", nil, "bash tools/none.sh", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := newFacts(bankFiles())
			fx.abs = map[string]string{}
			for p, s := range c.files {
				if p[0] == '/' {
					fx.abs[p] = s
				} else {
					fx.files[p] = s
				}
			}
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), fx, "claude")
			d := s.before("Bash", map[string]any{"command": c.cmd})
			blocked := d.Verdict == Block && (d.Gate == GateBank || d.Gate == GateConfig)
			if blocked != c.block {
				t.Fatalf("%q: decision %s/%s (%q), want blocked=%v", c.cmd, d.Verdict, d.Gate, d.Message, c.block)
			}
		})
	}
}

// A script that runs itself over and over is read once, within a total budget.
func TestScriptsRunningThemselvesStayCheap(t *testing.T) {
	fx := newFacts(bankFiles())
	fx.files["tools/s.sh"] = strings.Repeat("bash tools/s.sh\n", 8) + strings.Repeat("# pad\n", 40000) + "rm memory-bank/MEMORY.md\n"
	s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), fx, "claude")
	d := s.before("Bash", map[string]any{"command": "bash tools/s.sh"})
	if d.Verdict != Block {
		t.Fatalf("decision %s (%q), want a block", d.Verdict, d.Message)
	}
}
