package scanner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
)

// A 64 MB .md (sparse: no disk is spent) is named too large by check --all and check
// --staged with its exact size, once, and Disk never reads it: the test counts the bytes
// readFile returns per file.
func TestCheckTooLargeFileNotRead(t *testing.T) {
	root := testgit.New(t)
	if err := os.MkdirAll(filepath.Join(root, bank.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, bank.Dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(root, bank.Dir, "small.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testgit.Git(t, root, "add", bank.Dir)
	read := map[string]int{}
	old := readFile
	readFile = func(name string) ([]byte, error) {
		b, err := old(name)
		read[filepath.Base(name)] += len(b)
		return b, err
	}
	t.Cleanup(func() { readFile = old })
	o := Options{Minimum: bank.CurrentTemplate, AllowedFiles: nil}
	for name, produce := range map[string]func(context.Context, func(File) error) error{
		"all": func(ctx context.Context, emit func(File) error) error {
			return Disk(ctx, root, []string{bank.Dir}, emit)
		},
		"staged": func(ctx context.Context, emit func(File) error) error { return Staged(ctx, root, emit) },
	} {
		t.Run(name, func(t *testing.T) {
			fs, err := Check(context.Background(), o, func(emit func(File) error) error { return produce(context.Background(), emit) })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.Path == bank.Dir+"/big.md" {
					got = append(got, f.Rule+": "+f.Message)
				}
			}
			want := []string{RuleTooLarge + ": is 64.0 MB, over the 10 MB limit (10485760 bytes); not read, so not checked"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("findings for big.md = %q, want %q", got, want)
			}
		})
	}
	if read["big.md"] != 0 || read["small.md"] == 0 {
		t.Errorf("bytes read per file: %v; want big.md unread and small.md read", read)
	}
}

func TestTooLargeMessage(t *testing.T) {
	for size, want := range map[int64]string{
		MaxFileSize + 1:              "is 10485761 bytes, over the 10 MB limit (10485760 bytes); not read, so not checked",
		MaxFileSize + MaxFileSize/25: "is 10.4 MB, over the 10 MB limit (10485760 bytes); not read, so not checked",
		3 * MaxFileSize:              "is 30.0 MB, over the 10 MB limit (10485760 bytes); not read, so not checked",
	} {
		if got := tooLargeMessage(size); got != want {
			t.Errorf("tooLargeMessage(%d) = %q, want %q", size, got, want)
		}
	}
}
