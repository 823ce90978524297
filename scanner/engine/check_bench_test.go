package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	. "github.com/mbguard/mbguard/scanner"

	"github.com/mbguard/mbguard/bank"
	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

// benchRepo builds bench/check's fixture (gen.py, so the Go benchmark and bench/check/run.sh
// measure the same Markdown) in a fresh repository: files Markdown files of about size bytes,
// staged but not committed.
func benchRepo(b *testing.B, files, size int) string {
	b.Helper()
	py := testhost.Tool(b, "python3", "install python3 (it generates bench/check's fixture)")
	root := testgit.New(b)
	gen := filepath.Join(testhost.ModuleRoot(b), "bench", "check", "gen.py")
	cmd := exec.Command(py, gen, root, strconv.Itoa(files), strconv.Itoa(size), "1")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("gen.py: %v\n%s", err, out)
	}
	testgit.Git(b, root, "add", bank.Dir)
	return root
}

// BenchmarkCheckStaged is `mbguard check --staged` on bench/check's 200-file fixture, minus
// process start. Profile it with
//
//	go test ./scanner/engine -run '^$' -bench CheckStaged -benchtime 3x -cpuprofile /tmp/cpu.out
func BenchmarkCheckStaged(b *testing.B) {
	root := benchRepo(b, 200, 25000)
	benchCheck(b, root, func(ctx context.Context, emit func(File) error) error { return Staged(ctx, root, emit) })
}

// BenchmarkCheckAll is `mbguard check --all` on the same fixture, to compare the two paths.
func BenchmarkCheckAll(b *testing.B) {
	root := benchRepo(b, 200, 25000)
	benchCheck(b, root, func(ctx context.Context, emit func(File) error) error {
		return Disk(ctx, root, []string{bank.Dir}, emit)
	})
}

func benchCheck(b *testing.B, root string, produce func(context.Context, func(File) error) error) {
	ctx := context.Background()
	var size int64
	filepath.WalkDir(filepath.Join(root, bank.Dir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	b.SetBytes(size)
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
	b.ResetTimer()
	for b.Loop() {
		o := Options{Minimum: bank.CurrentTemplate, AllowedFiles: []string{".gitkeep"}, Secrets: NewSecrets(root)}
		fs, err := Check(ctx, o, func(emit func(File) error) error { return produce(ctx, emit) })
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) == 0 {
			b.Fatal("no findings: the fixture's generated tokens were missed")
		}
	}
}
