package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSkillFrontMatter(t *testing.T) {
	b := Files()["SKILL.md"]
	s := string(b)
	if !strings.HasPrefix(s, "---\nname: memory-bank\ndescription: ") {
		t.Fatalf("SKILL.md front matter: got %q", s[:min(len(s), 80)])
	}
	for _, ref := range []string{"references/reader.md", "references/writer.md"} {
		if _, ok := Files()[ref]; !ok {
			t.Errorf("%s not embedded", ref)
		}
		if !strings.Contains(s, "("+ref+")") {
			t.Errorf("SKILL.md does not link %s", ref)
		}
	}
	if len(Files()) != 3 {
		t.Errorf("embedded %d files, want 3 (no .go files)", len(Files()))
	}
}

func actions(lines []string) string {
	var a []string
	for _, l := range lines {
		a = append(a, strings.Fields(l)[0])
	}
	return strings.Join(a, ",")
}

func TestInstall(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(t *testing.T, dir string) // between the first and the second install
		want2 string                         // actions of the second install (sorted file order)
		wantU string                         // actions of uninstall
	}{
		{"idempotent", func(*testing.T, string) {}, "unchanged,unchanged,unchanged", "removed,removed,removed"},
		{"user edit kept", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("mine\n"), 0o644)
		}, "kept,unchanged,unchanged", "kept,removed,removed"},
		{"stale copy updated", func(t *testing.T, dir string) {
			// pretend the last install wrote an older version of reader.md
			p := filepath.Join(dir, "references", "reader.md")
			os.WriteFile(p, []byte("old\n"), 0o644)
			m, _ := os.ReadFile(filepath.Join(dir, ManifestName))
			m = []byte(strings.Replace(string(m), sum(Files()["references/reader.md"]), sum([]byte("old\n")), 1))
			os.WriteFile(filepath.Join(dir, ManifestName), m, 0o644)
		}, "unchanged,updated,unchanged", "removed,removed,removed"},
		{"deleted file recreated", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "references", "writer.md"))
		}, "unchanged,unchanged,created", "removed,removed,removed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".claude", "skills", "memory-bank")
			l1, err := Install(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(l1); got != "created,created,created" {
				t.Fatalf("first install: %s", got)
			}
			tc.edit(t, dir)
			l2, err := Install(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(l2); got != tc.want2 {
				t.Errorf("second install: got %s, want %s\n%s", got, tc.want2, strings.Join(l2, "\n"))
			}
			lu, err := Install(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(lu); got != tc.wantU {
				t.Errorf("uninstall: got %s, want %s", got, tc.wantU)
			}
			_, err = os.Stat(dir)
			if kept := strings.Contains(tc.wantU, "kept"); kept != (err == nil) {
				t.Errorf("skill folder present after uninstall = %v, want %v", err == nil, kept)
			}
		})
	}
}
