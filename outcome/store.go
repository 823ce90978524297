package outcome

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mbguard/mbguard/internal/fsutil"
)

// manifest is the known-good state as stored in the git directory.
type manifest struct {
	Version int              `json:"version"`
	Tree    string           `json:"tree,omitempty"` // root tree of the blobs, held by Ref
	Entries map[string]Entry `json:"entries"`
}

// Call is one tool call between its pre and post check.
type Call struct {
	ID      string   `json:"id"`
	Session string   `json:"session"`
	Host    string   `json:"host,omitempty"`
	Tool    string   `json:"tool"`
	Allowed []string `json:"allowed,omitempty"` // bank paths an allowed write tool may write
	Start   int64    `json:"start"`             // Unix milliseconds
	// Ended is set when the session moved on (a new user message, session end) without this
	// call's post check: the call is stale from then on.
	Ended bool `json:"ended,omitempty"`
}

type inflight struct {
	Calls []Call `json:"calls"`
}

const manifestVersion = 1

func readJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	return true, nil
}

// writeJSON replaces path atomically. durable adds an fsync: the manifest needs it (it
// names the bytes to restore), the in-flight list does not (after a power loss every call in
// it is over anyway, and it is written twice per tool call).
func writeJSON(path string, v any, durable bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeFile(path, b, 0o644, durable)
}

// writeFile replaces path atomically (a temporary file renamed over it).
func writeFile(path string, b []byte, perm os.FileMode, durable bool) error {
	if durable {
		return fsutil.WriteFileAtomic(path, b, perm)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := f.Write(b)
	if werr == nil && perm != 0o600 {
		werr = f.Chmod(perm)
	}
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}
