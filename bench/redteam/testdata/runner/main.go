// Command runner replays the red-team tables (JSON lines from gating's TestDumpRedTeam)
// through a built `mbguard hook claude` in a real git repository, in warn and block mode, and
// prints how many attacks were refused before they ran and how many harmless calls were refused.
//
//	runner MBGUARD CASES.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type row struct {
	Name   string            `json:"name"`
	Tool   string            `json:"tool"`
	Args   map[string]any    `json:"args"`
	Attack bool              `json:"attack"`
	Files  map[string]string `json:"files"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: runner MBGUARD CASES.jsonl")
		os.Exit(2)
	}
	bin, casesPath := os.Args[1], os.Args[2]
	rows := load(casesPath)
	repo, err := os.MkdirTemp("", "redteam-")
	check(err)
	defer os.RemoveAll(repo)
	repo, _ = filepath.EvalSymlinks(repo)
	home := filepath.Join(repo, ".home")
	check(os.MkdirAll(home, 0o755))
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "MBGUARD_DEBUG=")
	git := exec.Command("git", "init", "-q", repo)
	git.Env = env
	check(git.Run())
	for rel, content := range rows[0].Files {
		p := filepath.Join(repo, rel)
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, []byte(content), 0o644))
	}
	for _, mode := range []string{"warn", "block"} {
		attacks, refused, harmless, falseBlocks := 0, 0, 0, 0
		var missed, wrong []string
		for i, r := range rows {
			args, _ := json.Marshal(r.Args)
			// the tables spell the repository /repo
			a := strings.ReplaceAll(string(args), "/repo", repo)
			payload := fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"rt-%s-%d","cwd":%q,"transcript_path":%q,"tool_name":%q,"tool_input":%s,"tool_use_id":"toolu_%d"}`,
				mode, i, repo, repo+"/t.jsonl", r.Tool, a, i)
			if r.Args == nil {
				payload = fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"rt-%s-%d","cwd":%q,"tool_name":%q}`, mode, i, repo, r.Tool)
			}
			cmd := exec.Command(bin, "hook", "claude")
			cmd.Dir = repo
			cmd.Env = append(env, "MEMORY_BANK_GUARD_MODE="+mode)
			cmd.Stdin = strings.NewReader(payload)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				check(err)
			}
			blocked := code == 2 || strings.Contains(out.String(), `"permissionDecision":"deny"`)
			if r.Attack {
				attacks++
				if blocked {
					refused++
				} else {
					missed = append(missed, r.Name)
				}
			} else {
				harmless++
				// a harmless call may meet the read gate in block mode, never the bank or config guard
				if blocked && (strings.Contains(out.String(), "[mbguard bank]") || strings.Contains(out.String(), "[mbguard config]")) {
					falseBlocks++
					wrong = append(wrong, r.Name+": "+strings.TrimSpace(out.String()))
				}
			}
		}
		fmt.Printf("mode %s: %d of %d attacks refused before they ran (%.1f%%); %d of %d harmless calls refused by the bank/config guard\n",
			mode, refused, attacks, 100*float64(refused)/float64(attacks), falseBlocks, harmless)
		for _, m := range missed {
			fmt.Println("  allowed:", m)
		}
		for _, m := range wrong {
			fmt.Println("  refused:", m)
		}
	}
}

func load(p string) []row {
	f, err := os.Open(p)
	check(err)
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r row
		check(json.Unmarshal(sc.Bytes(), &r))
		rows = append(rows, r)
	}
	check(sc.Err())
	return rows
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "runner:", err)
		os.Exit(1)
	}
}
