package shell

import (
	"testing"
)

// TestTreeWrites: directory writes whose entries are unknown are marked Tree, and find's name
// tests that admit no Markdown file mark them NoMarkdown; nothing else is.
func TestTreeWrites(t *testing.T) {
	tests := []struct {
		cmd        string
		tree, noMD bool
	}{
		{"tar xzf a.tgz", true, false},
		{"unzip a.zip -d out", true, false},
		{"rsync -a backup/ .", true, false},
		{"cp -r backup/. .", false, false}, // one source: the exact destination, judged as a path
		{"find . -delete", true, false},
		{"find . -name '*.pyc' -delete", true, true},
		{"find . -type f -iname '*.LOG' -exec rm {} +", true, true},
		{"find . -name '*.md' -delete", true, false},
		{"find . ! -name '*.pyc' -delete", true, false},
		{"find . -not -name '*.pyc' -delete", true, false},
		{"find . -name '*.pyc' -o -name x -delete", true, false},
		{"find . -name '*.m?' -delete", true, false},
		{"find . -name $PAT -delete", true, false},
		{"rm -rf .", false, false},
		{"echo x > out/$NAME", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			r := Classify(tc.cmd, "/repo")
			if len(r.Writes) == 0 {
				t.Fatalf("no writes: %+v", r)
			}
			a := r.Writes[len(r.Writes)-1]
			if a.Tree != tc.tree || a.NoMarkdown != tc.noMD {
				t.Fatalf("write %+v, want tree %v noMarkdown %v", a, tc.tree, tc.noMD)
			}
		})
	}
}
