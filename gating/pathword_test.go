package gating

import (
	"fmt"
	"strings"
	"testing"
)

// TestNamesPathSeparators pins which characters around a word make it a path word in a shell
// command, for the bank and for mbguard's own files alike.
func TestNamesPathSeparators(t *testing.T) {
	words := []string{bankDir, ".mbguard.yaml", ".claude/settings.json"}
	for _, w := range words {
		for _, c := range wordOpeners {
			if cmd := "x" + string(c) + w; !namesPath(cmd, w) {
				t.Errorf("namesPath(%q, %q) = false, want true: %q opens a path word", cmd, w, c)
			}
		}
		for _, c := range wordClosers {
			if cmd := w + string(c) + "x"; !namesPath(cmd, w) {
				t.Errorf("namesPath(%q, %q) = false, want true: %q closes a path word", cmd, w, c)
			}
		}
		for _, c := range "aZ0-_.~+@,%" {
			if cmd := "x" + string(c) + w; namesPath(cmd, w) {
				t.Errorf("namesPath(%q, %q) = true, want false: %q is part of a name", cmd, w, c)
			}
			if cmd := w + string(c) + "x"; namesPath(cmd, w) {
				t.Errorf("namesPath(%q, %q) = true, want false: %q is part of a name", cmd, w, c)
			}
		}
	}
	if !namesPath("cp $F .git/hooks", ".git/") || namesPath("cp $F repo.git/", ".git/") {
		t.Error("a folder word ending in / is named whatever follows, and only as a word of its own")
	}
}

// TestPathWordGuardsAgree runs the same spellings of a shell command that writes somewhere
// unknown past the bank guard and the config guard: a spelling that names memory-bank/ to one
// names .mbguard.yaml to the other. (The two kept their own separator lists until #27: a
// backslash named the bank but not the configuration, a colon the configuration but not the
// bank.)
func TestPathWordGuardsAgree(t *testing.T) {
	spellings := map[string]string{
		"space":           `sometool %s > "$F"`,
		"backslash":       `sometool 'C:\repo\%s' > "$F"`,
		"colon":           `sometool /tmp:%s > "$F"`,
		"slash":           `sometool "$PWD/%s" > "$F"`,
		"equals":          `sometool --out=%s > "$F"`,
		"backslash after": `sometool '%s\x' > "$F"`,
	}
	for name, tmpl := range spellings {
		for _, w := range []struct {
			word string
			gate Gate
		}{{bankDir, GateBank}, {".mbguard.yaml", GateConfig}} {
			t.Run(name+"/"+w.word, func(t *testing.T) {
				cmd := fmt.Sprintf(tmpl, w.word)
				s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), "opencode")
				d := s.before("bash", map[string]any{"command": cmd, "description": "x"})
				if d.Verdict != Block || d.Gate != w.gate || !strings.Contains(d.Message, "cannot determine") {
					t.Fatalf("%s: decision = %s/%s (%q), want Block by %s", cmd, d.Verdict, d.Gate, d.Message, w.gate)
				}
			})
		}
	}
}

// TestUnderDir pins the one "is this path under that folder" check of the engine.
func TestUnderDir(t *testing.T) {
	cases := []struct {
		p, dir string
		rest   string
		ok     bool
	}{
		{"memory-bank", "memory-bank", "", true},
		{"memory-bank/a.md", "memory-bank", "a.md", true},
		{"memory-bank/x/a.md", "memory-bank", "x/a.md", true},
		{"memory-bank-notes/a.md", "memory-bank", "", false},
		{"memory-bank.md", "memory-bank", "", false},
		{"docs/memory-bank", "memory-bank", "", false},
		{"MEMORY-BANK/a.md", "memory-bank", "", false}, // folding is the caller's, through key
		{"/~", "/~", "", true},
		{"/~/x", "/~", "x", true},
		{"/~x", "/~", "", false},
		{".git/hooks/pre-commit", ".git", "hooks/pre-commit", true},
		{"repo.git/x", ".git", "", false},
		{"/a/b", "/", "a/b", true},
		{"C:/repo/memory-bank", "C:/repo", "memory-bank", true},
		{"C:/repository", "C:/repo", "", false},
		{"//server/share/x", "//server/share", "x", true},
	}
	for _, c := range cases {
		rest, ok := underDir(c.p, c.dir)
		if rest != c.rest || ok != c.ok {
			t.Errorf("underDir(%q, %q) = %q, %v; want %q, %v", c.p, c.dir, rest, ok, c.rest, c.ok)
		}
	}
}
