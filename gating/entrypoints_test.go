package gating

import "testing"

// mbguard's protocol entry points (hook, serve, settle) are the host's: an agent's shell
// command that names one is refused on the first line, by any path or launcher (issue 26).
// The second line (outcome.FromCall) refuses what a script starts.
func TestEntryPointsRefused(t *testing.T) {
	cases := []struct {
		name string
		c    call
		want Verdict
	}{
		{"hook through jq", ccBash(`jq -n '{hook_event_name:"PostToolUse"}' | mbguard hook claude`), Block},
		{"hook by echo", ccBash(`echo '{"hook_event_name":"Stop"}' | mbguard hook claude`), Block},
		{"hook by path", ccBash(`printf x | /usr/local/bin/mbguard hook codex`), Block},
		{"hook through npx", ocBash(`npx mbguard hook qwen < ev.json`), Block},
		{"hook with -C", ccBash(`mbguard -C .. hook claude < ev.json`), Block},
		{"hook in bash -c", ccBash(`bash -c 'mbguard hook claude < ev.json'`), Block},
		{"serve", ocBash(`printf '{"op":"close"}\n' | mbguard serve --stdio`), Block},
		{"settle", ccBash(`mbguard settle .`), Block},
		{"hook through a copy", ccBash(`cp "$(command -v mbguard)" /tmp/mbg && /tmp/mbg hook claude < ev.json`), Block},
		{"person's command through a copy", ccBash(`cp "$(command -v mbguard)" "$TMPDIR/x" 2>/dev/null; install -m755 /usr/bin/mbguard /tmp/q; /tmp/q uninstall`), Block},
		{"ok a copied tool run", ccBash(`cp /usr/bin/jq /tmp/jq2 && /tmp/jq2 . package.json`), Allow},
		{"ok hook help", ccBash(`mbguard help install`), Allow},
		{"ok status", ccBash(`mbguard status`), Allow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, policyWith(ModeOff, ModeOff, ModeOff), newFacts(bankFiles()), tc.c.host)
			d := s.before(tc.c.tool, tc.c.args)
			if d.Verdict != tc.want {
				t.Fatalf("decision = %s/%s (%q), want %s", d.Verdict, d.Gate, d.Message, tc.want)
			}
		})
	}
}
