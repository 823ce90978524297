package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mbguard/mbguard/gating"
	"github.com/mbguard/mbguard/internal/fsutil"
)

// Store is the directory of session files (repo.StateDir()/sessions).
type Store struct {
	dir string
	ttl time.Duration
	now func() time.Time
}

// New returns the store in dir. Nothing is created until the first Save or Lock.
func New(dir string, ttl time.Duration, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{dir: dir, ttl: ttl, now: now}
}

// Dir is the sessions directory.
func (s *Store) Dir() string { return s.dir }

// Outcome says how Load found a session's file.
type Outcome int

// Load outcomes.
const (
	Fresh   Outcome = iota // no file: a new session
	Loaded                 // the file was read
	Expired                // the file was older than the TTL: a fresh state replaces it
	Corrupt                // the file could not be decoded: a fresh state replaces it
	// Unreadable: the file exists but cannot be read (it is a directory, permission denied):
	// a fresh state replaces it and an error says why. Its content, perhaps an armed
	// recovery gate, is unknown, so callers treat it like Corrupt.
	Unreadable
)

// ErrCorrupt wraps the decoding error of a corrupt session file.
var ErrCorrupt = errors.New("corrupt session state")

// fileName maps a session id onto a safe file name: ids that are plain (Claude's UUIDs,
// OpenCode's ses_… ids) are kept readable, anything else is hashed.
func fileName(session string) string {
	plain := session != "" && len(session) <= 128
	for i := 0; plain && i < len(session); i++ {
		c := session[i]
		plain = c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if plain && !strings.HasPrefix(session, ".") {
		return session
	}
	h := sha256.Sum256([]byte(session))
	return "h-" + hex.EncodeToString(h[:16])
}

// Path is the state file of a session.
func (s *Store) Path(session string) string {
	return filepath.Join(s.dir, fileName(session)+".json")
}

// Load reads a session's state. A missing file gives a fresh state (Fresh); an expired one a
// fresh state (Expired); a corrupt or half-written one a fresh state (Corrupt) and an error
// wrapping ErrCorrupt, so the caller can report it and decide how careful to be. A file that
// exists but cannot be read gives a fresh state (Unreadable) and the read error. A sessions
// directory that is not a directory holds no state at all: Fresh.
func (s *Store) Load(session string) (gating.State, Outcome, error) {
	fresh := gating.State{Session: session}
	b, err := os.ReadFile(s.Path(session))
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return fresh, Fresh, nil
	}
	if err != nil {
		if errors.Is(err, syscall.EISDIR) {
			return fresh, Unreadable, fmt.Errorf("reading session state: %s is a directory", s.Path(session))
		}
		return fresh, Unreadable, fmt.Errorf("reading session state: %w", err)
	}
	var st gating.State
	if err := json.Unmarshal(b, &st); err != nil {
		return fresh, Corrupt, fmt.Errorf("%w %s: %v", ErrCorrupt, s.Path(session), err)
	}
	if st.Session != session {
		return fresh, Corrupt, fmt.Errorf("%w %s: it belongs to session %q", ErrCorrupt, s.Path(session), st.Session)
	}
	if s.ttl > 0 && st.Updated > 0 && s.now().Sub(time.UnixMilli(st.Updated)) > s.ttl {
		return fresh, Expired, nil
	}
	return st, Loaded, nil
}

// Save writes a session's state atomically.
func (s *Store) Save(st *gating.State) error {
	if st.Session == "" {
		return errors.New("saving session state: no session id")
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encoding session state: %w", err)
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("saving session state: %w", err)
	}
	return fsutil.WriteFileAtomic(s.Path(st.Session), b, 0o644)
}

// Remove forgets a session: its state file and its lock file.
func (s *Store) Remove(session string) error {
	err := os.Remove(s.Path(session))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	os.Remove(s.lockPath(session))
	if err != nil {
		return fmt.Errorf("removing session state: %w", err)
	}
	return nil
}

// List returns every session that has not expired, skipping files that cannot be decoded.
func (s *Store) List() ([]gating.State, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	var out []gating.State
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.dir, n))
		if err != nil {
			continue
		}
		var st gating.State
		if json.Unmarshal(b, &st) != nil || st.Session == "" {
			continue
		}
		if s.ttl > 0 && st.Updated > 0 && s.now().Sub(time.UnixMilli(st.Updated)) > s.ttl {
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

// RemoveStaleTemps removes the temporary files a process killed mid-save left behind
// (".<id>.json.tmp<digits>", older than fsutil.StaleTemp, so a save in progress is spared).
func (s *Store) RemoveStaleTemps() (int, error) {
	return fsutil.RemoveStaleTemps(s.dir, fsutil.StaleTemp, s.now())
}

// Sweep removes stale temporary files and the session files (and their locks) not modified
// within the TTL. It returns how many sessions it removed. Hosts call it at session start,
// not on every tool call.
func (s *Store) Sweep() (int, error) {
	ents, err := os.ReadDir(s.dir) // one listing for both (a session start pays for it)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sweeping sessions: %w", err)
	}
	n := 0
	now := s.now()
	for _, e := range ents {
		if s.sweepEntry(e, now.Add(-fsutil.StaleTemp), now.Add(-s.ttl)) {
			n++
		}
	}
	return n, nil
}

// sweepEntry removes e when it is a temporary older than tempCut (RemoveStaleTemps' rule), or a
// session file, its lock or a leftover not modified since cut (with a TTL); true when it
// removed a session.
func (s *Store) sweepEntry(e os.DirEntry, tempCut, cut time.Time) bool {
	name := e.Name()
	if fsutil.IsTemp(name) && e.Type().IsRegular() {
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(tempCut) && os.Remove(filepath.Join(s.dir, name)) == nil {
			return false
		}
	}
	if s.ttl <= 0 {
		return false
	}
	fi, err := e.Info()
	if err != nil || !fi.ModTime().Before(cut) {
		return false
	}
	removed := strings.HasSuffix(name, ".json") && os.Remove(filepath.Join(s.dir, name)) == nil
	if strings.HasSuffix(name, ".lock") || strings.HasPrefix(name, ".") {
		os.Remove(filepath.Join(s.dir, name))
	}
	return removed
}

func (s *Store) lockPath(session string) string {
	return filepath.Join(s.dir, fileName(session)+".lock")
}
