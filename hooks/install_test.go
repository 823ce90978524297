package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallProjectBinEveryHost: with a project's npm install, every host's project files and
// the git hooks call it through the project, found at run time, and never by this machine's
// path; a host that names its project folder to hooks is asked first (HostSpec.ProjectDirEnv).
func TestInstallProjectBinEveryHost(t *testing.T) {
	for _, spec := range Registry() {
		t.Run(spec.Name, func(t *testing.T) {
			root := t.TempDir()
			o := InstallOptions{Root: root, GitDir: filepath.Join(root, ".git"), CommonDir: filepath.Join(root, ".git"), Home: t.TempDir(),
				Binary: filepath.Join(root, "node_modules", "mbguard-linux-x64", "bin", "mbguard"), ProjectBin: "node_modules/.bin/mbguard", ProjectDirEnv: spec.ProjectDirEnv}
			if _, err := spec.Install(o); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range spec.ProjectFiles {
				b, err := os.ReadFile(filepath.Join(root, f))
				if err != nil {
					continue
				}
				found = true
				s := string(b)
				if strings.Contains(s, root) {
					t.Errorf("%s names this machine's path %s:\n%s", f, root, s)
				}
				want := `"${` + spec.ProjectDirEnv + `:-$(git rev-parse --show-toplevel)}"/node_modules/.bin/mbguard hook ` + spec.Name
				switch {
				case spec.Plugin:
					want = `const DEFAULT_BIN = "node_modules/.bin/mbguard"`
				case spec.ProjectDirEnv == "":
					want = `"$(git rev-parse --show-toplevel)"/node_modules/.bin/mbguard hook ` + spec.Name
				}
				if !strings.Contains(strings.ReplaceAll(s, `\"`, `"`), want) {
					t.Errorf("%s does not run %s:\n%s", f, want, s)
				}
			}
			if !found {
				t.Fatalf("install wrote none of %v", spec.ProjectFiles)
			}
		})
	}
	// --global writes the user's own files: the binary itself, as before
	o := InstallOptions{Global: true, Home: t.TempDir(), Binary: "/opt/mbguard/mbguard", ProjectBin: "node_modules/.bin/mbguard", ProjectDirEnv: "CLAUDE_PROJECT_DIR"}
	if got := o.hookCommand("claude"); got != "/opt/mbguard/mbguard hook claude" {
		t.Errorf("--global: %s", got)
	}
}
