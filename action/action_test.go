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
	"go.yaml.in/yaml/v3"
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

// TestActionFailsOnAnInvalidConfig: a typo in .mbguard.yaml fails the job (exit 2) with an
// error annotation on the file and line, instead of quietly checking with the defaults.
func TestActionFailsOnAnInvalidConfig(t *testing.T) {
	bin := buildMbguard(t)
	repo := testgit.New(t)
	testgit.Write(t, repo, "memory-bank/MEMORY.md", memory)
	testgit.Write(t, repo, ".mbguard.yaml", "check:\n  stale: eror\n")
	testgit.Git(t, repo, "add", ".")
	testgit.Git(t, repo, "commit", "-qm", "bank")
	r := runAction(t, bin, repo)
	if r.status != 2 || !strings.Contains(r.stdout, `::error file=.mbguard.yaml,line=2,title=mbguard config::check.stale = "eror"`) {
		t.Fatalf("exit %d, want 2 with an annotation on .mbguard.yaml line 2\n%s", r.status, r.stdout)
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

// snapshotRelease builds the host's release with go run -tags release ./release and lays it out as GitHub
// serves releases (<base>/<version>/<file>). It returns the base folder and the version.
func snapshotRelease(t *testing.T) (base, version string) {
	t.Helper()
	dist := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command("go", "run", "-tags", "release", "./release", "--snapshot", "--targets", "host", "--dist", dist)
	cmd.Dir = testhost.ModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run -tags release ./release: %v\n%s", err, out)
	}
	sums, _ := filepath.Glob(filepath.Join(dist, "mbguard_*_checksums.txt"))
	if len(sums) != 1 {
		t.Fatalf("no checksums file in %s", dist)
	}
	version = "v" + strings.TrimSuffix(strings.TrimPrefix(filepath.Base(sums[0]), "mbguard_"), "_checksums.txt")
	base = t.TempDir()
	if err := os.Mkdir(filepath.Join(base, version), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dist, "mbguard_*"))
	for _, f := range files {
		if err := os.Rename(f, filepath.Join(base, version, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	return base, version
}

type installResult struct {
	status               int
	stdout, path, output string
}

// runInstall runs action/install.sh as action.yml does, downloading from base.
func runInstall(t *testing.T, base string, env ...string) installResult {
	t.Helper()
	runner := t.TempDir()
	path, outputs := filepath.Join(runner, "path"), filepath.Join(runner, "output")
	cmd := exec.Command("bash", filepath.Join(testhost.ModuleRoot(t), "action", "install.sh"))
	cmd.Dir = runner
	cmd.Env = append(os.Environ(), "GITHUB_PATH="+path, "GITHUB_OUTPUT="+outputs, "RUNNER_TEMP="+runner,
		"MBGUARD_DOWNLOAD_URL=file://"+base, "MBGUARD_VERSION=", "MBGUARD_ACTION_REF=", "MBGUARD_ACTION_PATH=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	r := installResult{stdout: string(out)}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		r.status = ee.ExitCode()
	}
	b, _ := os.ReadFile(path)
	r.path = strings.TrimSpace(string(b))
	b, _ = os.ReadFile(outputs)
	r.output = string(b)
	return r
}

func TestInstallDownloadsAndVerifiesARelease(t *testing.T) {
	testhost.Tool(t, "curl", "apt-get install curl")
	base, version := snapshotRelease(t)
	for name, env := range map[string][]string{
		"version input":     {"MBGUARD_VERSION=" + version},
		"action ref":        {"MBGUARD_ACTION_REF=" + version},
		"action path":       {"MBGUARD_ACTION_PATH=/home/runner/work/_actions/mbguard/mbguard/" + version},
		"version without v": {"MBGUARD_VERSION=" + strings.TrimPrefix(version, "v")},
	} {
		t.Run(name, func(t *testing.T) {
			r := runInstall(t, base, env...)
			if r.status != 0 || !strings.Contains(r.output, "method=release") || r.path == "" {
				t.Fatalf("exit %d, outputs %q, GITHUB_PATH %q\n%s", r.status, r.output, r.path, r.stdout)
			}
			out, err := exec.Command(filepath.Join(r.path, "mbguard"), "version").CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "mbguard "+version) {
				t.Fatalf("the installed mbguard: %v: %s", err, out)
			}
		})
	}

	t.Run("damaged archive", func(t *testing.T) {
		archives, _ := filepath.Glob(filepath.Join(base, version, "*.tar.gz"))
		f, err := os.OpenFile(archives[0], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{0})
		f.Close()
		r := runInstall(t, base, "MBGUARD_VERSION="+version)
		if r.status != 1 || !strings.Contains(r.stdout, "::error title=mbguard::the SHA-256 of") || r.path != "" {
			t.Fatalf("a damaged archive must be refused before it reaches PATH: exit %d, GITHUB_PATH %q\n%s", r.status, r.path, r.stdout)
		}
	})

	t.Run("missing release", func(t *testing.T) {
		r := runInstall(t, base, "MBGUARD_VERSION=v9.9.9")
		if r.status != 1 || !strings.Contains(r.stdout, "check that release v9.9.9 exists") {
			t.Fatalf("exit %d\n%s", r.status, r.stdout)
		}
	})
}

func TestInstallBuildsAnythingButAReleaseWithGo(t *testing.T) {
	for name, c := range map[string]struct {
		env []string
		ref string
	}{
		"main":           {[]string{"MBGUARD_VERSION=main"}, "main"},
		"commit":         {[]string{"MBGUARD_VERSION=0123abcd"}, "0123abcd"},
		"nothing known":  {nil, "main"},
		"action at main": {[]string{"MBGUARD_ACTION_REF=main"}, "main"},
		"local action":   {[]string{"MBGUARD_ACTION_PATH=/home/runner/work/project/project"}, "main"},
	} {
		t.Run(name, func(t *testing.T) {
			r := runInstall(t, t.TempDir(), c.env...)
			if r.status != 0 || !strings.Contains(r.output, "method=go\n") || !strings.Contains(r.output, "ref="+c.ref+"\n") || r.path != "" {
				t.Fatalf("exit %d, outputs %q, GITHUB_PATH %q\n%s", r.status, r.output, r.path, r.stdout)
			}
		})
	}
}

// action.yml runs install.sh first, sets up Go and runs go install only when install.sh
// asks for it, then runs run.sh: the order the tests above assume.
func TestActionYAMLInstallsThenChecks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testhost.ModuleRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Using string
			Steps []struct {
				ID   string
				If   string
				Uses string
				Run  string
				Env  map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	steps := action.Runs.Steps
	if action.Runs.Using != "composite" || len(steps) != 4 {
		t.Fatalf("want a composite action of 4 steps: %+v", action.Runs)
	}
	if steps[0].ID != "install" || !strings.Contains(steps[0].Run, "action/install.sh") ||
		steps[0].Env["MBGUARD_VERSION"] != "${{ inputs.version }}" || steps[0].Env["MBGUARD_ACTION_REF"] != "${{ github.action_ref }}" {
		t.Errorf("step 1 must run action/install.sh with the version input and the action's ref: %+v", steps[0])
	}
	goStep := "steps.install.outputs.method == 'go'"
	if !strings.HasPrefix(steps[1].Uses, "actions/setup-go@") || steps[1].If != goStep {
		t.Errorf("step 2 must set up Go only for go install: %+v", steps[1])
	}
	if !strings.Contains(steps[2].Run, "go install") || steps[2].If != goStep {
		t.Errorf("step 3 must go install only when install.sh asks: %+v", steps[2])
	}
	if steps[3].ID != "check" || !strings.Contains(steps[3].Run, "action/run.sh") {
		t.Errorf("step 4 must run action/run.sh: %+v", steps[3])
	}
}
