package lifecycle

import (
	"context"
	"strings"
	"testing"
)

// The preview is what the migration writes: every file it shows is, after --apply, exactly its
// new content; and the preview changes nothing.
func TestPreviewMatchesApply(t *testing.T) {
	for _, name := range []string{"cline", "legacy-outside", "cursor-rules", "hidden"} {
		t.Run(name, func(t *testing.T) {
			var root string
			if name == "legacy-outside" {
				root = outsideRepo(t)
			} else {
				root = historyRepo(t, name)
			}
			o := opts(root)
			o.Apply = false
			_, pv, err := PreviewMigration(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(pv.Files) == 0 || pv.Files[0].Path != "memory-bank/MEMORY.md" {
				t.Fatalf("preview files %+v", pv.Files)
			}
			if read(t, root, "memory-bank/MEMORY.md") != nil {
				t.Fatal("the preview wrote MEMORY.md")
			}
			if _, err := Migrate(context.Background(), opts(root)); err != nil {
				t.Fatal(err)
			}
			for _, f := range pv.Files {
				if got := read(t, root, f.Path); string(got) != string(f.New) {
					t.Errorf("%s after --apply differs from the preview:\n%s\n---\n%s", f.Path, got, f.New)
				}
			}
			if d := pv.Diff(); !strings.Contains(d, "+++ b/memory-bank/MEMORY.md\n") {
				t.Errorf("diff lacks MEMORY.md:\n%s", d)
			}
		})
	}
}
