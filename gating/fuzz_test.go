package gating

import (
	"strings"
	"testing"
)

func FuzzCanon(f *testing.F) {
	for _, s := range []struct{ raw, cwd string }{
		{"memory-bank/MEMORY.md", ""}, {`..\..\etc\passwd`, "/repo/src"}, {"./a/../../b", "src"}, {"~/x", ""},
		{"C:\\repo\\x.md", ""}, {"/repo/docs/x.md", ""}, {"", ""}, {"/", "/repo"}, {"a//b/./c/", "/repo/"},
		{"Memory-Bank/Details/../MEMORY.md", "/REPO"},
	} {
		f.Add(s.raw, s.cwd, false)
		f.Add(s.raw, s.cwd, true)
	}
	f.Fuzz(func(t *testing.T, raw, cwd string, ci bool) {
		fx := newFacts(nil)
		fx.ci = ci
		fx.links["/repo/docs"] = "/repo/memory-bank"
		fx.links["/repo/memory-bank/out"] = "/tmp"
		rel, in := Canon(raw, cwd, fx)
		if strings.HasPrefix(rel, "../") || rel == ".." {
			t.Fatalf("Canon(%q, %q) = %q escapes upward", raw, cwd, rel)
		}
		if !in {
			if inBank(rel) {
				t.Fatalf("outside path %q is a bank path", rel)
			}
			return
		}
		if strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) && !strings.Contains(raw, `\`) {
			t.Fatalf("in-repo path %q is not relative", rel)
		}
		again, in2 := Canon(rel, "", fx)
		if again != rel || !in2 {
			t.Fatalf("not idempotent: Canon(%q, %q) = %q, then %q (%v)", raw, cwd, rel, again, in2)
		}
	})
}

func FuzzParsePatch(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Add File: memory-bank/a.md\n+x\n*** Update File: b.go\n@@\n ctx\n-a\n+b\n*** Delete File: c\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: a.md\n*** Move to: b.md\n@@\n-x\n+y\n*** End of File\n*** End Patch",
		"diff --git a/x b/y\nrename from x\nrename to y\n",
		"diff --git \"a/q x\" \"b/q x\"\n--- \"a/q x\"\n+++ \"b/q x\"\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
		"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n",
		"--- a\n+++ a\n@@ -1 +1 @@\n--- x\n+++ y\n",
		"@@ -x,y +z @@\n+\n",
	} {
		f.Add(s, "a\nb\nctx\nx\n")
	}
	f.Fuzz(func(t *testing.T, text, old string) {
		for _, pf := range ParsePatch(text) {
			if pf.Path == "" {
				t.Fatalf("file without a path: %+v", pf)
			}
			switch pf.Op {
			case PatchAdd, PatchUpdate, PatchDelete, PatchMove:
			default:
				t.Fatalf("unknown op %q", pf.Op)
			}
			if pf.Op == PatchMove && pf.To == "" {
				t.Fatalf("move without a destination: %+v", pf)
			}
			if got, ok := pf.Apply(old); ok && pf.Op == PatchAdd && got != pf.Added {
				t.Fatalf("add applied to %q, want its added text", got)
			}
		}
	})
}

// FuzzCanonWindows is FuzzCanon on Windows roots (a drive in either case, a share): besides
// the properties above, every Windows spelling of one path — the drive letter's case, \\?\,
// MSYS /c/, a dot or space Windows drops at the end of the last name — canonicalises to the
// same path, so no spelling reaches the bank that another spelling would be refused for.
func FuzzCanonWindows(f *testing.F) {
	for _, s := range []struct{ raw, cwd string }{
		{`c:\w\repo\memory-bank\details\ok.md`, ""}, {`C:/w/repo/memory-bank/a.json`, `C:\w\repo`},
		{"/c/w/repo/memory-bank/a.json", ""}, {`\\?\C:\w\repo\memory-bank\a.json`, ""},
		{`memory-bank.\x.json`, ""}, {`..\..\repo\memory-bank\MEMORY.md`, `c:\w\repo\src`},
		{`\\srv\share\repo\memory-bank\x.md`, ""}, {`\\?\UNC\srv\share\repo\x`, ""},
		{`Memory-Bank\MEMORY.md. `, "/c/w/repo"}, {"/cygdrive/C/w/repo/x", ""}, {`D:x`, ""}, {"C:", ""},
	} {
		for root := range uint8(3) {
			f.Add(s.raw, s.cwd, root, false)
			f.Add(s.raw, s.cwd, root, true)
		}
	}
	roots := [...]string{`C:\w\repo`, `c:\W\Repo`, `\\srv\share\repo`}
	f.Fuzz(func(t *testing.T, raw, cwd string, root uint8, ci bool) {
		fx := newFacts(nil)
		fx.root, fx.ci = roots[int(root)%len(roots)], ci
		rel, in := Canon(raw, cwd, fx)
		if strings.HasPrefix(rel, "../") || rel == ".." {
			t.Fatalf("Canon(%q, %q) = %q escapes upward", raw, cwd, rel)
		}
		if !in && inBank(rel) {
			t.Fatalf("outside path %q is a bank path", rel)
		}
		if in {
			if strings.HasPrefix(rel, "/") || hasDrive(rel) || strings.Contains(rel, `\`) {
				t.Fatalf("Canon(%q, %q) = %q: an in-repo path is not relative", raw, cwd, rel)
			}
			if again, in2 := Canon(rel, "", fx); again != rel || !in2 {
				t.Fatalf("not idempotent: Canon(%q, %q) = %q, then %q (%v)", raw, cwd, rel, again, in2)
			}
		}
		if strings.ContainsRune(raw, 0) || strings.HasPrefix(raw, "~") {
			return
		}
		for _, alt := range windowsSpellings(raw) {
			if got, gin := Canon(alt, cwd, fx); got != rel && (in || gin) || gin != in {
				t.Fatalf("Canon(%q, %q) = %q (%v) but its spelling %q gives %q (%v)", raw, cwd, rel, in, alt, got, gin)
			}
		}
	})
}

// windowsSpellings returns other spellings Windows accepts for the path raw.
func windowsSpellings(raw string) []string {
	p := strings.ReplaceAll(raw, `\`, "/")
	alts := []string{strings.ReplaceAll(raw, "/", `\`)}
	if hasDrive(p) {
		d := p[0] ^ 0x20
		alts = append(alts, string(d)+p[1:])
		if len(p) > 2 && p[2] == '/' {
			alts = append(alts, `\\?\`+p, "/"+string(d)+p[2:])
		}
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	if last != "" && strings.Trim(last, ".") != "" && strings.TrimRight(last, ". ") == last && !hasDrive(last) {
		alts = append(alts, raw+".", raw+" ", raw+" .")
	}
	return alts
}
