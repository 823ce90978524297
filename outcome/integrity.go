package outcome

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/internal/repo"
)

// The known-good store must not take the agent's word for anything the agent can write. Its
// truth is the manifest, authenticated by an HMAC under a per-user key kept in the user's state
// directory outside every repository ($XDG_STATE_HOME/mbguard/key), next to the manifest's
// copy, its MAC and a copy of every known-good blob (an outside object store that `git gc` and
// `update-ref -d` cannot reach):
//
//   - a manifest (in the git directory or outside) whose MAC does not match is never used;
//     the other copy is, and the forged one is written over;
//   - a private ref that names another tree than the authentic manifest is reset to it;
//   - a blob git lost (update-ref -d, then gc --prune=now) is read from the outside copy;
//   - when a MAC says a state was kept but no authentic copy is left, the check refuses to
//     take the disk as known-good (ErrStoreLost): the session's bank writes are refused and
//     the person is told, instead of accepting whatever is there.
//
// Every such finding is reported (Report.Tampered).

// ErrStoreLost says mbguard kept a known-good state of this bank but no authentic copy of it
// is left: every copy was deleted or forged.
var ErrStoreLost = errors.New("every copy of the known-good state of memory-bank/ is gone or was forged")

// UserStateDir is mbguard's folder in the user's state directory: the MAC key, the manifest's
// copies and signatures, the protected-file snapshots ("" without a home). No agent call may
// name it (the first line refuses one that does).
func UserStateDir() string { return stateBase() }

// stateBase is mbguard's folder in the user's state directory ("" without a home).
func stateBase() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "mbguard")
}

// repoKey names this repository's files in the state directory: a hash of its git directory.
func (g *Guard) repoKey() string {
	gd, err := filepath.Abs(g.r.GitDir)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(gd))
	return hex.EncodeToString(sum[:12])
}

// macPath holds the MAC of the current manifest, in a folder of its own: removing the copy's
// folder does not remove the evidence that a state was kept.
func (g *Guard) macPath() string {
	base, key := stateBase(), g.repoKey()
	if base == "" || key == "" {
		return ""
	}
	return filepath.Join(base, "signatures", key+".mac")
}

// userKey is the per-user MAC key, made on first use (0600).
func (g *Guard) userKey() []byte {
	if g.key != nil {
		return g.key
	}
	base := stateBase()
	if base == "" {
		return nil
	}
	p := filepath.Join(base, "key")
	if b, err := os.ReadFile(p); err == nil && len(b) >= 32 {
		g.key = b
		return b
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil
	}
	if os.MkdirAll(base, 0o700) != nil || writeFile(p, k, 0o600, true) != nil {
		return nil
	}
	g.key = k
	return k
}

func (g *Guard) mac(raw []byte) string {
	k := g.userKey()
	if k == nil {
		return ""
	}
	h := hmac.New(sha256.New, k)
	gd, _ := filepath.Abs(g.r.GitDir)
	h.Write([]byte(gd + "\x00"))
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}

// macKnown reports whether a MAC was ever written for this repository: a state was kept.
func (g *Guard) macKnown() bool {
	p := g.macPath()
	if p == "" {
		return false
	}
	_, err := os.Lstat(p)
	return err == nil
}

// authentic reports whether raw is the manifest mbguard last wrote.
func (g *Guard) authentic(raw []byte) bool {
	p := g.macPath()
	if p == "" {
		return false
	}
	want, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	got := g.mac(raw)
	return got != "" && hmac.Equal([]byte(strings.TrimSpace(string(want))), []byte(got))
}

func (g *Guard) writeMac(raw []byte) {
	if p := g.macPath(); p != "" {
		if m := g.mac(raw); m != "" && os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			_ = writeFile(p, []byte(m+"\n"), 0o600, false)
		}
	}
}

// note records a finding of tampering for the next report.
func (g *Guard) note(s string) {
	for _, t := range g.tampered {
		if t == s {
			return
		}
	}
	g.tampered = append(g.tampered, s)
}

// takeNotes moves the findings into rep.
func (g *Guard) takeNotes(rep *Report) {
	rep.Tampered = append(rep.Tampered, g.tampered...)
	g.tampered = nil
}

// trustManifest decides what the manifest raw read from the git directory is worth: the
// authentic manifest (possibly the outside copy, when raw was forged), or nil when nothing
// authentic is known (the caller recovers).
func (g *Guard) trustManifest(raw []byte) *manifest {
	mp := g.mirrorPath()
	if mp == "" {
		m, err := decodeManifest(raw)
		if err != nil {
			return nil
		}
		if t, ok := g.obj.refValue(g.Ref()); ok && t != m.Tree {
			return nil // no outside copy to tell which is right: rebuilt from the ref
		}
		return m
	}
	mir, merr := os.ReadFile(mp)
	switch {
	case g.authentic(raw):
		if merr != nil || !bytes.Equal(mir, raw) {
			g.note("the copy of the known-good manifest outside the repository was changed or removed; it was written again")
			g.saveMirrorRaw(raw)
		}
	case merr == nil && g.authentic(mir):
		g.note(".git/mbguard/known-good.idx was changed by something other than mbguard; the authentic copy was put back")
		_ = writeFile(g.manifestPath(), mir, 0o644, true)
		raw = mir
	case !g.macKnown() && merr == nil && bytes.Equal(mir, raw):
		// kept by an mbguard before the MAC: both copies agree, authenticate them now
		g.writeMac(raw)
	default:
		if g.macKnown() {
			g.note(".git/mbguard/known-good.idx and its copy do not carry mbguard's signature: both were changed by something other than mbguard")
		}
		return nil
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return nil
	}
	g.checkRef(m)
	return m
}

// checkRef resets a private ref that names another tree than the authentic manifest m (a
// forged ref is never adopted) and puts lost blobs back into git's object store from the
// outside copy, so the ref keeps them for gc again.
func (g *Guard) checkRef(m *manifest) {
	if g.obj.reftable || m.Tree == "" {
		return
	}
	t, ok := g.obj.refValue(g.Ref())
	if ok && t == m.Tree {
		return
	}
	if ok {
		g.note(g.Ref() + " was changed by something other than mbguard; it was reset to the known-good tree")
	} else {
		g.note(g.Ref() + " was deleted; it was made again")
	}
	for _, e := range m.Entries {
		if e.Blob != "" {
			g.obj.restoreLoose(e.Blob)
		}
	}
	tree, err := g.obj.writeTree(m.Entries)
	if err == nil {
		_ = g.obj.setRef(g.Ref(), tree)
	}
}

// saveMirrorRaw writes the outside copy and its MAC.
func (g *Guard) saveMirrorRaw(raw []byte) {
	if p := g.mirrorPath(); p != "" && os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		_ = writeFile(p, raw, 0o644, false)
		g.writeMac(raw)
		g.saveRecord() // which repository the files are for, so pruning can tell (userstate.go)
	}
}

// outsideObjects is the folder of the outside copies of known-good blobs ("" without a home).
func (g *Guard) outsideObjects() string {
	base := stateBase()
	if base == "" {
		return ""
	}
	return filepath.Join(base, "objects", g.repoKey())
}

// StoreLost reports whether mbguard kept a known-good state of r's bank of which no
// authentic copy is left (see ErrStoreLost): `mbguard doctor` says so.
func StoreLost(r repo.Repo) bool {
	g := New(r, Options{})
	if !g.macKnown() {
		return false
	}
	for _, p := range []string{g.manifestPath(), g.mirrorPath()} {
		if b, err := os.ReadFile(p); err == nil && g.authentic(b) {
			return false
		}
	}
	return true
}

// ResetKnownGood forgets r's known-good state (manifest, its copy and MAC, the private ref):
// the next check takes memory-bank/ as it is then. Only the person runs it, after checking the
// bank, when every copy was lost.
func ResetKnownGood(r repo.Repo) error {
	g := New(r, Options{})
	for _, p := range []string{g.manifestPath(), g.mirrorPath(), g.macPath()} {
		if p == "" {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("resetting the known-good state: %w", err)
		}
	}
	_, _ = gitexec.Run(context.Background(), r.Root, "update-ref", "-d", g.Ref()) // no ref is fine
	return nil
}
