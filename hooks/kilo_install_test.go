package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallKilo: Kilo Code gets OpenCode's plugin, naming the host kilo, in .kilo/plugin/
// (project) or $XDG_CONFIG_HOME/kilo/plugin/ (--global); doctor's state reads it; uninstall
// removes only that file. The file differs from OpenCode's in the host line alone.
func TestInstallKilo(t *testing.T) {
	if !strings.Contains(openCodePlugin, openCodeHostLine) {
		t.Fatalf("asset lacks %q, which install rewrites for Kilo", openCodeHostLine)
	}
	root := t.TempDir()
	o := InstallOptions{Root: root, Binary: "mbguard"}
	ch, err := InstallKilo(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Action != "created" || ch[0].Path != ".kilo/plugin/mbguard.js" || !strings.Contains(ch[0].Note, "restart Kilo Code") {
		t.Fatalf("changes = %+v, want .kilo/plugin/mbguard.js created", ch)
	}
	b, err := os.ReadFile(filepath.Join(root, ".kilo", "plugin", "mbguard.js"))
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(b), "\n")
	_, want, _ := strings.Cut(renderOpenCodePlugin("mbguard"), "\n")
	if got := strings.Replace(body, `const HOST = "kilo"`, openCodeHostLine, 1); got != want || got == body {
		t.Errorf("Kilo's plugin is not OpenCode's with the host line changed:\n%s", body)
	}
	if path, st, err := PluginStateOf("kilo", o); err != nil || st != PluginCurrent || path != filepath.Join(root, ".kilo", "plugin", "mbguard.js") {
		t.Errorf("state = %s %q, %v; want current", path, st, err)
	}
	if _, st, _ := OpenCodePluginState(o); st != PluginMissing {
		t.Errorf("OpenCode's plugin state = %q after installing Kilo's; want missing", st)
	}
	if ch, _ := InstallKilo(o); len(ch) != 1 || ch[0].Action != "unchanged" {
		t.Errorf("second run: %+v", ch)
	}
	o.Uninstall = true
	if ch, err := InstallKilo(o); err != nil || len(ch) != 1 || ch[0].Action != "removed" {
		t.Fatalf("uninstall: %+v, %v", ch, err)
	}
	if _, st, _ := PluginStateOf("kilo", o); st != PluginMissing {
		t.Errorf("state after uninstall = %q", st)
	}
}

func TestKiloPathsGlobal(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	spec, ok := LookupHost("kilo")
	if !ok || !spec.Plugin || spec.HookHost() {
		t.Fatal("kilo: want a registry host served by the plugin")
	}
	for _, c := range []struct {
		o            InstallOptions
		plugin, skil string
	}{
		{InstallOptions{Global: true, Home: home}, filepath.Join(home, ".config", "kilo", "plugin", "mbguard.js"), filepath.Join(home, ".config", "kilo", "skills", "memory-bank")},
		{InstallOptions{Global: true, Home: home, ConfigHome: xdg}, filepath.Join(xdg, "kilo", "plugin", "mbguard.js"), filepath.Join(xdg, "kilo", "skills", "memory-bank")},
		{InstallOptions{Root: home}, filepath.Join(home, ".kilo", "plugin", "mbguard.js"), filepath.Join(home, ".kilo", "skills", "memory-bank")},
	} {
		if got := PluginPath("kilo", c.o); got != c.plugin {
			t.Errorf("plugin path = %s, want %s", got, c.plugin)
		}
		if got := spec.SkillDir(c.o); got != c.skil {
			t.Errorf("skill dir = %s, want %s", got, c.skil)
		}
	}
	if PluginPath("claude", InstallOptions{Root: home}) != "" {
		t.Error("claude has no plugin path")
	}
}
