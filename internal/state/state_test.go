package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mbguard/mbguard/gating"
)

func TestStoreLoad(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	tests := []struct {
		name    string
		file    string // "" = none
		want    Outcome
		corrupt bool
	}{
		{"missing is fresh", "", Fresh, false},
		{"saved is loaded", `{"session":"s","satisfied":true,"updated":1700000000000}`, Loaded, false},
		{"older than the TTL expires", `{"session":"s","satisfied":true,"updated":1600000000000}`, Expired, false},
		{"half-written is corrupt", `{"session":"s","satis`, Corrupt, true},
		{"another session's file is corrupt", `{"session":"t"}`, Corrupt, true},
		{"a directory is unreadable", "<dir>", Unreadable, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t.TempDir(), time.Hour, func() time.Time { return now })
			switch tc.file {
			case "":
			case "<dir>":
				os.MkdirAll(s.Path("s"), 0o755)
			default:
				os.MkdirAll(s.Dir(), 0o755)
				os.WriteFile(s.Path("s"), []byte(tc.file), 0o644)
			}
			st, got, err := s.Load("s")
			if got != tc.want || errors.Is(err, ErrCorrupt) != tc.corrupt || (got == Unreadable) != (err != nil && !tc.corrupt) {
				t.Fatalf("outcome %v err %v, want %v", got, err, tc.want)
			}
			if st.Satisfied != (tc.want == Loaded) || st.Session != "s" {
				t.Fatalf("state %+v", st)
			}
		})
	}
}

// A sessions "directory" that is a file holds no state: nothing was lost, so Load is Fresh.
func TestStoreLoadUnderAFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/sessions", []byte("x"), 0o644)
	s := New(dir+"/sessions", time.Hour, nil)
	if _, o, err := s.Load("s"); o != Fresh || err != nil {
		t.Fatalf("outcome %v err %v, want Fresh", o, err)
	}
}

func TestStoreSaveRemoveAndNames(t *testing.T) {
	s := New(t.TempDir(), time.Hour, nil)
	for _, id := range []string{"abc-123", "../../etc/passwd", ".hidden", string(make([]byte, 300))} {
		st := gating.State{Session: id, Satisfied: true, Updated: time.Now().UnixMilli()}
		lk, err := s.Lock(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Save(&st); err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		lk.Unlock()
		if got, o, _ := s.Load(id); o != Loaded || !got.Satisfied {
			t.Fatalf("%q: reload %v %+v", id, o, got)
		}
		if err := s.Remove(id); err != nil {
			t.Fatal(err)
		}
		if _, o, _ := s.Load(id); o != Fresh {
			t.Fatalf("%q: still there after Remove", id)
		}
	}
	ents, _ := os.ReadDir(s.Dir())
	if len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}

// A serve killed between writing and renaming a session file leaves ".<id>.json.tmpNNN";
// Sweep removes it once it is stale, and a fresh one (a save in progress) stays.
func TestSweepRemovesStaleTemps(t *testing.T) {
	now := time.Now()
	s := New(t.TempDir(), 0, func() time.Time { return now })
	os.MkdirAll(s.Dir(), 0o755)
	stale := s.Path("a") + ".tmp4242"
	stale = filepath.Join(filepath.Dir(stale), "."+filepath.Base(stale))
	busy := filepath.Join(s.Dir(), ".b.json.tmp7")
	for _, p := range []string{stale, busy} {
		if err := os.WriteFile(p, []byte(`{"session":`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := now.Add(-time.Hour)
	os.Chtimes(stale, old, old)
	if _, err := s.Sweep(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(busy); err != nil {
		t.Errorf("a save in progress lost its temporary file: %v", err)
	}
}

// Sweep removes, in the same listing as the temporaries, the sessions (and their locks) not
// modified within the TTL and counts them; a fresh session stays.
func TestSweepRemovesExpiredSessions(t *testing.T) {
	now := time.Now()
	s := New(t.TempDir(), time.Hour, func() time.Time { return now })
	os.MkdirAll(s.Dir(), 0o755)
	old := now.Add(-2 * time.Hour)
	for _, id := range []string{"gone", "kept"} {
		for _, p := range []string{s.Path(id), s.lockPath(id)} {
			if err := os.WriteFile(p, []byte(`{}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if id == "gone" {
				os.Chtimes(p, old, old)
			}
		}
	}
	temp := filepath.Join(s.Dir(), ".kept.json.tmp9")
	if err := os.WriteFile(temp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(temp, old, old)
	n, err := s.Sweep()
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 session removed", n, err)
	}
	for p, want := range map[string]bool{s.Path("gone"): false, s.lockPath("gone"): false, s.Path("kept"): true, s.lockPath("kept"): true, temp: false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
