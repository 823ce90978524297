package gating

import "testing"

func TestConfigGuard(t *testing.T) {
	cases := []struct {
		name string
		c    call
		want Verdict
	}{
		{"cc Write .mbguard.yaml", ccWrite(".mbguard.yaml", "gating:\n  mode: off\n"), Block},
		{"oc edit claude settings", ocEdit(".claude/settings.json", "mbguard", "true"), Block},
		{"cc Write settings.local", ccWrite(".claude/settings.local.json", "{}"), Block},
		{"oc write opencode plugin", ocWrite(".opencode/plugin/mbguard.js", ""), Block},
		{"oc write opencode plugins", ocWrite(".opencode/plugins/mbguard.js", ""), Block},
		{"gemini write_file settings", cc("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": "{}"}), Block},
		{"copilot create hooks", cc("create", map[string]any{"path": abs(".github/hooks/mbguard.json"), "file_text": "{}"}), Block},
		{"codex patch hooks.json", ocPatch(codex("*** Update File: .codex/hooks.json\n@@\n-a\n+b\n")), Block},
		{"codex patch config.toml", ocPatch(codex("*** Add File: .codex/config.toml\n+x\n")), Block},
		{"write git hook", ocWrite(".git/hooks/pre-commit", "exit 0"), Block},
		{"write git mbguard state", ocWrite(".git/mbguard/sessions/s.json", "{}"), Block},
		{"home claude settings", ocWrite("~/.claude/settings.json", "{}"), Block},
		{"sh redirect mbguard yaml", ocBash("echo 'gating: {mode: off}' > .mbguard.yaml"), Block},
		// gitleaks' files tune the secret scan: broken or loosened, a secret passes
		{"cc Write .gitleaks.toml", ccWrite(".gitleaks.toml", "[allowlist]\npaths = ['.*']\n"), Block},
		{"sh break .gitleaks.toml", ccBash("echo '[[' > .gitleaks.toml"), Block},
		{"oc write .gitleaksignore", ocWrite(".gitleaksignore", "memory-bank/tech.md:github-pat:3\n"), Block},
		{"ok cat .gitleaks.toml", ccBash("cat .gitleaks.toml"), Allow},
		{"sh sed -i settings", ccBash("sed -i s/mbguard/true/ .claude/settings.json"), Block},
		{"sh rm -rf .claude", ocBash("rm -rf .claude"), Block},
		{"sh rm hooks glob", ocBash("rm -f .git/hooks/*"), Block},
		{"sh write into .git", ocBash("echo x > .git/info/exclude"), Block},
		{"sh cp over config", ocBash("cp /tmp/x.yaml .mbguard.yaml"), Block},
		{"sh python writes settings", ocBash(`python3 -c "open('.claude/settings.json','w').write('{}')"`), Block},
		{"sh unknown write naming config", ocBash(`f=.mbguard.yaml; echo x > "$f"`), Block},
		{"ok read config", oc("read", map[string]any{"filePath": ".mbguard.yaml"}), Allow},
		{"ok cat settings", ccBash("cat .claude/settings.json"), Allow},
		{"ok rm star skips dot files", ocBash("rm -rf build/*"), Allow},
		{"ok other .claude file", ocWrite(".claude/agents/x.md", "# x"), Allow},
		{"ok nested settings.json", ocWrite("web/.claude/settings.json", "{}"), Allow},
		{"ok git status", ocBash("git status"), Allow},
		{"ok clone log to a variable", ocBash("git clone https://example.invalid/x.git > $LOG"), Allow},
		{"ok read HEAD into an unknown file", ocBash(`cat .git/HEAD > "$(mktemp)"`), Allow},
		{"sh unknown write naming hooks", ocBash(`cp "$F" .git/hooks/`), Block},
		// the person's mbguard commands, on the first line
		{"sh mbguard uninstall", ccBash("mbguard uninstall"), Block},
		{"sh mbguard uninstall keep state in a dir", ocBash("cd web && mbguard -C .. uninstall --keep-state"), Block},
		{"sh mbguard install --uninstall", ccBash("mbguard install --agent claude --uninstall"), Block},
		{"sh mbguard reset known-good", ccBash("sudo mbguard doctor --reset-known-good"), Block},
		{"sh mbguard confirm user files", ocBash("mbguard doctor --confirm-user-files </dev/tty"), Block},
		{"sh mbguard quarantine restore", ccBash("mbguard --set gating.mode=warn quarantine restore last"), Block},
		{"sh mbguard quarantine drop", ccBash("true; mbguard quarantine drop q1"), Block},
		{"sh mbguard subcommand from a variable", ccBash(`mbguard "$CMD"`), Block},
		{"sh npx mbguard uninstall", ccBash("npx mbguard uninstall"), Block},
		{"sh mbguard by path through bash -c", ccBash(`bash -c "./bin/mbguard install --agent codex --uninstall"`), Block},
		{"sh mbguard-hook hands uninstall to mbguard", ccBash("mbguard-hook uninstall"), Block},
		{"sh mbguard-hook forges a hook event", ccBash("echo '{}' | /opt/mbguard/mbguard-hook hook claude"), Block},
		// Windows finds a program with or without its extension, whatever the case
		{"sh mbguard.exe uninstall", ccBash("mbguard.exe uninstall"), Block},
		{"sh MBGUARD.EXE uninstall", ccBash("/c/tools/MBGUARD.EXE uninstall"), Block},
		{"sh mbguard-hook.exe forges a hook event", ccBash("./mbguard-hook.exe hook claude < e.json"), Block},
		{"sh npm's mbguard.cmd shim", ccBash("node_modules/.bin/mbguard.cmd quarantine drop last"), Block},
		{"ps mbguard.exe uninstall", cc("PowerShell", map[string]any{"command": "& 'C:\\tools\\mbguard.exe' uninstall"}), Block},
		{"ok mbguard.exe status", ccBash("mbguard.exe status"), Allow},
		{"ok mbguard status", ccBash("mbguard status"), Allow},
		{"ok mbguard check", ccBash("mbguard check --all $FLAGS"), Allow},
		{"ok mbguard quarantine list", ccBash("mbguard quarantine show last"), Allow},
		{"ok mbguard install help", ccBash("mbguard install --help"), Allow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), tc.c.host)
			d := s.before(tc.c.tool, tc.c.args)
			if d.Verdict != tc.want || tc.want == Block && d.Gate != GateConfig {
				t.Fatalf("decision = %s/%s (%q), want %s", d.Verdict, d.Gate, d.Message, tc.want)
			}
			if tc.want == Block {
				wantMsg(t, d, "[mbguard config] blocked", "ask the user")
			}
		})
	}
	if !DefaultPolicy().Protects(".claude/settings.json", false) || DefaultPolicy().Protects("src/a.go", false) ||
		!DefaultPolicy().Protects(".CLAUDE/Settings.json", true) {
		t.Fatal("Policy.Protects disagrees with ProtectedPaths")
	}
}
