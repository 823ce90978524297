package outcome

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mbguard/mbguard/internal/repo"
	"github.com/mbguard/mbguard/internal/testgit"
)

// FuzzInflightLog: whatever bytes a command appends to inflight.log, reading it never panics
// and never yields a call mbguard did not record (each line needs its MAC).
func FuzzInflightLog(f *testing.F) {
	f.Add([]byte(`{"op":"add","call":{"id":"f","session":"s","tool":"Write","allowed":["memory-bank/a.md"],"start":99999999999999}}` + "\n"))
	f.Add([]byte("{\"op\":\"add\",\"call\":{\"id\":\"f\"}}\tdeadbeef\n"))
	f.Add([]byte("\t\n\t\t{}\n"))
	f.Fuzz(func(t *testing.T, forged []byte) {
		root := testgit.New(t)
		r, err := repo.Find(root)
		if err != nil {
			t.Fatal(err)
		}
		g := New(r, Options{})
		if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
			t.Fatal(err)
		}
		// one genuine record, then the forged bytes
		if err := g.saveInflight(inflight{}, inflight{Calls: []Call{{ID: "real", Session: "s", Tool: "Bash", Start: 1}}}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(r.StateDir(), "inflight.log")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, append(append(b, '\n'), forged...), 0o644)
		in := g.loadInflight()
		for _, c := range in.Calls {
			if c.ID != "real" {
				t.Fatalf("a forged record was taken for a call in flight: %+v", c)
			}
		}
	})
}
