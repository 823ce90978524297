package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

var benchCommands = []struct{ name, cmd string }{
	{"cat", "cat memory-bank/details/patterns.md"},
	{"pipeline", "cat memory-bank/MEMORY.md | head -n 20"},
	{"redirect", "cd memory-bank && echo '{}' > a.json 2>/dev/null"},
	{"git", "git -C memory-bank log -p -- MEMORY.md"},
	{"bash -c", `bash -c "sed -i 's/a/b/' memory-bank/MEMORY.md"`},
	{"python -c", `python3 -c "open('memory-bank/x.json','w').write('1')"`},
	{"heredoc", "cat <<'EOF' > memory-bank/progress.md\n# Progress\n- done\nEOF"},
}

func BenchmarkClassify(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Classify(c.cmd, "/repo")
			}
		})
	}
}

// BenchmarkParseOnly is the baseline: parsing alone, with a fresh parser as
// Classify uses. Compare ns/op against BenchmarkClassify from the same run,
// since absolute numbers move with machine load.
func BenchmarkParseOnly(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(c.cmd), "")
			}
		})
	}
}
