// Package action tests the GitHub Action's script (action.yml runs action/run.sh) against a
// fixture repository, the way a workflow runner would: the real mbguard binary on PATH, the
// runner's GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files. The runner itself does not run here.
package action

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	"github.com/mbguard/mbguard/internal/testhost"
)

func buildMbguard(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "mbguard"), "./cmd/mbguard")
	cmd.Dir = testhost.ModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type result struct {
	status          int
	stdout, summary string
	outputs         string
	sarif           map[string]any
}

func runAction(t *testing.T, bin, repo string, env ...string) result {
	t.Helper()
	runner := t.TempDir()
	summary, outputs := filepath.Join(runner, "summary.md"), filepath.Join(runner, "output")
	cmd := exec.Command("bash", filepath.Join(testhost.ModuleRoot(t), "action", "run.sh"))
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+outputs, "MBGUARD_SARIF=out.sarif")
	cmd.Env = append(cmd.Env, env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	r := result{}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		r.status = ee.ExitCode()
	}
	r.stdout = out.String()
	b, _ := os.ReadFile(summary)
	r.summary = string(b)
	b, _ = os.ReadFile(outputs)
	r.outputs = string(b)
	if b, err := os.ReadFile(filepath.Join(repo, "out.sarif")); err == nil {
		if err := json.Unmarshal(b, &r.sarif); err != nil {
			t.Fatalf("the SARIF file is not JSON: %v\n%s", err, b)
		}
	}
	return r
}

const memory = "# Memory\n<!-- MACHINE_BLOCK_START -->\n<!-- MEMORY_BANK_TEMPLATE:v7.1 -->\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n<!-- USER_BLOCK_END -->\n"

func TestActionReportsFindings(t *testing.T) {
	bin := buildMbguard(t)
	repo := testgit.New(t)
	testgit.Write(t, repo, "memory-bank/MEMORY.md", strings.Replace(memory, "v7.1", "v7.0", 1))
	testgit.Write(t, repo, "memory-bank/data.json", "{}\n")
	testgit.Git(t, repo, "add", ".")
	testgit.Git(t, repo, "commit", "-qm", "bank")

	r := runAction(t, bin, repo)
	if r.status != 1 {
		t.Fatalf("exit %d, want 1 (findings)\n%s", r.status, r.stdout)
	}
	for _, want := range []string{
		"::error file=memory-bank/MEMORY.md,line=3,title=mbguard template-outdated::",
		"::error file=memory-bank/data.json,title=mbguard non-md::",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no annotation %q in\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.summary, "2 error(s)") || !strings.Contains(r.summary, "`template-outdated`") {
		t.Errorf("job summary:\n%s", r.summary)
	}
	if !strings.Contains(r.outputs, "sarif=out.sarif") || !strings.Contains(r.outputs, "findings=true") {
		t.Errorf("outputs: %q", r.outputs)
	}
	if r.sarif["version"] != "2.1.0" {
		t.Fatalf("SARIF version = %v", r.sarif["version"])
	}
	runs, _ := r.sarif["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("SARIF runs = %v", r.sarif["runs"])
	}
	if res, _ := runs[0].(map[string]any)["results"].([]any); len(res) != 2 {
		t.Errorf("SARIF has %d results, want 2", len(res))
	}

	// fail-on-findings: false reports the same and lets the job pass
	if r := runAction(t, bin, repo, "MBGUARD_FAIL=false"); r.status != 0 || !strings.Contains(r.stdout, "::error ") {
		t.Errorf("with fail-on-findings false: exit %d\n%s", r.status, r.stdout)
	}
}

func TestActionPassesACleanBank(t *testing.T) {
	bin := buildMbguard(t)
	repo := testgit.New(t)
	testgit.Write(t, repo, "memory-bank/MEMORY.md", memory)
	testgit.Git(t, repo, "add", ".")
	testgit.Git(t, repo, "commit", "-qm", "bank")
	r := runAction(t, bin, repo)
	if r.status != 0 || strings.Contains(r.stdout, "::error") {
		t.Fatalf("exit %d\n%s", r.status, r.stdout)
	}
	if !strings.Contains(r.summary, "passed") || !strings.Contains(r.outputs, "findings=false") {
		t.Errorf("summary %q outputs %q", r.summary, r.outputs)
	}
}

func TestActionWithoutMbguardSaysHowToInstall(t *testing.T) {
	repo := testgit.New(t)
	empty := t.TempDir()
	cmd := exec.Command("/bin/bash", filepath.Join(testhost.ModuleRoot(t), "action", "run.sh"))
	cmd.Dir = repo
	cmd.Env = []string{"PATH=" + empty, "HOME=" + os.Getenv("HOME")}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "mbguard is not on PATH") {
		t.Fatalf("err %v\n%s", err, out)
	}
}
