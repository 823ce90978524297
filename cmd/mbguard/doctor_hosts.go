package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/hooks"
	"github.com/mbguard/mbguard/internal/repo"
)

// checkInfo marks a host that is simply not in use here: neither a warning nor a failure.
const checkInfo = "INFO"

// checkHostFiles reports whether a JSON-settings host has mbguard's hooks in one of its files:
// a file that is not valid JSON fails (the host ignores it), a file without our command is
// not in use. trust, when set, adds a warning about a trust step the host still needs.
func checkHostFiles(name, title, marker string, paths []string, trust func() (string, string)) doctorCheck {
	ch := doctorCheck{Name: name}
	var where []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			ch.Status, ch.Detail, ch.Next = checkFail, p+" is not valid JSON ("+title+" ignores it)", "fix the JSON, then run mbguard install --agent "+name
			return ch
		}
		if strings.Contains(string(b), marker) {
			where = append(where, p)
		}
	}
	if len(where) == 0 {
		ch.Status, ch.Detail = checkInfo, title+" hooks not installed (mbguard install --agent "+name+" if you use it)"
		return ch
	}
	ch.Status, ch.Detail = checkOK, "hooks in "+strings.Join(where, ", ")
	if trust != nil {
		if detail, next := trust(); detail != "" {
			ch.Status, ch.Detail, ch.Next = checkWarn, ch.Detail+"; "+detail, next
		}
	}
	return ch
}

func checkCodex(r repo.Repo, home, codexHome string) doctorCheck {
	if codexHome == "" {
		codexHome = filepath.Join(home, ".codex")
	}
	project := filepath.Join(r.Root, ".codex", "hooks.json")
	paths := []string{project, filepath.Join(codexHome, "hooks.json")}
	return checkHostFiles("codex", "Codex CLI", "hook codex", paths, func() (string, string) {
		// Codex skips untrusted hooks silently: say so when its config shows no trust yet.
		b, _ := os.ReadFile(filepath.Join(codexHome, "config.toml"))
		cfg := string(b)
		if _, err := os.Stat(project); err == nil && !strings.Contains(cfg, `[projects."`+r.Root+`"]`) {
			return "Codex has not trusted this project, so it skips them", hooks.TrustStep("codex", false)
		}
		if !strings.Contains(cfg, "trusted_hash") {
			_, err := os.Stat(project)
			return "no Codex hook is trusted yet, so it skips them", hooks.TrustStep("codex", err != nil) // only the user-level file: the global step
		}
		return "", ""
	})
}

func checkGemini(r repo.Repo, home string) doctorCheck {
	return checkHostFiles("gemini", "Gemini CLI", "hook gemini",
		[]string{filepath.Join(r.Root, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")}, nil)
}

func checkCopilot(r repo.Repo, home, copilotHome string) doctorCheck {
	if copilotHome == "" {
		copilotHome = filepath.Join(home, ".copilot")
	}
	var paths []string
	for _, dir := range []string{filepath.Join(r.Root, ".github", "hooks"), filepath.Join(copilotHome, "hooks")} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".json") {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
	}
	return checkHostFiles("copilot", "Copilot CLI", "hook copilot", paths, nil)
}
