package shell

import "testing"

// TestGitPatchRunsAfterGlobalOptions pins that the patches git apply and git am run are
// found past git's global options by the same parse the classifier uses (gitGlobals): a
// value-taking option takes the next word, so the subcommand is never taken for a value.
func TestGitPatchRunsAfterGlobalOptions(t *testing.T) {
	cases := map[string]string{ // command → the patch it runs ("" for none)
		"git apply p.diff":                          "/repo/p.diff",
		"git am m.mbox":                             "/repo/m.mbox",
		"git -c user.name=x apply -p1 p.diff":       "/repo/p.diff",
		"git --git-dir ../o/.git apply p.diff":      "/repo/p.diff",
		"git --namespace ns am m.mbox":              "/repo/m.mbox",
		"git --super-prefix p apply p.diff":         "/repo/p.diff",
		"git --no-pager apply --directory=d p.diff": "/repo/p.diff",
		"git --exec-path apply p.diff":              "",                 // apply is --exec-path's value
		"git -C sub apply p.diff":                   "/repo/sub/p.diff", // read from where -C moved git
		"git -C /tmp/x am m.mbox":                   "/tmp/x/m.mbox",
		"git -C a -C b apply p.diff":                "/repo/a/b/p.diff",
		"git status":                                "",
		"git":                                       "",
	}
	for cmd, want := range cases {
		r := Classify(cmd, "/repo")
		got := ""
		if len(r.Runs) > 0 {
			got = r.Runs[0].Path
		}
		if got != want || len(r.Runs) > 1 {
			t.Errorf("%q runs %+v, want %q", cmd, r.Runs, want)
		}
	}
}
