package engine

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	. "github.com/mbguard/mbguard/scanner"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// TestGitleaksTestdataParity runs what `mbguard check --all` runs (Disk, then Check with the
// secret scan) over gitleaks' own testdata/ from the pinned module: every text file is copied
// into a fresh repository's memory-bank/ as a .md file (its path flattened, so the bank has
// no subfolders to trip other rules). The secret findings must be exactly those gitleaks'
// detector (default rules, decoding as its CLI does) reports on the same bytes at the same
// path. Binary files (a NUL in the first 8000 bytes: the archives, git objects) are left out:
// check reports them as non-Markdown and never scans them.
func TestGitleaksTestdataParity(t *testing.T) {
	dir, err := gitleaksDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "testdata")
	root := testgit.New(t)
	if err := os.MkdirAll(filepath.Join(root, bank.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	ref := readySecrets(t, "")
	var want []string
	files := 0
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		name := bank.Dir + "/" + strings.NewReplacer("/", "__", ".", "_").Replace(filepath.ToSlash(rel)) + ".md"
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), b, 0o644); err != nil {
			return err
		}
		files++
		for _, f := range ref.full().Detect(detect.Fragment{Raw: string(b), FilePath: name, StartLine: 1}) {
			want = append(want, fmt.Sprintf("%s:%d %s", name, max(f.StartLine, 1), f.RuleID))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Check(context.Background(), Options{Minimum: bank.CurrentTemplate, Secrets: NewSecrets(root)},
		func(emit func(File) error) error { return Disk(context.Background(), root, []string{bank.Dir}, emit) })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		if rule, ok := strings.CutPrefix(f.Rule, SecretRulePrefix); ok {
			got = append(got, fmt.Sprintf("%s:%d %s", f.Path, f.Line, rule))
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if len(want) < 10 {
		t.Fatalf("gitleaks finds only %d secrets in %d files of its testdata: the test lost its fixtures", len(want), files)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("check --all found %d secrets, gitleaks' detector %d\n only check: %v\n only gitleaks: %v", len(got), len(want), minus(got, want), minus(want, got))
	}
	t.Logf("%d files, %d secrets, the same as gitleaks'", files, len(got))
}

// minus returns the items of a not in b (as multisets).
func minus(a, b []string) []string {
	n := map[string]int{}
	for _, x := range b {
		n[x]++
	}
	var out []string
	for _, x := range a {
		if n[x] > 0 {
			n[x]--
			continue
		}
		out = append(out, x)
	}
	return out
}
