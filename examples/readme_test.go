package examples

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
)

// TestREADMECommands runs every sh block of examples/README.md as written, from the root of
// the clone, with `go run ./cmd/mbguard` standing for a binary built once, and checks what
// the README says each block shows.
func TestREADMECommands(t *testing.T) {
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(md, -1)
	want := []struct {
		exit  int
		rules []string // rule names the output must hold, each as often as listed
	}{
		{0, nil}, // the demo (its steps are checked by cmd/mbguard's TestDemoBundled)
		{0, nil}, // good-bank: clean
		{1, []string{"template-outdated", "marker-malformed", "marker-unclosed", "marker-unclosed", "non-md"}},
	}
	if len(blocks) != len(want) {
		t.Fatalf("README.md has %d sh blocks, the test knows %d: update the test with the README", len(blocks), len(want))
	}
	bin := filepath.Join(t.TempDir(), "mbguard")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/mbguard").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	testgit.Isolate(t) // after the build: it moves HOME, and with it go's default build cache
	for i, b := range blocks {
		script := strings.ReplaceAll(string(b[1]), "go run ./cmd/mbguard", bin)
		cmd := exec.Command("bash", "-ec", script)
		cmd.Dir = ".." // the root of the clone, as the README says
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want[i].exit {
			t.Errorf("block %d exited %d, want %d:\n%s\n%s%s", i+1, code, want[i].exit, b[1], stdout.String(), stderr.String())
			continue
		}
		if want[i].rules == nil && i > 0 && stdout.Len() > 0 {
			t.Errorf("block %d printed findings, want none:\n%s", i+1, stdout.String())
		}
		counts := map[string]int{}
		for _, r := range want[i].rules {
			counts[r]++
		}
		for r, n := range counts {
			if got := len(regexp.MustCompile(`(?m)^memory-bank/\S+ `+regexp.QuoteMeta(r)+` `).FindAllString(stdout.String(), -1)); got != n {
				t.Errorf("block %d: %d %s findings, want %d:\n%s", i+1, got, r, n, stdout.String())
			}
		}
	}
}
