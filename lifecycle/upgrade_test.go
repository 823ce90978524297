package lifecycle

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/templates"
)

const userBlock = "<!-- USER_BLOCK_START -->\n## Mine\n  keep   exactly\n<!-- USER_BLOCK_END -->\n"

func TestUpgrade(t *testing.T) {
	tests := []struct {
		name, memory string
		wantErr      string
		wantActions  int
	}{
		{"v7.0", "# M\n\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n\n## Project Snapshot\n\nx\n\n## Routing Rules\n\n- topic → file\n<!-- MACHINE_BLOCK_END -->\n\n" + userBlock, "", 7},
		{"no marker", "<!-- MACHINE_BLOCK_START -->\n## Current Focus\n- y\n<!-- MACHINE_BLOCK_END -->\n" + userBlock, "", 7},
		{"crlf", strings.ReplaceAll("<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n<!-- MACHINE_BLOCK_END -->\n"+userBlock, "\n", "\r\n"), "", 8},
		{"missing user end", "<!-- MACHINE_BLOCK_START -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n", "no <!-- USER_BLOCK_END -->", 0},
		{"missing machine start", "<!-- MACHINE_BLOCK_END -->\n" + userBlock, "no <!-- MACHINE_BLOCK_START -->", 0},
		{"out of order", "<!-- MACHINE_BLOCK_END -->\n<!-- MACHINE_BLOCK_START -->\n" + userBlock, "malformed", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "memory-bank", "MEMORY.md")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(tc.memory), 0o644)
			state := filepath.Join(root, ".git", "mbguard")
			res, err := Upgrade(UpgradeOptions{Root: root, StateDir: state})
			got, _ := os.ReadFile(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || string(got) != tc.memory {
					t.Fatalf("got %v, file changed: %v", err, string(got) != tc.memory)
				}
				return
			}
			if err != nil || !res.Changed || len(res.Actions) != tc.wantActions {
				t.Fatalf("%+v %v", res, err)
			}
			u1, _ := bank.UserBlock([]byte(tc.memory))
			u2, ok := bank.UserBlock(got)
			if !ok || !bytes.Equal(u1, u2) {
				t.Errorf("USER_BLOCK changed")
			}
			sc := bank.ScanMarkers(got)
			if len(sc.Templates) != 1 || sc.Templates[0].Version != bank.CurrentTemplate || sc.Templates[0].Line != sc.Markers[0].Line+1 {
				t.Errorf("template marks %+v", sc.Templates)
			}
			if _, ok := bank.ParseBlocks(got); !ok {
				t.Error("blocks malformed after upgrade")
			}
			if strings.Contains(tc.memory, "## Routing Rules\n") && !strings.Contains(string(got), legacyRoutingNote) {
				t.Error("legacy routing note missing")
			}
			if !strings.Contains(string(got), templates.DrillHeading) {
				t.Error("Drill-Down Protocol not appended")
			}
			if b, _ := os.ReadDir(filepath.Join(state, "backups")); len(b) != 1 {
				t.Errorf("%d backups", len(b))
			}
			again, err := Upgrade(UpgradeOptions{Root: root, StateDir: state})
			if err != nil || again.Changed {
				t.Errorf("second run not a no-op: %+v %v", again, err)
			}
		})
	}
}

func TestUpgradeFailingWrite(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "memory-bank", "MEMORY.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	orig := "<!-- MACHINE_BLOCK_START -->\n<!-- MACHINE_BLOCK_END -->\n" + userBlock
	os.WriteFile(p, []byte(orig), 0o644)
	full := errors.New("no space left on device")
	_, err := Upgrade(UpgradeOptions{Root: root, NoBackup: true, Write: func(string, []byte, os.FileMode) error { return full }})
	if got, _ := os.ReadFile(p); !errors.Is(err, full) || string(got) != orig {
		t.Fatalf("%v", err)
	}
}

func TestInit(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# Widget\n\nMakes widgets.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/w\n\ngo 1.26\n"), 0o644)
	res, err := Init(root)
	if err != nil || len(res.Created) != 7 {
		t.Fatalf("%+v %v", res, err)
	}
	mem, _ := os.ReadFile(filepath.Join(root, "memory-bank", "MEMORY.md"))
	if !strings.Contains(string(mem), "Widget") || !strings.Contains(string(mem), "Makes widgets.") {
		t.Error("snapshot not filled from README")
	}
	tech, _ := os.ReadFile(filepath.Join(root, "memory-bank", "details", "tech.md"))
	if !strings.Contains(string(tech), "Go 1.26") {
		t.Error("tech not filled from go.mod")
	}
	os.WriteFile(filepath.Join(root, "memory-bank", "details", "tech.md"), []byte("mine\n"), 0o644)
	os.Remove(filepath.Join(root, "memory-bank", "details", "progress.md"))
	res, err = Init(root)
	if err != nil || len(res.Created) != 1 || res.Created[0] != "memory-bank/details/progress.md" {
		t.Fatalf("second init: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "memory-bank", "details", "tech.md")); string(b) != "mine\n" {
		t.Error("init overwrote a file")
	}
	legacy := t.TempDir()
	os.MkdirAll(filepath.Join(legacy, "memory-bank"), 0o755)
	os.WriteFile(filepath.Join(legacy, "memory-bank", "brief.md"), []byte("x"), 0o644)
	if _, err := Init(legacy); !errors.Is(err, ErrLegacy) {
		t.Errorf("legacy: %v", err)
	}
}

func TestUpgradeUnmarked(t *testing.T) {
	claude := "# Project memory\n\n- Build with `make`; tests need Docker.\n- Never commit to main.\n\n```md\n<!-- an example comment -->\n```\n"
	tests := []struct {
		name, memory string
		wantUser     string // the USER_BLOCK after the upgrade
		wantErr      string
	}{
		{"claude style", claude, "\n" + claude, ""},
		{"no final newline", "notes without end", "\nnotes without end\n", ""},
		{"crlf", "# M\r\n\r\n- a\r\n", "\r\n# M\r\n\r\n- a\r\n", ""},
		{"bom stays at the head", "\ufeff# M\n- a\n", "\n# M\n- a\n", ""},
		{"v7.0 template mark without blocks", "# M\n<!-- MEMORY_BANK_TEMPLATE:v7.0 -->\n- a\n", "\n# M\n- a\n", ""},
		{"markers inside a fence are text", "```\n<!-- USER_BLOCK_START -->\n```\n- a\n", "\n```\n<!-- USER_BLOCK_START -->\n```\n- a\n", ""},
		{"unclosed fence", "# M\n```\nno close\n", "", "unclosed code fence"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "memory-bank", "MEMORY.md")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(tc.memory), 0o644)
			state := filepath.Join(root, ".git", "mbguard")
			res, err := Upgrade(UpgradeOptions{Root: root, StateDir: state})
			got, _ := os.ReadFile(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || string(got) != tc.memory {
					t.Fatalf("got %v; file changed: %v", err, string(got) != tc.memory)
				}
				return
			}
			if err != nil || !res.Changed {
				t.Fatalf("%+v %v", res, err)
			}
			u, ok := bank.UserBlock(got)
			if !ok || string(u) != tc.wantUser {
				t.Errorf("USER_BLOCK = %q, want %q", u, tc.wantUser)
			}
			sc := bank.ScanMarkers(got)
			if len(sc.Markers) != 4 || len(sc.Templates) != 1 || sc.Templates[0].Version != bank.CurrentTemplate || sc.Templates[0].Line != sc.Markers[0].Line+1 {
				t.Errorf("markers %+v, template marks %+v", sc.Markers, sc.Templates)
			}
			if strings.HasPrefix(tc.memory, "\ufeff") != strings.HasPrefix(string(got), "\ufeff") {
				t.Error("BOM not kept at the head")
			}
			if strings.Contains(tc.memory, "\r\n") && strings.Count(string(got), "\r\n") != strings.Count(string(got), "\n") {
				t.Error("mixed line endings in a CRLF file")
			}
			for _, h := range fixedSections {
				if !strings.Contains(string(got), h) {
					t.Errorf("%s missing", h)
				}
			}
			again, err := Upgrade(UpgradeOptions{Root: root, StateDir: state})
			if err != nil || again.Changed {
				t.Errorf("second run not a no-op: %+v %v", again, err)
			}
		})
	}
}
