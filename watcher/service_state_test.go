package watcher

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mbguard/mbguard/internal/config"
)

// A serve killed with -9 between writing and renaming a session file leaves a temporary file;
// the next resident service removes it at a session's start.
func TestResidentServiceRemovesStaleTemps(t *testing.T) {
	r := serviceRepo(t)
	cfg, _ := config.Load(config.Options{RepoRoot: r.Root, Getenv: func(string) string { return "" }})
	s := NewService(r, cfg, ServiceOptions{Resident: true})
	dir := filepath.Join(r.StateDir(), "sessions")
	os.MkdirAll(dir, 0o755)
	tmp := filepath.Join(dir, ".s1.json.tmp31337")
	os.WriteFile(tmp, []byte(`{"sess`), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tmp, old, old)
	if resp := s.Handle(context.Background(), Request{Op: "context", Session: "s2"}); resp.Error != "" {
		t.Fatal(resp.Error)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("stale temporary file still there: %v", err)
	}
}
