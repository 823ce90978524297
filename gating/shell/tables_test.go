package shell

import (
	"strings"
	"testing"
)

// TestFormatterRows: every row of the formatter table, run with its fix option on the
// whole tree, writes the tree; one that cannot write Markdown writes no .md file below it,
// one that can is told how to leave the bank out.
func TestFormatterRows(t *testing.T) {
	for name, spec := range formatters() {
		cmd := name
		if len(spec.fix) > 0 {
			cmd += " " + spec.fix[0]
		}
		cmd += " ."
		r := Classify(cmd, "/repo")
		if len(r.Writes) != 1 {
			t.Errorf("%q: writes %+v, want the tree", cmd, r.Writes)
			continue
		}
		a := r.Writes[0]
		switch {
		case spec.md && (a.NoMarkdown || strings.TrimSuffix(a.Path, "/") != "/repo"):
			t.Errorf("%q formats Markdown: %+v, want a write of the tree with its .md files", cmd, a)
		case spec.md && spec.exclude != "" && !strings.HasSuffix(a.Exclude, " "+spec.exclude):
			t.Errorf("%q: exclusion %q, want it to end with %q", cmd, a.Exclude, spec.exclude)
		case !spec.md && (!a.Tree || !a.NoMarkdown):
			t.Errorf("%q cannot write Markdown: %+v, want a tree write without .md files", cmd, a)
		}
		// the same tool only checking reads
		if len(spec.fix) > 0 {
			if r := Classify(name+" .", "/repo"); r.Write && !strings.HasPrefix(spec.fix[0], "fmt") && spec.fix[0] != "format" {
				t.Errorf("%q without %s writes: %+v", name, spec.fix[0], r.Writes)
			}
		}
	}
}

// TestPackageManagerRows: every subcommand spelling of the package-manager table is a write
// of the files its row names, below the directory the manager is pointed at.
func TestPackageManagerRows(t *testing.T) {
	for name, m := range pkgManagers() {
		for _, sub := range m.subs {
			for _, sp := range spellings(sub.words) {
				cmd := name + " " + sp + " somepkg"
				files := sub.withPkg
				if strings.HasPrefix(sp, "-") || strings.Contains(sp, ":") {
					cmd = name + " " + sp
				}
				if name == "pip" {
					continue // pip writes its environment; -t is tested in firstLineCases
				}
				r := Classify(cmd, "/repo")
				for _, f := range strings.Fields(files) {
					want := "/repo/" + f
					found := false
					for _, a := range r.Writes {
						if a.Path == want {
							found = true
						}
					}
					if !found {
						t.Errorf("%q: writes %+v lack %s", cmd, r.Writes, want)
					}
				}
				if m.dir != "" {
					opt := strings.Fields(m.dir)[0]
					r := Classify(name+" "+opt+" sub "+sp+" somepkg", "/repo")
					for _, a := range r.Writes {
						if !strings.HasPrefix(a.Path, "/repo/sub/") && a.Path != "/repo/sub" && !strings.HasSuffix(a.Path, "somepkg") {
							t.Errorf("%s %s sub %s: %s is not below sub/", name, opt, sp, a.Path)
						}
					}
				}
			}
		}
	}
}
