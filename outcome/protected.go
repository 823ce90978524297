package outcome

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mbguard/mbguard/internal/gitexec"
	"github.com/mbguard/mbguard/internal/repo"
)

// The protected set is guarded after every call like the bank: mbguard's configuration and
// every host's installed hook files (Options.Protected, which is gating.ProtectedPaths: the
// gate before a call refuses the writes it can see, this check undoes the ones it cannot — a
// script, an interpreter, `git merge` bringing a .mbguard.yaml), the git directory's hooks,
// and the git config keys that run code or move the hooks. A change found before a call while
// no call is in flight is the person's and becomes the known-good state; one found after a
// call is undone, the agent's bytes kept in the quarantine. Files outside the repository (the
// user-level hook settings) are only reported: mbguard does not rewrite a user's home.
//
// The known-good state lives outside the repository, next to the manifest's copy (see
// mirrorPath), so no command in the repository can rewrite it along with the files.

// maxProtectedFile bounds the bytes kept per protected file; a larger one is compared by its
// hash and reported, not restored, when it changes.
const maxProtectedFile = 1 << 20

// maxProtectedEntries bounds the entries read below one protected folder.
const maxProtectedEntries = 4096

// protFile is one protected path's known-good state.
type protFile struct {
	Entry
	Data []byte `json:"data,omitempty"` // the bytes, or a symlink's target
	Sum  string `json:"sum,omitempty"`  // sha256 of the bytes
	Big  bool   `json:"big,omitempty"`  // too large to keep: Data is empty
}

type protSnap struct {
	Version int                 `json:"version"`
	Files   map[string]protFile `json:"files"`
	// Config is the git config file's known-good state; Risky its entries that run code or
	// move the hooks, as "key\nvalue".
	Config protFile `json:"config"`
	Risky  []string `json:"risky,omitempty"`
	// WConfig and WRisky are the same for the worktree's config.worktree, which git reads
	// (as the last word) once extensions.worktreeConfig is set.
	WConfig protFile `json:"wconfig,omitempty"`
	WRisky  []string `json:"wrisky,omitempty"`
	// User are the user-level hook files: absolute path -> sha256 ("" when absent).
	User map[string]string `json:"user,omitempty"`
	// Kept are their known-good forms, to put them back after an agent's call (keepUser).
	Kept map[string]userKept `json:"kept,omitempty"`
	// Unguarded are the user-level files changed during an agent's call and not yet
	// confirmed by the person (ConfirmUserFiles): until then the session is unguarded.
	Unguarded []string `json:"unguarded,omitempty"`
}

// protRoot is one protected entry: base is the absolute folder it lies in, top its slash path
// below base, show its name in reports (repository-relative, .git/ for the git directory).
type protRoot struct{ base, top, show string }

func (g *Guard) protRoots(s *protSnap) []protRoot {
	var out []protRoot
	seen := map[string]bool{}
	add := func(r protRoot) {
		if !seen[r.show] {
			seen[r.show] = true
			out = append(out, r)
		}
	}
	for _, p := range g.o.Protected {
		p = strings.TrimSuffix(filepath.ToSlash(p), "/")
		switch {
		case p == "" || p == ".git" || p == ".git/config" || p == ".git/config.worktree" || p == ".git/mbguard" || strings.HasPrefix(p, ".git/mbguard/"):
			// the config is judged by its keys, mbguard's own state by the store's checks
		case strings.HasPrefix(p, ".git/"):
			add(protRoot{g.r.CommonDir, p[len(".git/"):], p})
		default:
			add(protRoot{g.r.Root, p, p})
		}
	}
	// the folder core.hooksPath names (the person set it) holds hooks as much as .git/hooks
	if s != nil {
		for _, kv := range slices.Concat(s.Risky, s.WRisky) {
			if rel, ok := g.hooksPathIn(kv); ok {
				add(protRoot{g.r.Root, rel, rel})
			}
		}
	}
	return out
}

// hooksPathIn is the repository-relative folder a risky config pair ("key\nvalue") names
// when it is core.hooksPath inside the work tree.
func (g *Guard) hooksPathIn(kv string) (string, bool) {
	k, v, _ := strings.Cut(kv, "\n")
	if k != "core.hookspath" || v == "" || strings.HasPrefix(v, "~") {
		return "", false
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(g.r.Root, v)
	}
	rel, err := filepath.Rel(g.r.Root, filepath.Clean(v))
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// protDisk lstats every protected entry. A folder that cannot be read shows as an entry of
// kind other: a change, never a reason to skip the check.
func (g *Guard) protDisk(roots []protRoot) map[string]Entry {
	out := map[string]Entry{}
	for _, r := range roots {
		tmp := map[string]Entry{}
		if err := walkProt(r.base, r.top, tmp); err != nil {
			out[r.show] = Entry{Kind: KindOther}
		}
		for k, e := range tmp {
			out[r.show+strings.TrimPrefix(k, r.top)] = e
		}
	}
	return out
}

// walkProt is walkAt bounded for configuration folders: node_modules (a plugin's
// dependencies, installed by the host) is not read, and at most maxProtectedEntries entries.
func walkProt(base, top string, out map[string]Entry) error {
	abs := filepath.Join(base, filepath.FromSlash(top))
	fi, err := os.Lstat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	out[top] = entryOf(fi)
	if !fi.IsDir() {
		return nil
	}
	var rec func(dir, rel string) error
	rec = func(dir, rel string) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, d := range ents {
			if d.Name() == "node_modules" || gitSample(dir, d) {
				continue
			}
			if len(out) >= maxProtectedEntries {
				return nil
			}
			p := filepath.Join(dir, d.Name())
			fi, err := os.Lstat(p)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			r := rel + "/" + d.Name()
			out[r] = entryOf(fi)
			if fi.IsDir() {
				if err := rec(p, r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return rec(abs, top)
}

func (g *Guard) protPath() string {
	if p := g.mirrorPath(); p != "" {
		return filepath.Join(filepath.Dir(filepath.Dir(p)), "protected", strings.TrimSuffix(filepath.Base(p), ".idx")+".json")
	}
	return filepath.Join(g.r.StateDir(), "protected.json")
}

func (g *Guard) loadProt() *protSnap {
	var s protSnap
	if ok, err := readJSON(g.protPath(), &s); !ok || err != nil || s.Files == nil {
		return nil
	}
	for k := range s.Files { // kept by an mbguard that still read them
		if path.Ext(k) == ".sample" && path.Base(path.Dir(k)) == "hooks" {
			delete(s.Files, k)
		}
	}
	return &s
}

// gitSample reports the example hooks git init writes (hooks/<name>.sample): git never runs
// one, and keeping their 20 KB in the known-good state cost every hook call a decode of it.
// Renaming one into a hook is a new file in the folder, which the check sees.
func gitSample(dir string, d fs.DirEntry) bool {
	return d.Type().IsRegular() && filepath.Base(dir) == "hooks" && strings.HasSuffix(d.Name(), ".sample")
}

func (g *Guard) saveProt(s *protSnap) {
	s.Version = 1
	_ = writeJSON(g.protPath(), s, false)
}

// absPath is the file a protected name stands for.
func (g *Guard) protAbs(roots []protRoot, show string) string {
	for _, r := range roots {
		if under(show, r.show) {
			return filepath.Join(r.base, filepath.FromSlash(r.top+strings.TrimPrefix(show, r.show)))
		}
	}
	return filepath.Join(g.r.Root, filepath.FromSlash(show))
}

// readProt reads the state of one disk entry to keep or compare.
func readProt(abs string, e Entry) protFile {
	f := protFile{Entry: e}
	var b []byte
	switch e.Kind {
	case KindFile:
		if e.Size > maxProtectedFile {
			f.Big = true
			if h, err := hashFile(abs); err == nil {
				f.Sum = h
			}
			return f
		}
		var err error
		if b, err = os.ReadFile(abs); err != nil {
			f.Kind = KindOther // unreadable: a change
			return f
		}
	case KindSymlink:
		t, err := os.Readlink(abs)
		if err != nil {
			f.Kind = KindOther
			return f
		}
		b = []byte(t)
	default:
		return f
	}
	sum := sha256.Sum256(b)
	f.Data, f.Sum = b, hex.EncodeToString(sum[:])
	return f
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return hashReader(f)
}

// hashReader is the sha256 of what r holds, in hex.
func hashReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// same reports whether disk state d holds what the known-good k holds.
func (k protFile) same(d protFile) bool {
	return k.Kind == d.Kind && k.Mode == d.Mode && k.Sum == d.Sum
}

// protChange is one protected path that differs from its known-good state.
type protChange struct {
	show string
	k, d *protFile
}

// protDiff compares the protected entries with their known-good state; unchanged entries
// whose stat moved get it refreshed in s (touched).
func (g *Guard) protDiff(s *protSnap, roots []protRoot) (out []protChange, touched bool) {
	disk := g.protDisk(roots)
	for p, e := range disk {
		k, ok := s.Files[p]
		if ok && k.Entry.sameStat(e) {
			continue
		}
		d := readProt(g.protAbs(roots, p), e)
		if ok && k.same(d) && (e.Kind != KindFile || e.Nlink <= 1) {
			k.Entry = e
			s.Files[p] = k
			touched = true
			continue
		}
		c := protChange{show: p, d: &d}
		if ok {
			c.k = &k
		}
		out = append(out, c)
	}
	for p, k := range s.Files {
		if _, ok := disk[p]; !ok {
			out = append(out, protChange{show: p, k: &k})
		}
	}
	slices.SortFunc(out, func(a, b protChange) int { return strings.Compare(a.show, b.show) })
	return out, touched
}

// protectBefore runs in the pre check. With no call in flight, every change is the person's
// and becomes known-good (the first check takes the disk as it is); with stale calls whose
// post check never came, their changes are undone.
func (g *Guard) protectBefore(accept, enforce bool, rep *Report) {
	if len(g.o.Protected) == 0 {
		return
	}
	s := g.loadProt()
	if s == nil {
		g.saveProt(g.protTake())
		return
	}
	switch {
	case enforce:
		g.protEnforce(s, rep)
	case accept:
		g.protAccept(s)
	}
	rep.Unguarded = s.Unguarded
}

// protectAfter runs in the post check: every change to the protected set is undone.
func (g *Guard) protectAfter(rep *Report) {
	if len(g.o.Protected) == 0 {
		return
	}
	s := g.loadProt()
	if s == nil {
		// no known-good state yet (installed while a call ran): take this one
		g.saveProt(g.protTake())
		return
	}
	g.protEnforce(s, rep)
	rep.Unguarded = s.Unguarded
}

// protTake reads the protected set as it is now.
func (g *Guard) protTake() *protSnap {
	s := &protSnap{Files: map[string]protFile{}}
	g.takeConfig(s)
	roots := g.protRoots(s)
	for p, e := range g.protDisk(roots) {
		s.Files[p] = readProt(g.protAbs(roots, p), e)
	}
	s.User = map[string]string{}
	for _, p := range g.o.UserProtected {
		s.User[p] = sumOf(p)
		keepUser(s, p)
	}
	return s
}

func (g *Guard) configPath() string { return filepath.Join(g.r.CommonDir, "config") }

// cfgFile is one git config file judged by its risky keys: the repository's config, and the
// worktree's config.worktree (extensions.worktreeConfig), which a command can create with
// `git config --worktree core.hooksPath x` to move the hooks as surely as the other.
type cfgFile struct {
	path, show string
	file       *protFile
	risky      *[]string
}

func (g *Guard) cfgFiles(s *protSnap) []cfgFile {
	gd := g.r.GitDir
	if gd == "" {
		gd = g.r.CommonDir
	}
	return []cfgFile{
		{g.configPath(), ".git/config", &s.Config, &s.Risky},
		{filepath.Join(gd, "config.worktree"), ".git/config.worktree", &s.WConfig, &s.WRisky},
	}
}

// takeConfig records the git config files as known-good.
func (g *Guard) takeConfig(s *protSnap) {
	for _, cf := range g.cfgFiles(s) {
		takeCfg(cf)
	}
}

func takeCfg(cf cfgFile) {
	fi, err := os.Lstat(cf.path)
	if err != nil {
		*cf.file, *cf.risky = protFile{}, nil
		return
	}
	*cf.file = readProt(cf.path, entryOf(fi))
	*cf.risky, _ = riskyConfig(cf.path)
}

func (g *Guard) protAccept(s *protSnap) {
	changes, touched := g.protDiff(s, g.protRoots(s))
	for _, c := range changes {
		if c.d == nil {
			delete(s.Files, c.show)
		} else {
			s.Files[c.show] = *c.d
		}
	}
	cfgChanged := false
	for _, cf := range g.cfgFiles(s) {
		if cfgMoved(cf) {
			takeCfg(cf)
			cfgChanged = true
		}
	}
	userChanged := false
	for _, p := range g.o.UserProtected {
		if h := sumOf(p); s.User[p] != h {
			if s.User == nil {
				s.User = map[string]string{}
			}
			s.User[p], userChanged = h, true
			keepUser(s, p)
		}
	}
	if len(changes) > 0 || touched || cfgChanged || userChanged {
		g.saveProt(s)
	}
}

// cfgMoved reports whether a git config file's bytes may differ from the known-good ones
// (its stat changed and its bytes did).
func cfgMoved(cf cfgFile) bool {
	fi, err := os.Lstat(cf.path)
	if err != nil {
		return cf.file.Kind != ""
	}
	e := entryOf(fi)
	if cf.file.Entry.sameStat(e) {
		return false
	}
	d := readProt(cf.path, e)
	if cf.file.same(d) {
		cf.file.Entry = e
		return true // stat refresh only; takeCfg re-reads the same bytes
	}
	return true
}

// protEnforce undoes every change to the protected set.
func (g *Guard) protEnforce(s *protSnap, rep *Report) {
	roots := g.protRoots(s)
	changes, touched := g.protDiff(s, roots)
	dirty := touched
	if len(changes) > 0 {
		g.protUndo(s, roots, changes, rep)
		dirty = true
	}
	for _, cf := range g.cfgFiles(s) {
		if cfgMoved(cf) {
			g.enforceConfig(cf, rep)
			dirty = true
		}
	}
	if g.protUser(s, rep) {
		dirty = true
	}
	if dirty {
		g.saveProt(s)
	}
}

// protUser puts back the files the user protected that changed since the snapshot s; dirty
// reports whether s changed.
func (g *Guard) protUser(s *protSnap, rep *Report) (dirty bool) {
	var q *quarantine
	for _, p := range g.o.UserProtected {
		if s.User[p] == sumOf(p) {
			continue
		}
		dirty = true
		if s.User == nil {
			s.User = map[string]string{}
		}
		// put it back from what mbguard kept; what cannot be put back unguards the session
		if q == nil {
			q, _ = g.newQuarantine(rep.Call)
		}
		if q != nil && putBackUser(s, p, q, rep) {
			continue
		}
		if !slices.Contains(s.Unguarded, p) {
			s.Unguarded = append(s.Unguarded, p)
		}
		s.User[p] = sumOf(p)
	}
	if q != nil {
		g.keepQuarantine(q, rep)
	}
	return dirty
}

// putBackUser restores the user-protected file p from what mbguard kept, and reports whether
// it is as it was.
func putBackUser(s *protSnap, p string, q *quarantine, rep *Report) bool {
	what, err := restoreUser(s, p, q)
	if now := sumOf(p); err == nil && (now == s.User[p] || s.Kept[p].Copy != "") {
		// a large file's stamp is new after the restore; its bytes were checked
		s.User[p] = now
		rep.Undone = append(rep.Undone, Undone{Path: p, Change: what, Why: userWhy})
		return true
	}
	if err != nil {
		rep.Noticed = append(rep.Noticed, Problem{Path: p, Rule: RuleProtected, Text: "could not be restored: " + err.Error()})
	}
	return false
}

var protWhy = []Problem{{Rule: RuleProtected, Text: "is part of mbguard's configuration or installed hooks, which only the user may change"}}

func (g *Guard) protUndo(s *protSnap, roots []protRoot, changes []protChange, rep *Report) {
	q, err := g.newQuarantine(rep.Call)
	if err != nil {
		rep.Noticed = append(rep.Noticed, Problem{Rule: RuleProtected, Text: "could not be undone: " + err.Error()})
		return
	}
	// 1. the agent's entries move away, deepest first
	for i := len(changes) - 1; i >= 0; i-- {
		if c := changes[i]; c.d != nil {
			g.protMoveAway(q, roots, c, rep)
		}
	}
	// 2. the known-good entries come back, shallowest first
	for _, c := range changes {
		g.protPutBack(s, roots, c, rep)
	}
	for _, c := range changes {
		ch := &change{path: c.show}
		if c.k != nil {
			ch.b = &c.k.Entry
		}
		if c.d != nil {
			ch.d = &c.d.Entry
		}
		rep.Undone = append(rep.Undone, Undone{Path: c.show, Change: ch.what(), Why: protWhy})
	}
	_ = g.keepQuarantine(q, rep) // the undo stands; a save error is not reported, as before
}

// protMoveAway moves the agent's entry c into the quarantine.
func (g *Guard) protMoveAway(q *quarantine, roots []protRoot, c protChange, rep *Report) {
	abs := g.protAbs(roots, c.show)
	ch := &change{path: c.show, d: &c.d.Entry, new: c.d.Data}
	if c.k != nil {
		ch.b = &c.k.Entry
	}
	if c.d.Kind == KindDir && c.k != nil && c.k.Kind == KindDir {
		if err := os.Chmod(abs, c.k.Mode); err != nil {
			rep.Noticed = append(rep.Noticed, Problem{Path: c.show, Rule: RuleProtected, Text: "could not be undone: " + err.Error()})
		}
		q.add(ch, "", "", protWhy)
		return
	}
	if c.d.Kind == KindDir {
		// a new folder: what lies in it moved already; one that still holds entries mbguard
		// does not read (node_modules) goes to the quarantine whole
		if os.Remove(abs) == nil {
			q.add(ch, "", "", protWhy)
			return
		}
	}
	if err := q.move(ch, abs, protWhy); err != nil {
		rep.Noticed = append(rep.Noticed, Problem{Path: c.show, Rule: RuleProtected, Text: "could not be undone: " + err.Error()})
	}
}

// protPutBack brings c's known-good entry back (or forgets it, when there was none).
func (g *Guard) protPutBack(s *protSnap, roots []protRoot, c protChange, rep *Report) {
	if c.k == nil {
		delete(s.Files, c.show)
		return
	}
	if c.d != nil && c.d.Kind == KindDir && c.k.Kind == KindDir {
		return
	}
	abs := g.protAbs(roots, c.show)
	var err error
	switch {
	case c.k.Kind == KindDir:
		err = os.MkdirAll(abs, c.k.Mode)
	case c.k.Kind == KindFile && !c.k.Big:
		if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
			err = writeExact(abs, c.k.Data, c.k.Mode)
		}
	case c.k.Kind == KindSymlink:
		if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
			err = os.Symlink(string(c.k.Data), abs)
		}
	default:
		err = errors.New("mbguard keeps no copy of it")
	}
	if err != nil {
		rep.Noticed = append(rep.Noticed, Problem{Path: c.show, Rule: RuleProtected, Text: "could not be restored: " + err.Error()})
		return
	}
	if fi, err := os.Lstat(abs); err == nil {
		k := *c.k
		k.Entry = entryOf(fi)
		s.Files[c.show] = k
	}
}

// keepQuarantine saves q when it holds bytes of the agent's, else removes it: a chmod or a
// deletion alone leaves none to keep.
func (g *Guard) keepQuarantine(q *quarantine, rep *Report) error {
	kept := false
	for _, e := range q.meta.Entries {
		kept = kept || e.File != ""
	}
	if !kept {
		os.RemoveAll(q.dir)
		return nil
	}
	if err := q.save(); err != nil {
		return err
	}
	rep.Quarantine = q.meta.ID
	return nil
}

// enforceConfig undoes changes to a git config file's risky keys, leaving every other change
// (a remote added, user.email) as it is. A config git cannot read is put back whole (or
// removed, when there was none).
func (g *Guard) enforceConfig(cf cfgFile, rep *Report) {
	p := cf.path
	now, err := riskyConfig(p)
	if err == nil && slices.Equal(now, *cf.risky) {
		takeCfg(cf) // a harmless change: the new bytes are known-good
		return
	}
	old, _ := os.ReadFile(p)
	why := []Problem{{Rule: RuleProtected, Text: "changed git config keys that run code or move the hooks (" + strings.Join(riskyKeysChanged(*cf.risky, now), ", ") + ")"}}
	if err != nil {
		why = []Problem{{Rule: RuleProtected, Text: "git cannot read the changed config"}}
	}
	fixed := err == nil && g.fixConfigKeys(p, *cf.risky, now) == nil
	switch {
	case fixed:
	case cf.file.Kind == KindFile && !cf.file.Big:
		fixed = writeExact(p, cf.file.Data, cf.file.Mode) == nil
	case cf.file.Kind == "":
		fixed = os.Remove(p) == nil
	}
	if !fixed {
		rep.Noticed = append(rep.Noticed, Problem{Path: cf.show, Rule: RuleProtected, Text: "could not be restored; check it with `git config --list --show-origin`"})
		return
	}
	if q, qerr := g.newQuarantine(rep.Call); qerr == nil {
		q.keep(cf.show, "changed", old, why)
		g.keepQuarantine(q, rep)
	}
	rep.Undone = append(rep.Undone, Undone{Path: cf.show, Change: "changed", Why: why})
	takeCfg(cf)
}

func riskyKeysChanged(old, now []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, kv := range append(slices.Clone(old), now...) {
		if slices.Contains(old, kv) != slices.Contains(now, kv) {
			k, _, _ := strings.Cut(kv, "\n")
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// fixConfigKeys sets every risky key that differs back to its known-good values.
func (g *Guard) fixConfigKeys(p string, old, now []string) error {
	for _, k := range riskyKeysChanged(old, now) {
		if _, err := gitexec.Run(context.Background(), "", "config", "--file", p, "--unset-all", k); err != nil {
			if gitexec.ExitCode(err) != 5 { // 5: no such key
				return err
			}
		}
		for _, kv := range old {
			if ok, v, _ := strings.Cut(kv, "\n"); ok == k {
				if _, err := gitexec.Run(context.Background(), "", "config", "--file", p, "--add", k, v); err != nil {
					return err
				}
			}
		}
	}
	after, err := riskyConfig(p)
	if err != nil || !slices.Equal(after, old) {
		return fmt.Errorf("the git config still differs")
	}
	return nil
}

// riskyConfig lists the entries of the git config file p that run code or move the hooks,
// as "key\nvalue", in file order.
func riskyConfig(p string) ([]string, error) {
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	out, err := gitexec.Run(context.Background(), "", "config", "--file", p, "--list", "-z")
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return riskyEntries(out), nil
}

// riskyEntries picks the risky entries out of `git config --list -z` output.
func riskyEntries(out []byte) []string {
	var risky []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, _ := strings.Cut(string(rec), "\n")
		if RiskyConfigKey(k, v) {
			risky = append(risky, k+"\n"+v)
		}
	}
	return risky
}

// RiskyConfigKey reports whether git config key k (as `git config --list` spells it: section
// and name in lower case) with value v runs code or moves the hooks.
func RiskyConfigKey(k, v string) bool {
	lk := strings.ToLower(k)
	sec, rest, _ := strings.Cut(lk, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	switch sec {
	case "core":
		return name == "hookspath" || name == "fsmonitor" || name == "sshcommand"
	case "alias":
		return strings.HasPrefix(strings.TrimSpace(v), "!")
	case "filter":
		return true
	case "diff":
		return strings.Contains(rest, ".") && (name == "textconv" || name == "command")
	case "include", "includeif":
		return name == "path"
	}
	return false
}

// sumOf is what a user-level file is compared by: the sha256 of its bytes, "" when it does
// not exist. A file larger than maxProtectedFile (the executable the hooks run) is compared by
// its change stamp instead (changeStamp: no write leaves it as it was), so the check after a
// call does not hash megabytes.
func sumOf(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return ""
	}
	if fi.Size() > maxProtectedFile {
		if st := changeStamp(fi); st != "" {
			return st
		}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ConfirmUserFiles is the person's word that the user-level hook files mbguard reported as
// changed during an agent's call are as they want them (`mbguard doctor --confirm-user-files`,
// run in a terminal): their current state becomes known-good and the session is guarded
// again. It returns the files that were unconfirmed.
func ConfirmUserFiles(r repo.Repo, userFiles []string) ([]string, error) {
	g := New(r, Options{UserProtected: userFiles})
	lk, err := g.lock()
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	s := g.loadProt()
	if s == nil || len(s.Unguarded) == 0 {
		return nil, nil
	}
	was := s.Unguarded
	s.Unguarded = nil
	if s.User == nil {
		s.User = map[string]string{}
	}
	for _, p := range userFiles {
		s.User[p] = sumOf(p)
		keepUser(s, p)
	}
	if err := writeJSON(g.protPath(), s, true); err != nil {
		return nil, err
	}
	return was, nil
}

// UnguardedFiles lists the user-level files changed during an agent's call that the person
// has not confirmed yet.
func UnguardedFiles(r repo.Repo) []string {
	g := New(r, Options{})
	if s := g.loadProt(); s != nil {
		return s.Unguarded
	}
	return nil
}
