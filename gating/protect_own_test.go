package gating

import "testing"

// homeWrite is Claude Code's Write of p as given (absolute, or ~).
func homeWrite(p, content string) call {
	return cc("Write", map[string]any{"file_path": p, "content": content})
}

// ownFacts are memFacts that know mbguard's own files outside the repository (OwnFiler).
type ownFacts struct {
	*memFacts
	own []string
}

func (f ownFacts) OwnFiles() []string { return f.own }

// Every spelling of a user-level protected file — ~, $HOME, the absolute path, a symlink into
// home, a home that is itself a symlink — is the one file and is refused; so are mbguard's user
// configuration wherever $XDG_CONFIG_HOME puts it, the executable the hooks run and the name a
// stub would take earlier on PATH. Writes elsewhere outside the repository, and reads of these
// files, run.
func TestConfigGuardEverySpelling(t *testing.T) {
	own := []string{"/xdg/mbguard/config.yaml", "/home/dev/go/bin/mbguard", "/home/dev/.local/bin/mbguard"}
	cases := []struct {
		name string
		c    call
		want Verdict
	}{
		{"Write absolute home settings", homeWrite("/home/dev/.claude/settings.json", "{}"), Block},
		{"Write through a symlink into home", homeWrite("/tmp/l/settings.json", "{}"), Block},
		{"Write through home's own symlink", homeWrite("/data/dev/.claude/settings.json", "{}"), Block},
		{"Write codex user hooks absolute", homeWrite("/home/dev/.codex/hooks.json", "{}"), Block},
		{"sh $HOME settings", ccBash("echo '{}' > $HOME/.claude/settings.json"), Block},
		{"sh absolute settings", ccBash("sed -i s/mbguard/true/ /home/dev/.claude/settings.json"), Block},
		{"sh symlinked settings", ccBash("cp /tmp/x.json /tmp/l/settings.json"), Block},
		{"Write user config ~", homeWrite("~/.config/mbguard/config.yaml", "gating: {mode: off}\n"), Block},
		{"Write user config absolute", homeWrite("/home/dev/.config/mbguard/config.yaml", "x"), Block},
		{"sh user config $HOME", ccBash("echo 'gating: {mode: off}' > $HOME/.config/mbguard/config.yaml"), Block},
		{"Write user config XDG", homeWrite("/xdg/mbguard/config.yaml", "x"), Block},
		{"sh rm user config folder XDG", ccBash("rm -rf /xdg/mbguard"), Block},
		{"sh cp true over the binary", ccBash("cp /bin/true ~/go/bin/mbguard"), Block},
		{"sh cp true over the binary $HOME", ccBash("cp /bin/true $HOME/go/bin/mbguard"), Block},
		{"Write a wrapper over the binary", homeWrite("/home/dev/go/bin/mbguard", "#!/bin/sh\nMBGUARD=0 exec /tmp/real \"$@\"\n"), Block},
		{"sh stub earlier on PATH", ccBash("printf '#!/bin/sh\\nexit 0\\n' > ~/.local/bin/mbguard && chmod +x ~/.local/bin/mbguard"), Block},
		{"sh ln a stub earlier on PATH", ccBash("ln -sf /bin/true /home/dev/.local/bin/mbguard"), Block},
		{"ok Write a note in home", homeWrite("/home/dev/notes.txt", "x"), Allow},
		{"ok sh write in /tmp", ccBash("echo x > /tmp/out.txt"), Allow},
		{"ok sh copy of the binary", ccBash("cp ~/go/bin/mbguard /tmp/mbg.bak"), Allow},
		{"ok cat user config", ccBash("cat ~/.config/mbguard/config.yaml /xdg/mbguard/config.yaml"), Allow},
		{"ok other file beside the binary", ccBash("cp /tmp/tool ~/go/bin/tool"), Allow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFacts(bankFiles())
			fx.links["/tmp/l"] = "/home/dev/.claude"
			fx.links["/data/dev"] = "/home/dev"
			var f Facts = ownFacts{fx, own}
			e, st := New(policyWith(ModeOff, ModeOff, ModeOff)), &State{}
			e.Handle(st, Event{Kind: EvMessage, Host: tc.c.host, Session: "s1", Message: "m1", Cwd: testRoot, Now: 1000}, f)
			d := e.Handle(st, Event{Kind: EvToolBefore, Host: tc.c.host, Session: "s1", Message: "m1",
				Tool: tc.c.tool, Args: tc.c.args, Cwd: testRoot, Now: 2000}, f)
			if d.Verdict != tc.want || tc.want == Block && d.Gate != GateConfig {
				t.Fatalf("decision = %s/%s (%q), want %s", d.Verdict, d.Gate, d.Message, tc.want)
			}
			if tc.want == Block {
				wantMsg(t, d, "[mbguard config] blocked", "ask the user")
			}
		})
	}
}
