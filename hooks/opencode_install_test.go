package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallOpenCode(t *testing.T) {
	cases := []struct {
		name      string
		before    string // existing file content; "" = none; "RENDER" = our current file
		opts      InstallOptions
		wantAct   string
		wantState PluginState // after the run
	}{
		{"fresh install", "", InstallOptions{}, "created", PluginCurrent},
		{"second run", "RENDER", InstallOptions{}, "unchanged", PluginCurrent},
		{"stale plugin replaced", openCodeHeader + "asset:0000 sum:" + shortHash("old\n") + "\nold\n", InstallOptions{}, "updated", PluginCurrent},
		{"edited plugin replaced, edits saved", "RENDER-EDITED", InstallOptions{}, "updated", PluginCurrent},
		{"foreign file kept", "export const Mine = async () => ({})\n", InstallOptions{}, "skipped", PluginForeign},
		{"other binary", "RENDER", InstallOptions{Binary: "/opt/mbguard/bin/mbguard"}, "updated", PluginCurrent},
		{"uninstall ours", "RENDER", InstallOptions{Uninstall: true}, "removed", PluginMissing},
		{"uninstall edited ours", "RENDER-EDITED", InstallOptions{Uninstall: true}, "removed", PluginMissing},
		{"uninstall foreign", "export const Mine = 1\n", InstallOptions{Uninstall: true}, "skipped", PluginForeign},
		{"uninstall nothing", "", InstallOptions{Uninstall: true}, "unchanged", PluginMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			o := c.opts
			o.Root = root
			path := OpenCodePluginPath(o)
			before := c.before
			switch before {
			case "RENDER":
				before = renderOpenCodePlugin("mbguard")
			case "RENDER-EDITED":
				before = renderOpenCodePlugin("mbguard") + "// my tweak\n"
			}
			if before != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ch, err := InstallOpenCode(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(ch) != 1 || ch[0].Action != c.wantAct || ch[0].Path != ".opencode/plugin/mbguard.js" {
				t.Fatalf("changes = %+v, want one %q of .opencode/plugin/mbguard.js", ch, c.wantAct)
			}
			if _, st, err := OpenCodePluginState(o); err != nil || st != c.wantState {
				t.Fatalf("state = %q, %v; want %q", st, err, c.wantState)
			}
			after, _ := os.ReadFile(path)
			if (c.wantAct == "kept" || c.wantAct == "skipped") && string(after) != before {
				t.Fatalf("a file we must keep was changed:\n%s", after)
			}
			if c.before == "RENDER-EDITED" && !o.Uninstall {
				if orig, err := os.ReadFile(path + ".orig"); err != nil || string(orig) != before {
					t.Fatalf("the hand edits were not kept in mbguard.js.orig: %v", err)
				}
			}
			if c.wantState == PluginCurrent && o.Binary != "" && o.Binary != "mbguard" &&
				!strings.Contains(string(after), `const DEFAULT_BIN = "`+o.Binary+`"`) {
				t.Fatalf("binary %s not recorded in the plugin", o.Binary)
			}
		})
	}
}

func TestOpenCodePluginPathGlobal(t *testing.T) {
	home := t.TempDir()
	o := InstallOptions{Global: true, Home: home}
	if got, want := OpenCodePluginPath(o), filepath.Join(home, ".config", "opencode", "plugin", "mbguard.js"); got != want {
		t.Fatalf("path = %s, want %s", got, want)
	}
	xdg := t.TempDir()
	o.ConfigHome = xdg
	if got, want := OpenCodePluginPath(o), filepath.Join(xdg, "opencode", "plugin", "mbguard.js"); got != want {
		t.Fatalf("path = %s, want %s", got, want)
	}
}

// TestOpenCodePluginAsset keeps the asset loadable by both OpenCode loaders: one runtime export,
// no imports but Node built-ins, and the binary line install rewrites.
func TestOpenCodePluginAsset(t *testing.T) {
	if !strings.Contains(openCodePlugin, openCodeBinLine) {
		t.Fatalf("asset lacks %q, which install rewrites", openCodeBinLine)
	}
	var exports []string
	for _, l := range strings.Split(openCodePlugin, "\n") {
		if strings.HasPrefix(l, "export ") {
			exports = append(exports, l)
		}
		if strings.HasPrefix(l, "import ") && !strings.Contains(l, `from "node:`) {
			t.Errorf("non-builtin import: %s", l)
		}
	}
	if len(exports) != 1 || !strings.HasPrefix(exports[0], "export const MbguardPlugin = async") {
		t.Fatalf("exports = %q, want only MbguardPlugin", exports)
	}
}
