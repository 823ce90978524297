package lifecycle

import (
	"context"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

func TestRewriteLinks(t *testing.T) {
	moved := map[string]string{
		"memory-bank/techContext.md":    "memory-bank/details/tech.md",
		"memory-bank/systemPatterns.md": "memory-bank/details/patterns.md",
		"memory-bank/docs/a b.md":       "memory-bank/details/design/a b.md",
		"memory-bank/docs":              "memory-bank/details/design",
		"memory-bank/brief.md":          "memory-bank/MEMORY.md",
	}
	existed := map[string]bool{"README.md": true, "memory-bank/notes.md": true, "memory-bank/img.png": true}
	r := linkResolver{
		moved:   func(p string) (string, bool) { t, ok := moved[p]; return t, ok },
		existed: func(p string) bool { return existed[p] },
	}
	tests := []struct {
		name, in, want string
		oldFile        string // default memory-bank/notes.md, not moved
		newFile        string
		broken         []string
	}{
		{name: "moved target", in: "[t](techContext.md)", want: "[t](details/tech.md)"},
		{name: "dot slash and fragment", in: "[t](./systemPatterns.md#money)", want: "[t](details/patterns.md#money)"},
		{name: "title kept", in: `[t](techContext.md "Tech")`, want: `[t](details/tech.md "Tech")`},
		{name: "angle brackets", in: "[t](<techContext.md>)", want: "[t](<details/tech.md>)"},
		{name: "escaped space", in: "[t](docs/a%20b.md)", want: "[t](details/design/a%20b.md)"},
		{name: "folder link", in: "[d](docs/)", want: "[d](details/design/)"},
		{name: "image", in: "![i](img.png)", want: "![i](img.png)"},
		{name: "reference definition", in: "[p]: systemPatterns.md", want: "[p]: details/patterns.md"},
		{name: "deleted entry points at MEMORY.md", in: "[b](brief.md)", want: "[b](MEMORY.md)"},
		{name: "url, anchor, absolute, mail", in: "[u](https://x/techContext.md) [a](#x) [s](/techContext.md) [m](mailto:a@b)", want: "[u](https://x/techContext.md) [a](#x) [s](/techContext.md) [m](mailto:a@b)"},
		{name: "inline code", in: "`[t](techContext.md)` and [t](techContext.md)", want: "`[t](techContext.md)` and [t](details/tech.md)"},
		{name: "fenced code", in: "```\n[t](techContext.md)\n```\n", want: "```\n[t](techContext.md)\n```\n"},
		{name: "indented code", in: "    [t](techContext.md)\n", want: "    [t](techContext.md)\n"},
		{name: "missing before", in: "[g](gone.md) [t](techContext.md)", want: "[g](gone.md) [t](details/tech.md)", broken: []string{"gone.md"}},
		{name: "leaves the repository", in: "[x](../../../etc/passwd)", want: "[x](../../../etc/passwd)"},
		{name: "moved file, outside target", in: "[r](../README.md)", want: "[r](../../README.md)",
			oldFile: "memory-bank/techContext.md", newFile: "memory-bank/details/tech.md"},
		{name: "moved file, sibling moved too", in: "[p](systemPatterns.md)", want: "[p](patterns.md)",
			oldFile: "memory-bank/techContext.md", newFile: "memory-bank/details/tech.md"},
		{name: "moved file, sibling stays", in: "[n](notes.md)", want: "[n](../notes.md)",
			oldFile: "memory-bank/techContext.md", newFile: "memory-bank/details/tech.md"},
		{name: "crlf kept", in: "[t](techContext.md)\r\nnext\r\n", want: "[t](details/tech.md)\r\nnext\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldFile, newFile := tc.oldFile, tc.newFile
			if oldFile == "" {
				oldFile, newFile = "memory-bank/notes.md", "memory-bank/notes.md"
			}
			out, rw, un := rewriteLinks([]byte(tc.in), oldFile, newFile, r)
			got := tc.in
			if out != nil {
				got = string(out)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if (out != nil) != (len(rw) > 0) {
				t.Errorf("content changed: %v, rewritten links: %v", out != nil, rw)
			}
			var broken []string
			for _, l := range un {
				broken = append(broken, l.Target)
			}
			if strings.Join(broken, ",") != strings.Join(tc.broken, ",") {
				t.Errorf("unresolved %v, want %v", broken, tc.broken)
			}
		})
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{"memory-bank", "memory-bank/details/tech.md", "details/tech.md"},
		{"memory-bank/details", "memory-bank/details/tech.md", "tech.md"},
		{"memory-bank/details/design", "memory-bank/details/tech.md", "../tech.md"},
		{"memory-bank/details/archive", "memory-bank/details/design/creative/a.md", "../design/creative/a.md"},
		{"memory-bank/details", "README.md", "../../README.md"},
		{".", "memory-bank/MEMORY.md", "memory-bank/MEMORY.md"},
	}
	for _, tc := range tests {
		if got := relPath(tc.dir, tc.target); got != tc.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tc.dir, tc.target, got, tc.want)
		}
	}
}

// FuzzRewriteLinks: no input panics, nothing changes when nothing moved, and a rewrite never
// touches text outside link targets (the line count and every non-link byte run stay).
func FuzzRewriteLinks(f *testing.F) {
	for _, s := range []string{"[t](a.md)", "```\n[t](a.md)\n```", "`[x](a.md)` [y](<a b.md>)", "[p]: a.md \"t\"", "](", "[](%zz)", "![i](../../a.md#x?y)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		same := linkResolver{moved: func(string) (string, bool) { return "", false }, existed: func(string) bool { return true }}
		if out, rw, _ := rewriteLinks([]byte(s), "memory-bank/x.md", "memory-bank/x.md", same); out != nil || len(rw) != 0 {
			t.Fatalf("changed with nothing moved: %q -> %q", s, out)
		}
		all := linkResolver{moved: func(p string) (string, bool) { return "memory-bank/details/" + p, true }, existed: func(string) bool { return true }}
		out, _, _ := rewriteLinks([]byte(s), "memory-bank/x.md", "memory-bank/details/x.md", all)
		if out != nil && strings.Count(string(out), "\n") != strings.Count(s, "\n") {
			t.Fatalf("line count changed: %q -> %q", s, out)
		}
	})
}

// TestMigrateRewritesCodeSpansInBank: a Cline bank names its own files in code spans, relative to
// the bank (`tasks/`, `activeContext.md`) or from the root (`memory-bank/progress.md`), as
// CivWeb-Lite's memory-bank/AGENTS.md does. After the moves they must name the new places (a
// merged file names MEMORY.md); fenced code and spans that name no bank path stay as written,
// and --diff shows the same text --apply writes.
func TestMigrateRewritesCodeSpansInBank(t *testing.T) {
	root := testgit.New(t)
	testgit.Write(t, root, "memory-bank/projectbrief.md", "# Brief\n\nA game.\n")
	testgit.Write(t, root, "memory-bank/activeContext.md", "# Active\n\nWorking on `tasks/TASK001-x.md`.\n")
	testgit.Write(t, root, "memory-bank/progress.md", "# Progress\n")
	testgit.Write(t, root, "memory-bank/techContext.md", "# Tech\n")
	testgit.Write(t, root, "memory-bank/tasks/TASK001-x.md", "# Task 1\n")
	testgit.Write(t, root, "memory-bank/AGENTS.md", "# Bank\n\n- `projectbrief.md` — goals.\n- `tasks/` — tasks; `memory-bank/progress.md` and `./techContext.md`.\n- `src/app.ts` and `make build` stay.\n\n```sh\ncat memory-bank/progress.md\n```\n")
	testgit.Commit(t, root, "cline bank")
	o := opts(root)
	o.Apply = false
	_, pv, err := PreviewMigration(o)
	if err != nil {
		t.Fatal(err)
	}
	var previewed []byte
	for _, f := range pv.Files {
		if f.Path == "memory-bank/AGENTS.md" {
			previewed = f.New
		}
	}
	if _, err := Migrate(context.Background(), opts(root)); err != nil {
		t.Fatal(err)
	}
	got := string(read(t, root, "memory-bank/AGENTS.md"))
	want := "# Bank\n\n- `MEMORY.md` — goals.\n- `details/tasks/` — tasks; `memory-bank/details/progress.md` and `details/tech.md`.\n- `src/app.ts` and `make build` stay.\n\n```sh\ncat memory-bank/progress.md\n```\n"
	if got != want {
		t.Errorf("AGENTS.md after migrate:\n%s\nwant:\n%s", got, want)
	}
	if string(previewed) != got {
		t.Errorf("--diff showed:\n%s\n--apply wrote:\n%s", previewed, got)
	}
	if mem := string(read(t, root, "memory-bank/MEMORY.md")); !strings.Contains(mem, "`details/tasks/TASK001-x.md`") {
		t.Errorf("MEMORY.md keeps the old task path:\n%s", mem)
	}
}
