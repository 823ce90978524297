package jail

import "testing"

func TestBranchOp(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git checkout other":                          true,
		"git switch -c feat && git merge --ff-only x": true,
		"git -C sub --no-pager pull --rebase":         true,
		"git stash pop; git cherry-pick abc123":       true,
		`git reset --hard "HEAD~1"`:                   true,
		"git am < patch":                              false,
		"git checkout x && echo y > memory-bank/a":    false,
		"git checkout x &":                            false,
		"(git checkout x)":                            false,
		"git -c core.hooksPath=h checkout x":          false,
		"GIT_DIR=/tmp/x git reset --hard":             false,
		"git checkout $(echo x)":                      false,
		"git checkout $b":                             false,
		"git commit -m x":                             false,
		"git status":                                  false,
		"gitx checkout x":                             false,
		"git":                                         false,
		"":                                            false,
		"git checkout x | tee log":                    false,
		"git checkout 'unterminated":                  false,
	} {
		if got := BranchOp(cmd); got != want {
			t.Errorf("BranchOp(%q) = %v, want %v", cmd, got, want)
		}
	}
}
