package gating

import (
	"strings"
	"testing"
)

// TestResultingFile: writes into the bank are judged on the file they produce (issue 8 §2).
func TestResultingFile(t *testing.T) {
	half := testSecret[:20]
	rest := testSecret[20:]
	withHalf := func(fx *memFacts) { fx.files["memory-bank/details/tech.md"] = "# Tech\ntoken: " + half + "\n" }
	withWhole := func(fx *memFacts) {
		fx.files["memory-bank/details/tech.md"] = "# Tech\ntoken: " + testSecret + "\n\n## Other\n- a\n"
	}
	cases := []struct {
		name  string
		prep  func(fx *memFacts)
		c     call
		block bool
		inMsg string
	}{
		{"second edit completes a secret", withHalf, ccEdit("memory-bank/details/tech.md", half+"\n", half+rest+"\n"), true, "secret"},
		{"edit appends the second half on its own", withHalf, ocEdit("memory-bank/details/tech.md", half, half+rest), true, "secret"},
		{"patch completes a secret", withHalf, ocPatch(codex("*** Update File: memory-bank/details/tech.md\n@@\n # Tech\n-token: " + half + "\n+token: " + half + rest + "\n")), true, "secret"},
		{"ok edit next to an old secret", withWhole, ocEdit("memory-bank/details/tech.md", "- a\n", "- a\n- b\n"), false, ""},
		{"ok edit in the same paragraph as an old secret", withWhole, ocEdit("memory-bank/details/tech.md", "# Tech\n", "# Tech stack\n"), false, ""},
		{"space-less marker", nil, ocEdit("memory-bank/details/tech.md", "# Tech\n", "# Tech\n<!--USER_BLOCK_START-->\n"), true, "looks like a block marker"},
		{"misspelt marker", nil, ccEdit("memory-bank/MEMORY.md", "A demo.\n", "A demo.\n<!-- USER_BLOK_END -->\n"), true, "looks like a block marker"},
		{"template marker removed", nil, ocEdit("memory-bank/MEMORY.md", "<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n", ""), true, "template marker"},
		{"template marker lowered", nil, ocEdit("memory-bank/MEMORY.md", "TEMPLATE:v7.1", "TEMPLATE:v7.0"), true, "lower"},
		{"template marker lowered by write", nil, ocWrite("memory-bank/MEMORY.md", strings.Replace(memoryMD, "v7.1", "v6.9", 1)), true, "lower"},
		{"ok template marker raised", nil, ocEdit("memory-bank/MEMORY.md", "TEMPLATE:v7.1", "TEMPLATE:v7.2"), false, ""},
		{"ok marker inside a code fence", nil, ocEdit("memory-bank/details/tech.md", "# Tech\n", "# Tech\n```\n<!--USER_BLOCK_START-->\n```\n"), false, ""},
		{"ok template marker elsewhere", nil, ocEdit("memory-bank/details/tech.md", "# Tech\n", "# Tech\nno template here\n"), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFacts(bankFiles())
			if tc.prep != nil {
				tc.prep(fx)
			}
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), fx, tc.c.host)
			d := s.before(tc.c.tool, tc.c.args)
			if tc.block {
				if d.Verdict != Block || d.Gate != GateBank {
					t.Fatalf("decision = %s/%s (%q), want block/bank", d.Verdict, d.Gate, d.Message)
				}
				wantMsg(t, d, tc.inMsg, "Next:")
				if strings.Contains(d.Message, testSecret) || strings.Contains(d.Message, half) {
					t.Fatal("message leaks the secret")
				}
				return
			}
			if d.Verdict != Allow {
				t.Fatalf("decision = %s/%s (%q), want allow", d.Verdict, d.Gate, d.Message)
			}
		})
	}
}

func TestChangedRegion(t *testing.T) {
	old := "a\nb\n\nc\nd\ne\n\nf\n"
	next := "a\nb\n\nc\nD\ne\n\nf\n"
	nr, or := changedRegion(old, next)
	if nr != "\nc\nD\ne\n\n" || or != "\nc\nd\ne\n\n" {
		t.Fatalf("regions = %q, %q", nr, or)
	}
	if nr, _ := changedRegion("", "x\n"); nr != "x\n" {
		t.Fatalf("new file region = %q", nr)
	}
	if nr, _ := changedRegion("x\n", "x\n"); strings.TrimSpace(nr) != "" {
		t.Fatalf("no change region = %q", nr)
	}
}

// FuzzChangedRegion: the region is always a stretch of the new file, and covers every changed
// line, so no change escapes the secret scan.
func FuzzChangedRegion(f *testing.F) {
	f.Add("a\nb\n", "a\nB\n")
	f.Add("", "x")
	f.Add("x\n\ny\n", "x\n\ny\nz")
	f.Add("k: ghp_abc\n", "k: ghp_abcdef\n")
	f.Fuzz(func(t *testing.T, old, next string) {
		nr, or := changedRegion(old, next)
		if !strings.Contains(next, nr) || !strings.Contains(old, or) {
			t.Fatalf("regions %q / %q are not stretches of the files", nr, or)
		}
		if old != next && nr == "" && or == "" {
			t.Fatalf("a change with empty regions")
		}
		// every line of next that is not in old lies inside the region
		have := map[string]bool{}
		for _, l := range strings.SplitAfter(old, "\n") {
			have[l] = true
		}
		for _, l := range strings.SplitAfter(next, "\n") {
			if !have[l] && !strings.Contains(nr, l) {
				t.Fatalf("changed line %q outside region %q", l, nr)
			}
		}
	})
}
