package skills

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/mbguard/mbguard/internal/fsutil"
)

//go:embed files/SKILL.md files/references/reader.md files/references/writer.md
var files embed.FS

// ManifestName is the file, beside SKILL.md, that records what install wrote.
const ManifestName = ".mbguard-manifest.json"

// Files returns the skill's files by slash path relative to the skill folder, read once.
var Files = sync.OnceValue(func() map[string][]byte {
	m := make(map[string][]byte)
	_ = fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		m[p[len("files/"):]] = b
		return nil
	})
	return m
})

type manifest struct {
	Files map[string]string `json:"files"` // slash path → sha256 of what install wrote
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// Install writes the embedded agent skill into dir (e.g. .claude/skills/memory-bank), or removes
// it with uninstall. A file is (re)written only when it is missing or still exactly what the
// last install wrote; a file the user edited is kept and reported. Uninstall removes only files
// still unchanged since install. It returns one line per file for the user.
func Install(dir string, uninstall bool) ([]string, error) {
	mpath := filepath.Join(dir, ManifestName)
	man, err := readManifest(mpath)
	if err != nil {
		return nil, err
	}
	if uninstall {
		return remove(dir, man)
	}
	want := Files()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	var lines []string
	changed := false
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		content := want[n]
		cur, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := write(p, content); err != nil {
				return lines, err
			}
			lines = append(lines, line("created", p, ""))
		case err != nil:
			return lines, fmt.Errorf("reading %s: %w", p, err)
		case sum(cur) == sum(content):
			lines = append(lines, line("unchanged", p, ""))
		case man.Files[n] == sum(cur):
			if err := write(p, content); err != nil {
				return lines, err
			}
			lines = append(lines, line("updated", p, ""))
		default:
			lines = append(lines, line("kept", p, "edited since install; delete it and run install again for the new version"))
			continue // keep the old hash: the user's copy is not ours
		}
		if man.Files[n] != sum(content) {
			man.Files[n] = sum(content)
			changed = true
		}
	}
	if changed {
		b, _ := json.MarshalIndent(man, "", "  ")
		if err := fsutil.WriteFileAtomic(mpath, append(b, '\n'), 0o644); err != nil {
			return lines, err
		}
	}
	return lines, nil
}

// readManifest reads the hashes of the files an earlier install wrote; none when there was none.
func readManifest(mpath string) (manifest, error) {
	var man manifest
	switch b, err := os.ReadFile(mpath); {
	case err == nil:
		if err := json.Unmarshal(b, &man); err != nil {
			return man, fmt.Errorf("reading %s: %w (delete it and run install again)", mpath, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return man, fmt.Errorf("reading %s: %w", mpath, err)
	}
	if man.Files == nil {
		man.Files = map[string]string{}
	}
	return man, nil
}

func remove(dir string, man manifest) ([]string, error) {
	names := make([]string, 0, len(man.Files))
	for n := range man.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var lines []string
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		cur, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return lines, fmt.Errorf("reading %s: %w", p, err)
		case sum(cur) != man.Files[n]:
			lines = append(lines, line("kept", p, "edited since install"))
			continue
		}
		if err := os.Remove(p); err != nil {
			return lines, fmt.Errorf("removing %s: %w", p, err)
		}
		lines = append(lines, line("removed", p, ""))
	}
	if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return lines, fmt.Errorf("removing the skill manifest: %w", err)
	}
	// Remove the folders only when nothing of the user's is left in them.
	_ = os.Remove(filepath.Join(dir, "references"))
	_ = os.Remove(dir)
	return lines, nil
}

func write(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(p), err)
	}
	return fsutil.WriteFileAtomic(p, b, 0o644)
}

func line(action, path, note string) string {
	if note != "" {
		return fmt.Sprintf("%-10s %s (%s)", action, path, note)
	}
	return fmt.Sprintf("%-10s %s", action, path)
}
