package stale

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

var update = flag.Bool("update", false, "rewrite testdata/fixtures.golden (then judge every new line by hand)")

// The public-bank fixtures migrate is tested with, each committed into a repository of its
// own, checked for stale references. Every finding was judged by hand once and recorded in
// testdata/fixtures.golden as "ok" (a real stale reference) or "wrong"; the budget is at
// most one wrong finding in twenty.
func TestFixtureBanksFalsePositiveBudget(t *testing.T) {
	src := filepath.Join("..", "lifecycle", "testdata")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	hash := regexp.MustCompile(`in [0-9a-f]{12} `)
	var got []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "fuzz" {
			continue
		}
		if _, err := os.Stat(filepath.Join(src, e.Name(), "memory-bank")); err != nil {
			continue // a bank kept elsewhere (Cursor rules, .memory-bank/): checked once migrated
		}
		root := testgit.New(t)
		if err := os.CopyFS(root, os.DirFS(filepath.Join(src, e.Name()))); err != nil {
			t.Fatal(err)
		}
		testgit.Commit(t, root, "bank")
		res, err := Check(context.Background(), root, readNotes(t, root), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			got = append(got, e.Name()+"/"+f.Path+":"+strconv.Itoa(f.Line)+" "+f.Rule+" "+hash.ReplaceAllString(f.Message, "in COMMIT "))
		}
	}
	golden := filepath.Join("testdata", "fixtures.golden")
	if *update {
		var b strings.Builder
		for _, g := range got {
			b.WriteString("judge " + g + "\n")
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	wrong := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		verdict, finding, _ := strings.Cut(l, " ")
		switch verdict {
		case "ok":
		case "wrong":
			wrong++
		default:
			t.Errorf("%s: %q is not judged (ok or wrong)", golden, l)
		}
		want = append(want, finding)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings changed; judge them and update %s:\n got:\n%s\nwant:\n%s", golden, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if wrong*20 > len(want) {
		t.Errorf("%d of %d findings wrong: over the budget of 1 in 20", wrong, len(want))
	}
}
