package gating

import (
	"reflect"
	"testing"
)

type patchSummary struct {
	Op       PatchOp
	Path, To string
	Added    string
}

func summarize(fs []PatchFile) []patchSummary {
	var out []patchSummary
	for _, f := range fs {
		out = append(out, patchSummary{f.Op, f.Path, f.To, f.Added})
	}
	return out
}

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name, text string
		want       []patchSummary
	}{
		{
			name: "codex add update delete move",
			text: "*** Begin Patch\n*** Add File: memory-bank/new.md\n+# New\n+line\n*** Update File: src/a.ts\n@@ fn\n ctx\n-old\n+new\n*** Delete File: old.txt\n*** Update File: a.md\n*** Move to: b.md\n@@\n-x\n+y\n*** End Patch\n",
			want: []patchSummary{
				{PatchAdd, "memory-bank/new.md", "", "# New\nline\n"},
				{PatchUpdate, "src/a.ts", "", "new\n"},
				{PatchDelete, "old.txt", "", ""},
				{PatchMove, "a.md", "b.md", "y\n"},
			},
		},
		{
			name: "codex without begin line",
			text: "*** Update File: x.go\n@@\n-a\n+b\n",
			want: []patchSummary{{PatchUpdate, "x.go", "", "b\n"}},
		},
		{
			name: "git unified update",
			text: "diff --git a/src/a.go b/src/a.go\nindex 1..2 100644\n--- a/src/a.go\n+++ b/src/a.go\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n",
			want: []patchSummary{{PatchUpdate, "src/a.go", "", "new\n"}},
		},
		{
			name: "git new and deleted files",
			text: "diff --git a/n.md b/n.md\nnew file mode 100644\n--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+hello\ndiff --git a/d.md b/d.md\ndeleted file mode 100644\n--- a/d.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
			want: []patchSummary{{PatchAdd, "n.md", "", "hello\n"}, {PatchDelete, "d.md", "", ""}},
		},
		{
			name: "git rename",
			text: "diff --git a/memory-bank/MEMORY.md b/MEMORY.md\nsimilarity index 100%\nrename from memory-bank/MEMORY.md\nrename to MEMORY.md\n",
			want: []patchSummary{{PatchMove, "memory-bank/MEMORY.md", "MEMORY.md", ""}},
		},
		{
			name: "plain unified with timestamps, two files",
			text: "--- a.txt\t2024-01-01\n+++ a.txt\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n--- b.txt\n+++ b.txt\n@@ -1 +1 @@\n-p\n+q\n",
			want: []patchSummary{{PatchUpdate, "a.txt", "", "y\n"}, {PatchUpdate, "b.txt", "", "q\n"}},
		},
		{
			name: "hunk line that looks like a header",
			text: "--- a/x.md\n+++ b/x.md\n@@ -1,2 +1,2 @@\n--- old rule\n+++ new rule\n",
			want: []patchSummary{{PatchUpdate, "x.md", "", "++ new rule\n"}},
		},
		{
			name: "quoted git names",
			text: "diff --git \"a/my file.md\" \"b/my file.md\"\n--- \"a/my file.md\"\n+++ \"b/my file.md\"\n@@ -1 +1 @@\n-a\n+b\n",
			want: []patchSummary{{PatchUpdate, "my file.md", "", "b\n"}},
		},
		{
			name: "plain unified delete",
			text: "--- a/old.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
			want: []patchSummary{{PatchDelete, "old.md", "", ""}},
		},
		{name: "garbage", text: "hello\nworld", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(ParsePatch(tc.text))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParsePatch:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestPatchApply(t *testing.T) {
	old := "a\nb\nc\nd\n"
	tests := []struct {
		name, patch, want string
		ok                bool
	}{
		{"codex replace", "*** Update File: f\n@@\n b\n-c\n+C\n", "a\nb\nC\nd\n", true},
		{"two hunks", "*** Update File: f\n@@\n-a\n+A\n@@\n-d\n+D\n", "A\nb\nc\nD\n", true},
		{"trailing whitespace tolerated", "*** Update File: f\n@@\n b  \n-c\n+C\n", "a\nb\nC\nd\n", true},
		{"unified", "--- f\n+++ f\n@@ -2,2 +2,2 @@\n b\n-c\n+X\n", "a\nb\nX\nd\n", true},
		{"not found", "*** Update File: f\n@@\n-zzz\n+y\n", "", false},
		{"pure insertion appends", "*** Update File: f\n@@\n+e\n", "a\nb\nc\nd\ne\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := ParsePatch(tc.patch)
			if len(fs) != 1 {
				t.Fatalf("parsed %d files", len(fs))
			}
			got, ok := fs[0].Apply(old)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("Apply = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
