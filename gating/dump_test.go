package gating

import (
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var redteamOut = flag.String("redteam.out", "", "write the red-team tables as JSON lines to this file (bench/redteam)")

// TestDumpRedTeam writes every attack and harmless call of this package's tables, with the
// bank they run against, for bench/redteam to replay through the built binary. It does
// nothing unless -redteam.out is given.
func TestDumpRedTeam(t *testing.T) {
	if *redteamOut == "" {
		t.Skip("no -redteam.out")
	}
	type row struct {
		Name   string            `json:"name"`
		Tool   string            `json:"tool"`
		Args   map[string]any    `json:"args"`
		Attack bool              `json:"attack"`
		Files  map[string]string `json:"files,omitempty"`
	}
	var rows []row
	for _, c := range redTeamCases() {
		if c.prep != nil || c.c.cwd != "" {
			continue // needs a symlink, a folding file system or another cwd: unit tests only
		}
		rows = append(rows, row{Name: "redteam/" + c.name, Tool: claudeName(c.c.tool), Args: c.c.args, Attack: c.want == bankBlock})
	}
	for cause, cmds := range rootCauseAttacks {
		for _, cmd := range cmds {
			rows = append(rows, row{Name: cause + "/" + cmd, Tool: "Bash", Args: map[string]any{"command": cmd}, Attack: true})
		}
	}
	for _, cmd := range append(append(harmlessShell, assortedHarmless...), everydayHarmless...) {
		rows = append(rows, row{Name: "harmless/" + cmd, Tool: "Bash", Args: map[string]any{"command": cmd}})
	}
	for name, c := range badArgsCases() {
		rows = append(rows, row{Name: "bad args/" + name, Tool: c.tool, Args: c.args, Attack: true})
	}
	rows[0].Files = bankFiles()
	f, err := os.Create(*redteamOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
}

// claudeName spells an OpenCode tool the way Claude Code names it.
func claudeName(tool string) string {
	switch tool {
	case "write":
		return "Write"
	case "edit":
		return "Edit"
	case "multiedit":
		return "MultiEdit"
	case "bash":
		return "Bash"
	case "read":
		return "Read"
	}
	return tool
}
