package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mbguard/mbguard/internal/testgit"
	. "github.com/mbguard/mbguard/scanner"
)

// bankWith writes files (repository-relative) under a fresh root and returns it with a state
// directory.
func bankWith(t *testing.T, files map[string]string) (root, state string) {
	t.Helper()
	root, state = t.TempDir(), t.TempDir()
	for rel, body := range files {
		writeRel(t, root, rel, body)
	}
	return root, state
}

func writeRel(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func secretsOf(found []BankSecret) map[string]string {
	m := map[string]string{}
	for _, f := range found {
		m[f.Rel] = f.Secret
	}
	return m
}

// Once BankSecrets has kept its summary, a bank file that gains a secret — written in place,
// replaced by a rename to the same size, a new file — is found on the next call: the summary
// never stands for content it has not seen.
func TestBankSecretsSummaryNeverHidesANewSecret(t *testing.T) {
	defer SetBankSettle(0)()
	tok := testgit.FakeGitHubToken(t)
	clean := "# Tech\n\ntoken: " + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"[:len(tok)] + "\n"
	root, state := bankWith(t, map[string]string{
		"memory-bank/MEMORY.md":          "# Memory\n",
		"memory-bank/details/tech.md":    clean,
		"memory-bank/details/secrets.md": "# Keys\n\nkey: " + tok + "\n",
	})
	s := NewSecrets(root)
	first := secretsOf(s.BankSecrets(state, root))
	if len(first) != 1 || first["memory-bank/details/secrets.md"] != tok {
		t.Fatalf("first call: %v", first)
	}
	if _, err := os.Stat(filepath.Join(state, BankSummaryFile)); err != nil {
		t.Fatalf("no summary kept: %v", err)
	}
	// answered from the summary: the secret's text is read from its file
	if again := secretsOf(NewSecrets(root).BankSecrets(state, root)); len(again) != 1 || again["memory-bank/details/secrets.md"] != tok {
		t.Fatalf("from the summary: %v", again)
	}

	steps := []struct {
		name   string
		change func(t *testing.T)
		want   string // the file that must now show tok
	}{
		{"written in place, new size", func(t *testing.T) {
			writeRel(t, root, "memory-bank/details/tech.md", "# Tech\n\nsee also\ntoken: "+tok+"\n")
		}, "memory-bank/details/tech.md"},
		{"replaced by a rename, same size", func(t *testing.T) {
			writeRel(t, root, "memory-bank/details/tech.md.new", "# Tech\n\ntoken: "+tok+"\n")
			if err := os.Rename(filepath.Join(root, "memory-bank/details/tech.md.new"), filepath.Join(root, "memory-bank/details/tech.md")); err != nil {
				t.Fatal(err)
			}
		}, "memory-bank/details/tech.md"},
		{"a new file", func(t *testing.T) {
			writeRel(t, root, "memory-bank/details/new.md", "# New\n\ntoken: "+tok+"\n")
		}, "memory-bank/details/new.md"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			writeRel(t, root, "memory-bank/details/tech.md", clean)
			_ = os.Remove(filepath.Join(root, "memory-bank/details/new.md"))
			if got := secretsOf(NewSecrets(root).BankSecrets(state, root)); got["memory-bank/details/tech.md"] != "" || got["memory-bank/details/new.md"] != "" {
				t.Fatalf("before the change: %v", got)
			}
			st.change(t)
			if got := secretsOf(NewSecrets(root).BankSecrets(state, root)); got[st.want] != tok {
				t.Fatalf("after the change: %v, want %s to hold the secret", got, st.want)
			}
		})
	}
}

// A summary whose rules changed (a .gitleaksignore that now lists the finding), or that is
// corrupt, is not used.
func TestBankSecretsSummaryFollowsRulesAndSurvivesCorruption(t *testing.T) {
	defer SetBankSettle(0)()
	tok := testgit.FakeGitHubToken(t)
	root, state := bankWith(t, map[string]string{"memory-bank/details/tech.md": "# Tech\n\ntoken: " + tok + "\n"})
	if got := NewSecrets(root).BankSecrets(state, root); len(got) != 1 {
		t.Fatalf("first call: %+v", got)
	}
	sum := filepath.Join(state, BankSummaryFile)
	if err := os.WriteFile(sum, []byte(`{"key":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := NewSecrets(root).BankSecrets(state, root); len(got) != 1 || got[0].Secret != tok {
		t.Fatalf("corrupt summary: %+v", got)
	}
	fp := ""
	for _, f := range NewSecrets(root).BankSecrets(state, root) {
		fp = "memory-bank/details/tech.md:" + f.Rule + ":3"
	}
	writeRel(t, root, GitleaksIgnore, fp+"\n")
	if got := NewSecrets(root).BankSecrets(state, root); len(got) != 0 {
		t.Fatalf("after .gitleaksignore lists it: %+v", got)
	}
}

// A file changed within the settle time is not summarised: a second write in the same
// timestamp tick, to the same size, would not show in its stat.
func TestBankSecretsNoSummaryOfAFreshFile(t *testing.T) {
	tok := testgit.FakeGitHubToken(t)
	root, state := bankWith(t, map[string]string{"memory-bank/details/tech.md": "# Tech\n\ntoken: " + tok + "\n"})
	if got := NewSecrets(root).BankSecrets(state, root); len(got) != 1 || got[0].Secret != tok {
		t.Fatalf("BankSecrets = %+v", got)
	}
	if _, err := os.Stat(filepath.Join(state, BankSummaryFile)); !os.IsNotExist(err) {
		t.Fatalf("a summary of a file written just now: %v", err)
	}
}

// A NewCallSecrets answers BankSecrets once per bank until ForgetBank; NewSecrets looks every
// time.
func TestCallSecretsKeepTheBankUntilForgotten(t *testing.T) {
	tok := testgit.FakeGitHubToken(t)
	root, state := bankWith(t, map[string]string{"memory-bank/MEMORY.md": "# Memory\n"})
	call, plain := NewCallSecrets(root), NewSecrets(root)
	if len(call.BankSecrets(state, root)) != 0 || len(plain.BankSecrets(state, root)) != 0 {
		t.Fatal("secrets in a clean bank")
	}
	writeRel(t, root, "memory-bank/details/tech.md", "# Tech\n\ntoken: "+tok+"\n")
	if got := call.BankSecrets(state, root); len(got) != 0 {
		t.Fatalf("the call's scanner looked again: %+v", got)
	}
	if got := plain.BankSecrets(state, root); len(got) != 1 {
		t.Fatalf("NewSecrets: %+v", got)
	}
	call.ForgetBank()
	if got := call.BankSecrets(state, root); len(got) != 1 || got[0].Secret != tok {
		t.Fatalf("after ForgetBank: %+v", got)
	}
}
