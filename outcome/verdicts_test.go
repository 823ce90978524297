package outcome

import (
	"slices"
	"strings"
	"testing"
)

// TestVerdicts decides changes from what inspect found, with no disk and no git: the table is
// the policy of the check after a call.
func TestVerdicts(t *testing.T) {
	file := func(s string) *Entry { return &Entry{Kind: KindFile, Mode: 0o644, Blob: "b-" + s} }
	dir := &Entry{Kind: KindDir, Mode: 0o755}
	link := &Entry{Kind: KindSymlink, Mode: 0o777}
	created := func(p string, d *Entry, body string) *change {
		return &change{path: p, d: d, new: []byte(body)}
	}
	edited := func(p, body string) *change {
		return &change{path: p, b: file("old"), d: file("new"), new: []byte(body)}
	}
	write := Call{ID: "w", Allowed: []string{"memory-bank/a.md", "memory-bank/new/x.md"}, Expect: map[string]string{"memory-bank/e.md": TextSum([]byte("tool"))}}
	write.Allowed = append(write.Allowed, "memory-bank/e.md")
	other := Call{ID: "o", Allowed: []string{"memory-bank/b.md", "memory-bank/theirs/y.md"}}
	problem := []Problem{{Path: "memory-bank/a.md", Rule: "size", Text: "too large"}}

	type row struct {
		change  *change
		found   finding
		want    verdict
		whyHas  string // a word of the first reason (undo only)
		gitWork bool
	}
	cases := map[string][]row{
		"owner's file, no problem":   {{edited("memory-bank/a.md", "x"), finding{claim: claimMine}, verdictKeep, "", false}},
		"owner's file breaks a rule": {{edited("memory-bank/a.md", "x"), finding{claim: claimMine, probs: problem}, verdictUndo, "too large", false}},
		"another call's file":        {{edited("memory-bank/b.md", "x"), finding{claim: claimTheirs}, verdictLeave, "", false}},
		"nobody's file":              {{edited("memory-bank/c.md", "x"), finding{claim: claimNone}, verdictUndo, "allowed write tool", false}},
		"nobody's file, rules too":   {{edited("memory-bank/c.md", "x"), finding{claim: claimNone, probs: problem}, verdictUndo, "allowed write tool", false}},
		"owner's symlink":            {{created("memory-bank/a.md", link, "t"), finding{claim: claimMine}, verdictUndo, "regular Markdown", false}},
		"what the write tool wrote":  {{edited("memory-bank/e.md", "tool"), finding{claim: claimMine}, verdictKeep, "", false}},
		"not what the tool wrote":    {{edited("memory-bank/e.md", "other"), finding{claim: claimMine}, verdictUndo, "not what the write tool", false}},
		"git's work":                 {{edited("memory-bank/c.md", "x"), finding{claim: claimGit}, verdictKeep, "", true}},
		"git discarded work":         {{edited("memory-bank/c.md", "x"), finding{claim: claimGit, probs: problem}, verdictUndo, "too large", true}},
		"new folder with a kept file": {
			{created("memory-bank/new", dir, ""), finding{}, verdictKeep, "", false},
			{created("memory-bank/new/x.md", file("n"), "x"), finding{claim: claimMine}, verdictKeep, "", false},
		},
		"new folder with nobody's file": {
			{created("memory-bank/stray", dir, ""), finding{}, verdictUndo, "made by an allowed", false},
			{created("memory-bank/stray/z.md", file("n"), "x"), finding{claim: claimNone}, verdictUndo, "allowed write tool", false},
		},
		"new folder another call may fill": {
			{created("memory-bank/theirs", dir, ""), finding{}, verdictLeave, "", false},
		},
		"folder git removed with its files": {
			{&change{path: "memory-bank/old", b: dir}, finding{}, verdictKeep, "", true},
			{&change{path: "memory-bank/old/f.md", b: file("f")}, finding{claim: claimGit}, verdictKeep, "", true},
		},
		"folder removed without git": {
			{&change{path: "memory-bank/old", b: dir}, finding{}, verdictUndo, "made by an allowed", false},
			{&change{path: "memory-bank/old/f.md", b: file("f")}, finding{claim: claimNone}, verdictUndo, "allowed write tool", false},
		},
	}
	for name, rows := range cases {
		t.Run(name, func(t *testing.T) {
			var changes []*change
			var found []finding
			for _, r := range rows {
				changes, found = append(changes, r.change), append(found, r.found)
			}
			own := ownershipOf([]Call{write}, []Call{other}, false)
			v, why := verdicts(changes, found, own, rows[0].gitWork)
			for i, r := range rows {
				if v[i] != r.want {
					t.Errorf("%s: verdict %d, want %d (why %v)", r.change.path, v[i], r.want, why[i])
				}
				if r.want == verdictUndo && !slices.ContainsFunc(why[i], func(p Problem) bool { return strings.Contains(p.Text, r.whyHas) }) {
					t.Errorf("%s: why %v, want a reason with %q", r.change.path, why[i], r.whyHas)
				}
				if r.want != verdictUndo && why[i] != nil {
					t.Errorf("%s: kept or left with reasons %v", r.change.path, why[i])
				}
			}
		})
	}
}

// TestOwnershipFolds: where the file system folds case, an allowed path names the file
// whatever its case.
func TestOwnershipFolds(t *testing.T) {
	owners := []Call{{Allowed: []string{"memory-bank/memory.md"}}}
	if got := ownershipOf(owners, nil, true).claim("memory-bank/MEMORY.md"); got != claimMine {
		t.Errorf("folded claim = %d, want mine", got)
	}
	if got := ownershipOf(owners, nil, false).claim("memory-bank/MEMORY.md"); got != claimNone {
		t.Errorf("claim = %d, want none", got)
	}
	both := ownershipOf(owners, owners, false)
	if got := both.claim("memory-bank/memory.md"); got != claimMine {
		t.Errorf("a path both may write = %d, want mine", got)
	}
}
